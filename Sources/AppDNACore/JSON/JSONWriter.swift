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
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(UInt8(ascii: "\\")); out.append(byte)
            case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\")); out.append(byte)
            case 0x0A: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "t"))
            case 0x08: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "b"))
            case 0x0C: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "f"))
            case ..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                        hex[Int(byte >> 4)], hex[Int(byte & 15)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
