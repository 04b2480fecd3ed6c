/// The `json-reserialised` diagnosis: the receiver (or a proxy, or a framework's body parser)
/// parsed the JSON body and wrote it out again, so the bytes differ from what was signed even
/// though the JSON means the same. The candidate parses the body with the JSON core and tries
/// the layouts common serialisers produce; every one is checked by recomputing the HMAC.
public enum JSONReserialisation {
    /// Parsing builds a tree; past this size the candidate is skipped (with a note).
    public static let maxBodyBytes = 8 << 20

    /// One way of writing JSON.
    public struct Layout: Sendable, Equatable {
        /// Between members and elements when not indenting: "," or ", ".
        public var itemSeparator: String
        /// Between a key and its value: ":" or ": ".
        public var keySeparator: String
        /// Spaces per level, one member per line; nil for a single line.
        public var indent: Int?
        public var sortKeys: Bool
        /// Non-ASCII characters written as `\uXXXX` (surrogate pairs above U+FFFF), as Python's
        /// `json.dumps` does by default (`ensure_ascii=True`).
        public var escapeNonASCII: Bool
        /// A final LF after the document (`jq .`, `json.dump` followed by a newline, editors).
        public var trailingNewline: Bool

        public init(itemSeparator: String = ",", keySeparator: String = ":", indent: Int? = nil,
                    sortKeys: Bool = false, escapeNonASCII: Bool = false, trailingNewline: Bool = false) {
            self.itemSeparator = itemSeparator
            self.keySeparator = keySeparator
            self.indent = indent
            self.sortKeys = sortKeys
            self.escapeNonASCII = escapeNonASCII
            self.trailingNewline = trailingNewline
        }

        /// How a person would name this layout in a sentence.
        public var description: String {
            var text: String
            if let indent {
                text = "pretty-printed with \(indent)-space indentation"
            } else if itemSeparator == ", " && keySeparator == ": " {
                text = "Python json.dumps default form (', ' and ': ' separators)"
            } else if itemSeparator == "," && keySeparator == ":" {
                text = "compact (minified)"
            } else {
                text = "with separators '\(itemSeparator)' and '\(keySeparator)'"
            }
            var extras: [String] = []
            if sortKeys { extras.append("sorted keys") }
            if escapeNonASCII { extras.append("non-ASCII characters as \\u escapes") }
            if trailingNewline { extras.append("a trailing newline") }
            if !extras.isEmpty { text += " with " + extras.joined(separator: ", ") }
            return text
        }
    }

    /// The layouts tried, most common first: compact (JavaScript `JSON.stringify`, most
    /// frameworks), Python's default, 2- and 4-space pretty printing; each with and without
    /// sorted keys, `\u` escapes and a trailing newline.
    public static let layouts: [Layout] = {
        let bases = [
            Layout(),
            Layout(itemSeparator: ", ", keySeparator: ": "),
            Layout(keySeparator: ": ", indent: 2),
            Layout(keySeparator: ": ", indent: 4),
        ]
        var result: [Layout] = []
        for trailingNewline in [false, true] {
            for escapeNonASCII in [false, true] {
                for sortKeys in [false, true] {
                    for var layout in bases {
                        layout.sortKeys = sortKeys
                        layout.escapeNonASCII = escapeNonASCII
                        layout.trailingNewline = trailingNewline
                        result.append(layout)
                    }
                }
            }
        }
        return result
    }()

    /// Writes `value` in `layout`. Strings are escaped like `JSONWriter` (and like Python and
    /// JavaScript): `"`, `\`, the short escapes for control characters, `\u00XX` for the rest.
    public static func write(_ value: JSONValue, layout: Layout) -> [UInt8] {
        // The JSON core's writer already produces the layouts that need no extra options.
        if !layout.escapeNonASCII,
           (layout.indent == nil && layout.itemSeparator == "," && layout.keySeparator == ":")
            || (layout.indent != nil && layout.keySeparator == ": ") {
            var bytes = JSONWriter(indent: layout.indent, sortKeys: layout.sortKeys, escapesInvisible: false).write(value)
            if layout.trailingNewline { bytes.append(0x0a) }
            return bytes
        }
        var out: [UInt8] = []
        write(value, layout: layout, depth: 0, to: &out)
        if layout.trailingNewline { out.append(0x0a) }
        return out
    }

