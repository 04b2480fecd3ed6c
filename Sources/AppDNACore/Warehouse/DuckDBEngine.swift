/// DuckDB. Its `hash()` is not MurmurHash3, so the hash is spelled out (`SpelledMurmurHash3`)
/// with DuckDB's list functions over the id's bytes. String literals are standard SQL.
public struct DuckDBEngine: SQLMurmurPrimitives {
    public init() {}

    public var name: String { "duckdb" }

    /// Standard SQL: a quote is doubled, a backslash is itself; a control, C1 or bidi
    /// character is concatenated as `chr(n)` (a standard literal has no escape for it).
    public func literal(_ text: String) -> String { SQLQuoting.standardLiteral(text) }

    public var nullText: String { "CAST(NULL AS VARCHAR)" }
    public func integer(_ value: String) -> String { "CAST(\(value) AS BIGINT)" }
    public func double(_ value: String) -> String { "CAST(\(value) AS DOUBLE)" }
    public func parsedDouble(_ text: String) -> String { "TRY_CAST(\(text) AS DOUBLE)" }
    public func parsedInteger(_ text: String) -> String { "TRY_CAST(\(text) AS BIGINT)" }
    /// A BLOB is refused with an error, not cast: DuckDB's VARCHAR holds only UTF-8, and the
    /// cast would write the bytes past ASCII as `\xHH` text, so an id would hash as other bytes
    /// without a word (`typeof` is the column's type, the same for every row).
    public func text(_ value: String) -> String {
        "CASE WHEN typeof(\(value)) = 'BLOB' THEN error('appdna: a BLOB column is read as text; DuckDB text is UTF-8 (VARCHAR): give the query a VARCHAR column') "
            + "ELSE CAST(\(value) AS VARCHAR) END"
    }
    public func boolean(_ condition: String) -> String { "CAST(\(condition) AS BOOLEAN)" }

    public func lowercased(_ text: String) -> String { "lower(\(text))" }
    public func fullMatch(_ text: String, _ pattern: String) -> String { "regexp_full_match(\(text), \(literal(pattern)))" }
    public func removingMatches(_ text: String, _ pattern: String) -> String { "regexp_replace(\(text), \(literal(pattern)), '', 'g')" }
    public func regexScalar(_ value: UInt32) -> String { "\\x{\(String(value, radix: 16))}" }
    public func dotPart(_ text: String, _ index: Int) -> String { "split_part(\(text), '.', \(index + 1))" }
    public func nfc(_ text: String) -> String { "nfc_normalize(\(text))" }
    /// DuckDB's VARCHAR holds only UTF-8 (a BLOB is refused by `text`).
    public func isValidUTF8(_ text: String) -> String { "TRUE" }

    public func erfc(_ z: String) -> String { SQLMath.erfcFit(z) }

    public func murmurHash3(_ inputs: [HashedBytes], in rows: inout SQLRelation) -> [String] {
        SpelledMurmurHash3.hash(inputs, engine: self, in: &rows)
    }

    /// DuckDB keeps each derived table as its own projection.
    public func layer(adding columns: [String], over relation: String, alias: String) -> String {
        "(SELECT *, \(columns.joined(separator: ", ")) FROM \(relation) AS \(alias))"
    }
    /// DuckDB evaluates a filter over the bound values as they are: no fence.
    public func fenced(_ relation: String, alias: String) -> String { relation }

    // MARK: The hash's primitives

    public func utf8Bytes(of text: String) -> String { "encode(\(text))" }
    public func bytesLiteral(_ bytes: [UInt8]) -> String { "'" + bytes.map { "\\x" + QuotedLiteral.hex(UInt32($0), digits: 2) }.joined() + "'::BLOB" }
    public func utf8Count(of text: String) -> String { "strlen(\(text))" }
    public func concatenated(_ parts: [String]) -> String { "(" + parts.joined(separator: " || ") + ")" }
    /// The hex form: DuckDB reads a word of it as `'0x' || digits` cast to UBIGINT.
    public func wordSource(ofPadded padded: String) -> String { "hex(\(padded))" }
    /// An id of up to 128 bytes: each word by `substr` of the hex form, in a lambda over the
    /// word positions (half the cost of a regular expression). Longer ids: a lambda copies what
    /// it captures for every element, which would make them quadratic, so the hex form is
    /// split into 8-digit words in one pass. Either way linear in the id's length.
    public func words(_ source: String, count: String) -> String {
        let short = mapped("range(0, \(count) // 4 + 1)", "appdna_i", hexWord("substr(\(source), 8 * appdna_i + 1, 8)"))
        let long = mapped("regexp_extract_all(\(source), '.{8}')", "appdna_w", hexWord("appdna_w"))
        return "CASE WHEN \(count) <= 128 THEN \(short) ELSE \(long) END"
    }
    private func hexWord(_ digits: String) -> String { "CAST(('0x' || \(digits)) AS UBIGINT)" }

    /// Past the end a DuckDB list gives NULL.
    public func element(_ list: String, _ index: String) -> String { "coalesce(\(list)[\(index)], 0)" }
    public func prefix(_ list: String, _ count: String) -> String { "\(list)[1:\(count)]" }
    public func dividedDown(_ a: String, _ b: Int) -> String { "(\(a) // \(b))" }
    public func mapped(_ list: String, _ element: String, _ body: String) -> String { "list_transform(\(list), lambda \(element): \(body))" }
    public func folded(_ list: String, from initial: String, _ accumulator: String, _ element: String, _ body: String) -> String {
        "list_reduce(\(list), lambda \(accumulator), \(element): \(body), CAST(\(initial) AS UBIGINT))"
    }
    /// Unsigned 64-bit: a 32 × 32-bit product fits, so one multiplication.
    public func multipliedMod32(_ x: String, _ c: UInt32) -> String { "((CAST(\(x) AS UBIGINT) * \(c)) & 4294967295)" }
    public func xor(_ a: String, _ b: String) -> String { "xor(\(a), \(b))" }
    public func shiftedLeft(_ a: String, _ bits: Int) -> String { "(\(a) << \(bits))" }
    public func shiftedRight(_ a: String, _ bits: Int) -> String { "(\(a) >> \(bits))" }
}
