/// The RFC 8259 number grammar, shared by the parser and `JSONNumber(text:)` so both accept
/// exactly the same texts:  -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
enum JSONNumberGrammar {
    enum Problem: Equatable {
        case digitAfterMinus, leadingZero, digitAfterPoint, digitInExponent

        var text: String {
            switch self {
            case .digitAfterMinus: return "expected a digit after '-'"
            case .leadingZero: return "leading zeros are not allowed"
            case .digitAfterPoint: return "expected a digit after the decimal point"
            case .digitInExponent: return "expected a digit in the exponent"
            }
        }
    }

    /// Scans a number starting at `start`. On success `end` is one past it; on failure `end`
    /// is the offset of the offending byte.
    struct Scan {
        var end: Int
        var isInteger: Bool
        var problem: Problem?
    }

    @inline(__always)
    static func isDigit(_ c: UInt8) -> Bool { c &- UInt8(ascii: "0") < 10 }

    @inline(__always)
    static func scan(_ base: UnsafePointer<UInt8>, from start: Int, limit: Int) -> Scan {
        var p = start
        var integer = true
        if base[p] == UInt8(ascii: "-") { p += 1 }
        guard p < limit, isDigit(base[p]) else { return Scan(end: p, isInteger: true, problem: .digitAfterMinus) }
        if base[p] == UInt8(ascii: "0") {
            p += 1
            if p < limit && isDigit(base[p]) { return Scan(end: p, isInteger: true, problem: .leadingZero) }
        } else {
            p += 1
            while p < limit && isDigit(base[p]) { p += 1 }
        }
        if p < limit && base[p] == UInt8(ascii: ".") {
            integer = false
            p += 1
            guard p < limit, isDigit(base[p]) else { return Scan(end: p, isInteger: false, problem: .digitAfterPoint) }
            while p < limit && isDigit(base[p]) { p += 1 }
        }
        if p < limit && base[p] | 0x20 == UInt8(ascii: "e") {
            integer = false
            p += 1
            if p < limit && (base[p] == UInt8(ascii: "+") || base[p] == UInt8(ascii: "-")) { p += 1 }
            guard p < limit, isDigit(base[p]) else { return Scan(end: p, isInteger: false, problem: .digitInExponent) }
            while p < limit && isDigit(base[p]) { p += 1 }
        }
        return Scan(end: p, isInteger: integer, problem: nil)
    }
}
