/// Hex as `bucket --explain` shows it: bytes spaced like a hex dump, a hash as 0x + 8 digits.
enum HexText {
    private static let digits = Array("0123456789abcdef")

    static func spaced(_ bytes: [UInt8]) -> String {
        bytes.map { String([digits[Int($0 >> 4)], digits[Int($0 & 15)]]) }.joined(separator: " ")
    }

    static func fixed32(_ value: UInt32) -> String {
        "0x" + (0..<8).map { String(digits[Int((value >> (28 - 4 * UInt32($0))) & 15)]) }.joined()
    }
}
