extension JSONNumber {
    /// The value of valid JSON number text whose value is a whole number that fits an `Int64`,
    /// however it is written (`10582`, `10582.0`, `1.0582e4`); nil for a fraction or a value out
    /// of range. JSON Schema's `integer` is a value, not a spelling: an event's `ts_ms` of
    /// `10582.0` is the integer 10582 (what `api serve`'s OpenAPI description promises).
    public static func integralInt64(_ text: String) -> Int64? {
        var bytes = Array(text.utf8)[...]
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { bytes = bytes.dropFirst() }
        var exponent = 0
        if let e = bytes.firstIndex(where: { $0 | 0x20 == UInt8(ascii: "e") }) {
            // Bounded: 40 places move any Int64 past its range or below one; more is never whole.
            guard let value = Int(String(decoding: bytes[(e + 1)...], as: UTF8.self)), (-400...400).contains(value) else { return nil }
            exponent = value
            bytes = bytes[..<e]
        }
        let point = bytes.firstIndex(of: UInt8(ascii: ".")) ?? bytes.endIndex
        let digits = Array(bytes[..<point]) + Array(bytes[min(point + 1, bytes.endIndex)...])
        guard !digits.isEmpty, digits.allSatisfy({ (48...57).contains($0) }) else { return nil }
        if digits.allSatisfy({ $0 == UInt8(ascii: "0") }) { return 0 }
        let wholeCount = (point - bytes.startIndex) + exponent
        guard wholeCount >= 0, wholeCount <= 40 else { return nil }
        var whole = Array(digits.prefix(wholeCount))
        if wholeCount > digits.count { whole += [UInt8](repeating: UInt8(ascii: "0"), count: wholeCount - digits.count) }
        guard digits.dropFirst(wholeCount).allSatisfy({ $0 == UInt8(ascii: "0") }) else { return nil }
        return Int64((negative ? "-" : "") + String(decoding: whole, as: UTF8.self))
    }
}
