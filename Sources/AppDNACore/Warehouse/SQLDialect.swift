/// The warehouse engines whose SQL the tool writes.
///
/// ClickHouse has MurmurHash3_x86_32 built in (`murmurHash3_32`: seed 0, over the string's
/// bytes, unsigned), so its queries call it. Spark and DuckDB have no usable built-in (Spark's
/// `hash()` uses seed 42 and a different tail), so their queries spell the hash out in plain SQL
/// over the UTF-8 bytes: nothing to deploy on the cluster.
public enum SQLDialect: String, Sendable, CaseIterable {
    case clickhouse
    case spark
    case duckdb

    /// How this engine reads a single-quoted string literal.
    var literalEscaping: SQLLiteralEscaping {
        switch self {
        // Both read a backslash as an escape inside single quotes (Spark unless
        // spark.sql.parser.escapedStringLiterals is on, which is not the default).
        case .clickhouse, .spark: return .backslash
        // Standard SQL: a backslash is an ordinary character, a quote is doubled.
        case .duckdb: return .standard
        }
    }
}

/// The two ways engines read backslashes in string literals.
enum SQLLiteralEscaping: Sendable {
    case backslash
    case standard
}
