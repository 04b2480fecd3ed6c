import AppDNACore

/// Hex as `bucket --explain` shows it: bytes spaced like a hex dump, a hash as 0x + 8 digits.
enum HexText {
    static func spaced(_ bytes: [UInt8]) -> String {
        bytes.map { Hex.encode([$0]) }.joined(separator: " ")
    }

    static func fixed32(_ value: UInt32) -> String {
        "0x" + Hex.encode(withUnsafeBytes(of: value.bigEndian, Array.init))
    }
}
