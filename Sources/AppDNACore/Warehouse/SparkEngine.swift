/// Spark SQL (3.4 and later; the suite runs 4.x in local mode). An id is hashed as the bytes
/// its STRING holds, UTF-8 or not (`bytes(of:)`). Spark's own `hash()` is
/// MurmurHash3 with seed 42 and a different tail: `SparkMurmurHash3` has it hash the id's
/// whole blocks from the right state and finishes the standard hash in column expressions
/// Spark generates code for. Spark runs in ANSI mode by default: integer overflow fails the
/// query, so no product may reach 2^63.
public struct SparkEngine: SQLEngine {
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
    public func parsedInteger(_ text: String) -> String { "try_cast(\(text) AS BIGINT)" }
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
    /// Spark 4.0 and later, as `nfc` (the audit's hypotheses need both).
    public func isValidUTF8(_ text: String) -> String { "is_valid_utf8(\(text))" }

    public func erfc(_ z: String) -> String { SQLMath.erfcFit(z) }

    public func murmurHash3(_ inputs: [HashedBytes], in rows: inout SQLRelation) -> [String] {
        SparkMurmurHash3.hash(inputs, engine: self, in: &rows)
    }

    /// Spark keeps a derived table whose column is read more than once as its own projection
    /// (CollapseProject does not copy an expression that is not cheap), and generates code for
    /// the stack of them.
    public func layer(adding columns: [String], over relation: String, alias: String) -> String {
        "(SELECT *, \(columns.joined(separator: ", ")) FROM \(relation) AS \(alias))"
    }

    /// Spark pushes a filter through a projection by copying the projection's expressions
    /// into it, except through a projection with a nondeterministic column: the fence is
    /// `spark_partition_id()` (cheap), read by a filter that always holds, so it is not pruned.
    public func fenced(_ relation: String, alias: String) -> String {
        "(SELECT * FROM (SELECT *, spark_partition_id() AS \(alias)_fence FROM \(relation) AS \(alias)_in) AS \(alias) WHERE \(alias)_fence >= 0)"
    }

    // MARK: Bytes, for the hash

    /// The bytes of the text expression `text`, as a BINARY: exactly the bytes the string
    /// holds, as ClickHouse's `murmurHash3_32` hashes them. A Spark STRING can hold bytes that are not
    /// UTF-8 (Parquet BINARY read as a string carries them, and so does a BINARY column cast
    /// to STRING); the cast keeps them, where `encode(text, 'UTF-8')` would go through a Java
    /// string and turn each invalid byte into U+FFFD (EF BF BD) while `octet_length` still
    /// counts the raw bytes.
    func bytes(of text: String) -> String { "CAST(\(text) AS BINARY)" }
    /// A BINARY literal of any bytes.
    func bytesLiteral(_ bytes: [UInt8]) -> String { "X'" + bytes.map { QuotedLiteral.hex(UInt32($0), digits: 2) }.joined() + "'" }
}
