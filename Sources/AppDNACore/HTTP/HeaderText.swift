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

    /// The first byte a field value must never hold (RFC 9110 §5.5: NUL, CR, LF), if any: a
    /// server that passes them on lets a sender smuggle a header or split a request.
    public static func forbiddenValueByte<Bytes: Collection>(in value: Bytes) -> UInt8? where Bytes.Element == UInt8 {
        value.first { $0 == 0 || $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") }
    }
}