    private static func write(_ value: JSONValue, layout: Layout, depth: Int, to out: inout [UInt8]) {
        func newline(_ depth: Int) {
            guard let indent = layout.indent else { return }
            out.append(0x0a)
            out.append(contentsOf: repeatElement(0x20, count: indent * depth))
        }
        // With an indent, items end their line, so the separator is just the comma.
        let itemSeparator = layout.indent == nil ? Array(layout.itemSeparator.utf8) : [UInt8(ascii: ",")]
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let number): out.append(contentsOf: number.text.utf8)
        case .string(let text): appendQuoted(text, escapeNonASCII: layout.escapeNonASCII, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(contentsOf: itemSeparator) }
                newline(depth + 1)
                write(item, layout: layout, depth: depth + 1, to: &out)
            }
            if !items.isEmpty { newline(depth) }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            var members = object.members
            if layout.sortKeys { members.sort { $0.key.unicodeScalars.lexicographicallyPrecedes($1.key.unicodeScalars) } }
            for (index, member) in members.enumerated() {
                if index > 0 { out.append(contentsOf: itemSeparator) }
                newline(depth + 1)
                appendQuoted(member.key, escapeNonASCII: layout.escapeNonASCII, to: &out)
                out.append(contentsOf: layout.keySeparator.utf8)
                write(member.value, layout: layout, depth: depth + 1, to: &out)
            }
            if !members.isEmpty { newline(depth) }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    private static func appendUnicodeEscape(_ unit: UInt16, to out: inout [UInt8]) {
        out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"),
                                hexDigits[Int(unit >> 12)], hexDigits[Int(unit >> 8 & 15)],
                                hexDigits[Int(unit >> 4 & 15)], hexDigits[Int(unit & 15)]])
    }

    static func appendQuoted(_ text: String, escapeNonASCII: Bool, to out: inout [UInt8]) {
        guard escapeNonASCII else {
            JSONWriter.appendQuoted(text, invisible: false, to: &out)
            return
        }
        out.append(UInt8(ascii: "\""))
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x22: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case 0x5c: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0a: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0d: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x08: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0c: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x20..<0x7f: out.append(UInt8(scalar.value))
            default:
                // Control characters, DEL and everything beyond ASCII, as UTF-16 code units.
                for unit in String(scalar).utf16 { appendUnicodeEscape(unit, to: &out) }
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// The distinct re-serialisations of `body` that differ from it, with their layouts; empty
    /// when the body is not JSON. Re-serialisations that are only a byte-level edit of the body
    /// (a trailing newline, CRLF/LF, a BOM) are left out: the other candidates name those more
    /// precisely, and one mistake should give one diagnosis.
    public static func variants(of body: [UInt8]) -> [(layout: Layout, bytes: [UInt8])] {
        guard let value = try? JSONValue(parsing: body) else { return [] }
        let byteLevelEdits: [([UInt8]) -> [UInt8]?] = [
            BodyTransformations.removingTrailingLF, BodyTransformations.removingTrailingCRLF,
            BodyTransformations.appendingLF, BodyTransformations.appendingCRLF,
            BodyTransformations.lfToCRLF, BodyTransformations.crlfToLF,
            BodyTransformations.removingBOM, BodyTransformations.addingBOM,
        ]
        var seen: [[UInt8]] = [body] + byteLevelEdits.compactMap { $0(body) }
        var result: [(layout: Layout, bytes: [UInt8])] = []
        for layout in layouts {
            let bytes = write(value, layout: layout)
            if seen.contains(bytes) { continue }
            seen.append(bytes)
            result.append((layout, bytes))
        }
        return result
    }

    public static let candidate = MismatchCandidate(
        id: "json-reserialised",
        sentence: "The body is JSON that was re-serialised after signing; the sender signed the same JSON written differently.",
        rewritesBody: true, maxBodyBytes: maxBodyBytes,
        findings: { context in
            guard case .sha256 = context.provided else { return [] }
            var findings: [MismatchFinding] = []
            var found: Set<Int> = []
            for variant in variants(of: context.body) {
                for index in context.secretsSigning(variant.bytes).compactMap({ $0 }) where !found.contains(index) {
                    found.insert(index)
                    findings.append(MismatchFinding(
                        secretIndex: index,
                        sentence: "The body is JSON that was re-serialised after signing: the sender signed the same JSON written \(variant.layout.description); verify the raw bytes as received, before any parsing."))
                }
            }
            return findings.sorted { ($0.secretIndex ?? -1) < ($1.secretIndex ?? -1) }
        })
}
