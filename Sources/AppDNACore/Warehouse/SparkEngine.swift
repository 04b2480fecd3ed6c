/// Spark SQL (3.4 and later; the suite runs 4.x in local mode). Spark's own `hash()` is
/// MurmurHash3 with seed 42 and a different tail, so the hash is spelled out
/// (`SpelledMurmurHash3`) in column expressions Spark generates code for. Spark runs in ANSI
/// mode by default: integer overflow fails the query, so no product may reach 2^63.
public struct SparkEngine: SQLMurmurPrimitives {
    public init() {}

    public var name: String { "spark" }

    /// A backslash escapes inside single quotes (unless spark.sql.parser.escapedStringLiterals
    /// is on, which is not the default); a control, C1 or bidi character is `\uXXXX` (Spark
    /// has no `\x`; every such character is in the BMP).
    public func literal(_ text: String) -> String { SQLQuoting.backslashLiteral(text, escape: { "\\u" + QuotedLiteral.hex($0, digits: 4) }) }

    public var nullText: String { "CAST(NULL AS STRING)" }
    public func integer(_ value: String) -> String { "CAST(\(value) AS BIGINT)" }
    public func double(_ value: String) -> String { "CAST(\(value) AS DOUBLE)" }
    public func parsedDouble(_ text: String) -> String { "try_cast(\(text) AS DOUBLE)" }
    public func text(_ value: String) -> String { "CAST(\(value) AS STRING)" }
    public func boolean(_ condition: String) -> String { "CAST(\(condition) AS BOOLEAN)" }

    public func lowercased(_ text: String) -> String { "lower(\(text))" }
    // RLIKE is Java's regex and finds a match anywhere: anchored here.
    public func fullMatch(_ text: String, _ pattern: String) -> String { "(\(text) RLIKE \(literal("^(" + pattern + ")$")))" }
    public func removingMatches(_ text: String, _ pattern: String) -> String { "regexp_replace(\(text), \(literal(pattern)), '')" }
    public func regexScalar(_ value: UInt32) -> String { "\\x{\(String(value, radix: 16))}" }
    public func dotPart(_ text: String, _ index: Int) -> String { "split_part(\(text), '.', \(index + 1))" }
    /// Spark has no SQL function for it; it calls ICU4J, which Spark bundles since 4.0 (for
    /// collations), through `reflect`.
    public func nfc(_ text: String) -> String { "reflect('com.ibm.icu.text.Normalizer', 'compose', \(text), false)" }

    public func erfc(_ z: String) -> String { SQLMath.erfcFit(z) }

    public func murmurHash3(_ inputs: [HashedBytes], in rows: inout SQLRelation) -> [String] {
        SpelledMurmurHash3.hash(inputs, engine: self, in: &rows)
    }

    /// Spark keeps a derived table whose column is read more than once as its own projection
    /// (CollapseProject does not copy an expression that is not cheap), and generates code for
    /// the stack of them.
    public func layer(adding columns: [String], over relation: String, alias: String) -> String {
        "(SELECT *, \(columns.joined(separator: ", ")) FROM \(relation) AS \(alias))"
    }

    // MARK: The hash's primitives

    public func utf8Bytes(of text: String) -> String { "encode(\(text), 'UTF-8')" }
    public func bytesLiteral(_ bytes: [UInt8]) -> String { "X'" + bytes.map { QuotedLiteral.hex(UInt32($0), digits: 2) }.joined() + "'" }
    public func utf8Count(of text: String) -> String { "octet_length(\(text))" }
    public func concatenated(_ parts: [String]) -> String { "concat(\(parts.joined(separator: ", ")))" }
    /// `substr` of a BINARY is by byte offset (a STRING's walks the characters from the
    /// start), so each word is read in constant time: four bytes as hex, then as a number.
    public func words(ofPadded padded: String, count: String) -> String {
        mapped("sequence(0, \(count) div 4)", "appdna_i", "CAST(conv(hex(substr(\(padded), 4 * appdna_i + 1, 4)), 16, 10) AS BIGINT)")
    }

    /// Spark's array positions are INT; `words` gives a word past the whole blocks, always.
    public func element(_ list: String, _ index: String) -> String { "element_at(\(list), CAST(\(index) AS INT))" }
    public func prefix(_ list: String, _ count: String) -> String { "slice(\(list), 1, CAST(\(count) AS INT))" }
    public func dividedDown(_ a: String, _ b: Int) -> String { "(\(a) div \(b))" }
    public func mapped(_ list: String, _ element: String, _ body: String) -> String { "transform(\(list), \(element) -> \(body))" }
    public func folded(_ list: String, from initial: String, _ accumulator: String, _ element: String, _ body: String) -> String {
        "aggregate(\(list), CAST(\(initial) AS BIGINT), (\(accumulator), \(element)) -> \(body))"
    }
    /// In two halves (x × low 16 bits, x × high 16 bits), so no product reaches 2^49.
    public func multipliedMod32(_ x: String, _ c: UInt32) -> String {
        "(((\(x) * \(c & 0xffff)) + shiftleft((\(x) * \(c >> 16)) & 65535, 16)) & 4294967295)"
    }
    public func xor(_ a: String, _ b: String) -> String { "(\(a) ^ \(b))" }
    public func shiftedLeft(_ a: String, _ bits: Int) -> String { "shiftleft(\(a), \(bits))" }
    public func shiftedRight(_ a: String, _ bits: Int) -> String { "shiftright(\(a), \(bits))" }
}
