/// Deterministic serialisation: the same value always gives the same bytes (for signatures,
/// diffs and golden files). Strings are raw UTF-8 except `"`, `\` and control characters;
/// `/` is not escaped. DEL, the C1 controls, the bidi controls and the line and paragraph
/// separators are written `\u007f`, `\u009b`, `\u202e`, `\u2028` (the same string to any JSON
/// reader), so JSON output printed into a terminal or a CI log holds nothing that acts there
/// (`VisibleText` names the same characters for text); `escapesInvisible: false` writes them
/// raw, as other languages' serialisers do (`JSONReserialisation` mimics those).
public struct JSONWriter: Sendable {
    /// nil writes compact JSON; N writes one member per line indented by N spaces per level,
    /// with `": "` after keys. No final newline: the caller decides.
    public var indent: Int?
    /// Orders object members by the UTF-8 bytes of their keys instead of keeping their order.
    public var sortKeys: Bool
    /// Writes DEL, C1, bidi controls and U+2028/U+2029 as `\u` escapes (the default).
    public var escapesInvisible: Bool

    public init(indent: Int? = nil, sortKeys: Bool = false, escapesInvisible: Bool = true) {
        self.indent = indent
        self.sortKeys = sortKeys
        self.escapesInvisible = escapesInvisible
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
        case let .string(s): JSONWriter.appendQuoted(s, invisible: escapesInvisible, to: &out)
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
                JSONWriter.appendQuoted(member.key, invisible: escapesInvisible, to: &out)
                out.append(UInt8(ascii: ":"))
                if indent != nil { out.append(0x20) }
                write(member.value, depth: depth + 1, to: &out)
            }
            if !members.isEmpty { newline(depth: depth, to: &out) }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// JSON text (as stored elsewhere, copied as it is) with DEL, C1, bidi controls and the line
    /// and paragraph separators written as `\u` escapes, as `appendQuoted` writes them: the same
    /// JSON to any reader (these characters can only stand inside strings), safe to print.
    public static func escapingInvisible(_ json: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(json.count)
        json.withUnsafeBytes { bytes in
            var i = 0
            while i < bytes.count {
                let byte = bytes[i]
                if byte == 0x7F || VisibleText.mayStartEscape[Int(byte)] {
                    let (scalar, length) = VisibleText.decode(bytes, at: i)
                    if scalar == 0x7F || (VisibleText.mustEscape(scalar) && !(0xFDD0...0xFDEF).contains(scalar)) {
                        appendUnicodeEscape(scalar, to: &out)
                        i += length
                        continue
                    }
                }
                out.append(byte)
                i += 1
            }
        }
        return out
    }

    /// `\u` and four lower-case hex digits.
    static func appendUnicodeEscape(_ scalar: UInt32, to out: inout [UInt8]) {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u")])
        for shift in stride(from: 12, through: 0, by: -4) { out.append(hex[Int((scalar >> UInt32(shift)) & 15)]) }
    }

    /// Appends `s` as a JSON string literal; `invisible`: DEL, C1, bidi controls and the line
    /// and paragraph separators as `\u` escapes too.
    static func appendQuoted(_ s: String, invisible: Bool = true, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { raw in
            if raw.contains(where: needsLook) {
                appendEscaped(UnsafeRawBufferPointer(raw), invisible: invisible) { out.append($0) }
            } else {
                out.append(contentsOf: raw)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends the UTF-8 text `bytes` as a JSON string literal, as `appendQuoted(_:to:)` does
    /// for a String (the batch writes millions of rows this way, with no String made).
    public static func appendQuoted(_ bytes: UnsafeRawBufferPointer, to out: inout RawByteBuffer) {
        out.reserve(6 * bytes.count + 2)  // the longest escape, \u007f, is six bytes for one
        out.uncheckedByte(UInt8(ascii: "\""))
        if let start = bytes.baseAddress {
            if bytes.contains(where: needsLook) {
                appendEscaped(bytes, invisible: true) { out.uncheckedByte($0) }
            } else {
                out.uncheckedCopy(start, bytes.count)
            }
        }
        out.uncheckedByte(UInt8(ascii: "\""))
    }

    /// Whether a byte of a string's UTF-8 may be written escaped: quote, backslash, control
    /// characters, DEL, and the lead bytes of the invisible characters (`VisibleText`).
    @inline(__always)
    static func needsLook(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F || VisibleText.mayStartEscape[Int(byte)]
    }

    /// A string's UTF-8 as it goes between the quotes; `invisible`: DEL, C1, bidi controls and
    /// U+2028/U+2029 as `\u` escapes.
    @inline(__always)
    private static func appendEscaped(_ bytes: UnsafeRawBufferPointer, invisible: Bool, _ put: (UInt8) -> Void) {
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if invisible && (byte == 0x7F || VisibleText.mayStartEscape[Int(byte)]) {
                let (scalar, length) = VisibleText.decode(bytes, at: i)
                if scalar == 0x7F || (VisibleText.mustEscape(scalar) && !(0xFDD0...0xFDEF).contains(scalar)) {
                    var escape: [UInt8] = []
                    appendUnicodeEscape(scalar, to: &escape)
                    escape.forEach(put)
                    i += length
                    continue
                }
            }
            appendEscaped(byte, put)
            i += 1
        }
    }

    /// One byte of a string's UTF-8 as it goes between the quotes (at most six bytes).
    @inline(__always)
    private static func appendEscaped(_ byte: UInt8, _ put: (UInt8) -> Void) {
        guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { return put(byte) }
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
