/// The one reader of an HTTP field line (`Name: value`, RFC 9110 §5, RFC 9112 §5.1), and the
/// one judge of what a field may hold, for every message the tool reads or puts on the wire:
/// the requests the listener receives, request dumps (`webhook verify --request`), the
/// responses the client reads, and recorded deliveries before `trigger --replay` sends them.
public enum HeaderField {
    /// What is wrong with a field line.
    public enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
        /// The line has no colon.
        case noColon
        /// The name is empty or not a token (a space before the colon is one way).
        case badName(String)
        /// The value holds a byte no field value may hold (RFC 9110 §5.5): a control
        /// character other than a tab (NUL, CR and LF among them: they split requests), or DEL.
        case forbiddenValueByte(name: String, byte: UInt8)
        /// The line starts with whitespace: obsolete line folding (RFC 9112 §5.2).
        case folded

        public var description: String { describe(section: "header") }

        /// "the value of 'X-Note' holds a bare CR", for messages that add where.
        public func describe(section: String) -> String {
            switch self {
            case .noColon: return "a \(section) line has no colon"
            case .badName(let name): return "'\(HeaderText.excerpt(name))' is not a valid \(section) name"
            case .forbiddenValueByte(let name, let byte):
                return "the value of '\(HeaderText.excerpt(name))' holds \(HeaderField.describe(byte: byte))"
            case .folded: return "obsolete line folding: a \(section) line starts with whitespace"
            }
        }
    }

    /// Name and trimmed value of one field line (without its line ending). `strict`: the value's
    /// bytes are checked too, as a server must before it acts on or passes on a request; a
    /// capture or a response is read without that check. Folded lines are the caller's to
    /// join or refuse (`.folded`).
    public static func parse(_ line: ArraySlice<UInt8>, strict: Bool) -> Result<(name: String, value: String), Problem> {
        guard let first = line.first else { return .failure(.noColon) }
        if first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { return .failure(.folded) }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return .failure(.noColon) }
        let name = String(decoding: line[line.startIndex..<colon], as: UTF8.self)
        guard isValidName(line[line.startIndex..<colon]) else { return .failure(.badName(name)) }
        let rawValue = line[(colon + 1)...]
        if strict, let byte = firstForbiddenValueByte(in: rawValue) {
            return .failure(.forbiddenValueByte(name: name, byte: byte))
        }
        return .success((name, HeaderText.trimmed(String(decoding: rawValue, as: UTF8.self))))
    }

    /// Whether `name` and `value` can go on the wire as one field line that a strict reader
    /// reads back as exactly this field: the checks `parse(_:strict: true)` makes.
    public static func check(name: String, value: String) -> Problem? {
        guard isValidName(name.utf8) else { return .badName(name) }
        if let byte = firstForbiddenValueByte(in: value.utf8) { return .forbiddenValueByte(name: name, byte: byte) }
        return nil
    }

    /// A field name is a non-empty token (RFC 9110 §5.1).
    public static func isValidName<Bytes: Collection>(_ name: Bytes) -> Bool where Bytes.Element == UInt8 {
        !name.isEmpty && name.allSatisfy(HeaderText.isTokenByte)
    }

    /// The first byte of `value` that no field value may hold (RFC 9110 §5.5): control
    /// characters other than a tab, and DEL. Visible ASCII, space, tab and bytes of 0x80 and
    /// above (obs-text, UTF-8) are allowed.
    public static func firstForbiddenValueByte<Bytes: Collection>(in value: Bytes) -> UInt8? where Bytes.Element == UInt8 {
        value.first { ($0 < 0x20 && $0 != UInt8(ascii: "\t")) || $0 == 0x7F }
    }

    /// "NUL", "a bare CR", "LF", "the control character 0x1B".
    public static func describe(byte: UInt8) -> String {
        switch byte {
        case 0: return "NUL"
        case UInt8(ascii: "\r"): return "a bare CR"
        case UInt8(ascii: "\n"): return "LF"
        case UInt8(ascii: " "): return "a space"
        default:
            let hex = String(byte, radix: 16, uppercase: true)
            return "the control character 0x\(hex.count == 1 ? "0" : "")\(hex)"
        }
    }
}
