/// Deterministic serialisation: the same value always gives the same bytes (for signatures,
/// diffs and golden files). Strings are raw UTF-8 except `"`, `\` and control characters;
/// `/` is not escaped.
public struct JSONWriter: Sendable {
    /// nil writes compact JSON; N writes one member per line indented by N spaces per level,
    /// with `": "` after keys. No final newline: the caller decides.
    public var indent: Int?
    /// Orders object members by the UTF-8 bytes of their keys instead of keeping their order.
    public var sortKeys: Bool

    public init(indent: Int? = nil, sortKeys: Bool = false) {
        self.indent = indent
        self.sortKeys = sortKeys
    }

    public func write(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        write(value, depth: 0, to: &out)
        return out
    }

    public func writeString(_ value: JSONValue) -> String {
        String(decoding: write(value), as: UTF8.self)
    }

    private func newline(depth: Int, to out: inout [UInt8]) {
        guard let indent else { return }
        out.append(0x0A)
        out.append(contentsOf: repeatElement(0x20, count: indent * depth))
    }

    private func write(_ value: JSONValue, depth: Int, to out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case let .bool(b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case let .number(n): out.append(contentsOf: n.text.utf8)
        case let .string(s): JSONWriter.appendQuoted(s, to: &out)
        case let .array(items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(depth: depth + 1, to: &out)
                write(item, depth: depth + 1, to: &out)
            }
            if !items.isEmpty { newline(depth: depth, to: &out) }
            out.append(UInt8(ascii: "]"))
        case let .object(object):
            out.append(UInt8(ascii: "{"))
            var members = object.members
            if sortKeys { members.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) } }
            for (i, member) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(depth: depth + 1, to: &out)
                JSONWriter.appendQuoted(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                if indent != nil { out.append(0x20) }
                write(member.value, depth: depth + 1, to: &out)
            }
            if !members.isEmpty { newline(depth: depth, to: &out) }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `s` as a JSON string literal.
    static func appendQuoted(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 { appendEscaped(byte) { out.append($0) } }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends the UTF-8 text `bytes` as a JSON string literal, as `appendQuoted(_:to:)` does
    /// for a String (the batch writes millions of rows this way, with no String made).
    public static func appendQuoted(_ bytes: UnsafeRawBufferPointer, to out: inout RawByteBuffer) {
        out.reserve(6 * bytes.count + 2)
        out.uncheckedByte(UInt8(ascii: "\""))
        if let start = bytes.baseAddress {
            if bytes.contains(where: needsEscape) {
                for byte in bytes { appendEscaped(byte) { out.uncheckedByte($0) } }
            } else {
                out.uncheckedCopy(start, bytes.count)
            }
        }
        out.uncheckedByte(UInt8(ascii: "\""))
    }

    /// Whether a byte of a string's UTF-8 is written escaped: quote, backslash, control characters.
    @inline(__always)
    static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// One byte of a string's UTF-8 as it goes between the quotes (at most six bytes).
    @inline(__always)
    private static func appendEscaped(_ byte: UInt8, _ put: (UInt8) -> Void) {
        guard needsEscape(byte) else { return put(byte) }
        put(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): put(byte)
        case 0x0A: put(UInt8(ascii: "n"))
        case 0x0D: put(UInt8(ascii: "r"))
        case 0x09: put(UInt8(ascii: "t"))
        case 0x08: put(UInt8(ascii: "b"))
        case 0x0C: put(UInt8(ascii: "f"))
        default:
            let hex: StaticString = "0123456789abcdef"
            put(UInt8(ascii: "u")); put(UInt8(ascii: "0")); put(UInt8(ascii: "0"))
            put(hex.utf8Start[Int(byte >> 4)]); put(hex.utf8Start[Int(byte & 15)])
        }
    }
}
