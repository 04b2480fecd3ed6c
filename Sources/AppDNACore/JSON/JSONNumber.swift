/// A JSON number kept as its text, so reading and writing a document never changes a number:
/// `1.0` stays `1.0`, `1e400` and 30-digit integers survive although no machine type holds them.
public struct JSONNumber: Hashable, Sendable, CustomStringConvertible {
    /// Valid RFC 8259 number text.
    public let text: String

    init(validatedText: String) { text = validatedText }

    /// Accepts only text the JSON number grammar allows (no leading `+`, no leading zeros, ...).
    public init?(text: String) {
        var copy = text
        let valid = copy.withUTF8 { bytes -> Bool in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return false }
            let first = base[0]
            guard first == UInt8(ascii: "-") || JSONNumberGrammar.isDigit(first) else { return false }
            let scan = JSONNumberGrammar.scan(base, from: 0, limit: bytes.count)
            return scan.problem == nil && scan.end == bytes.count
        }
        guard valid else { return nil }
        self.text = text
    }

    public init(_ value: Int) { text = String(value) }
    public init(_ value: Int64) { text = String(value) }
    public init(_ value: UInt64) { text = String(value) }

    /// The shortest text that reads back as exactly `value` (Swift's own algorithm), with the
    /// exponent tidied to JSON's usual form (`1e-5`, not `1e-05`; `1e20`, not `1e+20`).
    /// JSON has no NaN or infinity; passing one is a programming error.
    public init(_ value: Double) {
        precondition(value.isFinite, "JSON numbers must be finite")
        var s = value.description
        if let e = s.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            let mantissa = s[..<e]
            var exponent = s[s.index(after: e)...]
            var negative = false
            if exponent.first == "+" { exponent = exponent.dropFirst() }
            else if exponent.first == "-" { negative = true; exponent = exponent.dropFirst() }
            while exponent.count > 1 && exponent.first == "0" { exponent = exponent.dropFirst() }
            s = String(mantissa) + "e" + (negative ? "-" : "") + String(exponent)
        }
        text = s
    }

    /// Builds a number from a Double if it is finite.
    public static func finite(_ value: Double) -> JSONNumber? { value.isFinite ? JSONNumber(value) : nil }

    public var description: String { text }

    /// No fraction and no exponent in the text.
    public var isInteger: Bool { !text.utf8.contains { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") } }

    /// The nearest Double, nil if out of Double's range.
    public var double: Double? { JSONNumber.double(fromValidText: text) }

    /// The exact value if the text is an integer that fits; never rounds.
    public var int64: Int64? { isInteger ? Int64(text) : nil }

    static func double(fromValidText text: String) -> Double? {
        guard let d = Double(text), d.isFinite else { return nil }
        return d
    }

    /// The Double of valid JSON number text without an exponent and with at most 15 digits
    /// (weights such as `0.34`, counts), computed without building a String: the digits as an
    /// integer and the power of ten are both exact doubles, so one IEEE division gives the
    /// correctly rounded result, the same bits as `Double(text)` (Clinger's fast path). nil for
    /// anything else (the caller falls back to the full conversion).
    static func exactDouble(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        var digits: UInt64 = 0
        var digitCount = 0
        var fractionDigits = 0
        var inFraction = false
        var negative = false
        for (position, byte) in text.enumerated() {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                digits = digits &* 10 &+ UInt64(byte &- 48)
                digitCount += 1
                if inFraction { fractionDigits += 1 }
                if digitCount > 15 { return nil }
            case UInt8(ascii: "."):
                inFraction = true
            case UInt8(ascii: "-") where position == 0:
                negative = true
            default:
                return nil  // an exponent
            }
        }
        guard digitCount > 0 else { return nil }
        // 10^k for k <= 15 is below 2^53: every product here is exact.
        var power = 1.0
        for _ in 0..<fractionDigits { power *= 10 }
        let value = Double(digits) / power
        // -0 stays -0, as Double("-0.0") gives.
        return negative ? -value : value
    }
}
