/// ClickHouse (and chDB, ClickHouse in-process). It has MurmurHash3_x86_32 built in
/// (`murmurHash3_32`: seed 0, over the string's bytes, unsigned), so its queries call it.
public struct ClickHouseEngine: SQLEngine {
    public init() {}

    public var name: String { "clickhouse" }

    /// A backslash escapes inside single quotes; a control, C1 or bidi character is `\xHH`
    /// per UTF-8 byte (ClickHouse has no `\u`; its strings are bytes).
    public func literal(_ text: String) -> String { SQLQuoting.backslashLiteral(text, escape: SQLQuoting.utf8ByteEscapes) }

    public var nullText: String { "CAST(NULL AS Nullable(String))" }
    public func integer(_ value: String) -> String { "toInt64(\(value))" }
    public func double(_ value: String) -> String { "toFloat64(\(value))" }
    public func parsedDouble(_ text: String) -> String { "toFloat64OrNull(\(text))" }
    public func parsedInteger(_ text: String) -> String { "toInt64OrNull(\(text))" }
    public func text(_ value: String) -> String { "toString(\(value))" }
    public func boolean(_ condition: String) -> String { "CAST(\(condition) AS Bool)" }

    public func lowercased(_ text: String) -> String { "lowerUTF8(\(text))" }
    // `match` is RE2 and finds a match anywhere: anchored here.
    public func fullMatch(_ text: String, _ pattern: String) -> String { "match(\(text), \(literal("^(" + pattern + ")$")))" }
    public func removingMatches(_ text: String, _ pattern: String) -> String { "replaceRegexpAll(\(text), \(literal(pattern)), '')" }
    public func regexScalar(_ value: UInt32) -> String { "\\x{\(String(value, radix: 16))}" }
    public func dotPart(_ text: String, _ index: Int) -> String { "splitByChar('.', \(text))[\(index + 1)]" }
    public func nfc(_ text: String) -> String { "normalizeUTF8NFC(\(text))" }
    public func isValidUTF8(_ text: String) -> String { "(isValidUTF8(\(text)) = 1)" }

    public func erfc(_ z: String) -> String { "erfc(\(z))" }

    public func murmurHash3(_ inputs: [HashedBytes], in rows: inout SQLRelation) -> [String] {
        rows.bind(inputs.map { input in
            var parts = [input.text]
            // Bundle text is UTF-8, so the fixed parts are string literals.
            if !input.prefix.isEmpty { parts.insert(literal(String(decoding: input.prefix, as: UTF8.self)), at: 0) }
            if !input.suffix.isEmpty { parts.append(literal(String(decoding: input.suffix, as: UTF8.self))) }
            return "toInt64(murmurHash3_32(\(parts.count == 1 ? parts[0] : "concat(" + parts.joined(separator: ", ") + ")")))"
        })
    }

    public func layer(adding columns: [String], over relation: String, alias: String) -> String {
        "(SELECT *, \(columns.joined(separator: ", ")) FROM \(relation) AS \(alias))"
    }
    /// ClickHouse evaluates a filter over the bound values as they are: no fence.
    public func fenced(_ relation: String, alias: String) -> String { relation }
}
