/// The one whitespace trimmer of HTTP header values, for every parser that reads them (request
/// dumps, the listener's requests, the client's responses, signature headers): HTTP's optional
/// whitespace (space, tab) plus line endings, which creep in when a value is pasted from a file
/// or terminal.
public enum HeaderText {
    public static func trimmed(_ text: String) -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r\n" || $0 == "\n" || $0 == "\r" }
        guard let first = text.firstIndex(where: { !isSpace($0) }),
              let last = text.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(text[first...last])
    }

    /// RFC 9110 token characters (header names, methods, transfer codings).
    public static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    /// At most 40 characters of a sender's bytes in a message, control characters shown as
    /// `?`, so that a binary file or a hostile request does not flood or drive the terminal.
    public static func excerpt(_ text: String) -> String {
        let cleaned = String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7f ? "?" : Character($0) })
        return cleaned.count <= 40 ? cleaned : String(cleaned.prefix(40)) + "…"
    }
}
