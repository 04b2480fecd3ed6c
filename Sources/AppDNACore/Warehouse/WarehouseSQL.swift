/// The few spellings that differ between the engines, in one place: literals, the hash, text
/// case, number parsing, regular expressions, NULL of type text.
struct WarehouseSQL {
    let dialect: SQLDialect

    func literal(_ text: String) -> String { SQLQuoting.literal(text, in: dialect) }

    func hash(of text: String) -> String { SQLMurmurHash(dialect: dialect).hash(of: text) }

    var nullString: String {
        switch dialect {
        case .clickhouse: return "CAST(NULL AS Nullable(String))"
        case .spark: return "CAST(NULL AS STRING)"
        case .duckdb: return "CAST(NULL AS VARCHAR)"
        }
    }

    /// Every derived table needs a name in some engines.
    var alias: String { "appdna_rows" }

    func lowercased(_ text: String) -> String { dialect == .clickhouse ? "lowerUTF8(\(text))" : "lower(\(text))" }

    func uppercased(_ text: String) -> String { dialect == .clickhouse ? "upperUTF8(\(text))" : "upper(\(text))" }

    /// The number in `text`, NULL when it is not one.
    func double(_ text: String) -> String {
        switch dialect {
        case .clickhouse: return "toFloat64OrNull(\(text))"
        case .spark: return "try_cast(\(text) AS DOUBLE)"
        case .duckdb: return "TRY_CAST(\(text) AS DOUBLE)"
        }
    }

    func bigint(_ text: String) -> String {
        dialect == .clickhouse ? "toInt64(\(text))" : "CAST(\(text) AS BIGINT)"
    }

    /// Whether all of `text` matches `pattern` (RE2 / Java syntax common to both).
    func fullMatch(_ text: String, _ pattern: String) -> String {
        switch dialect {
        case .clickhouse: return "match(\(text), \(literal("^(" + pattern + ")$")))"
        case .spark: return "(\(text) RLIKE \(literal("^(" + pattern + ")$")))"
        case .duckdb: return "regexp_full_match(\(text), \(literal(pattern)))"
        }
    }

    /// The `index`th (0-based) dot-separated part of `text`, '' past the end.
    func dotPart(_ text: String, _ index: Int) -> String {
        switch dialect {
        case .clickhouse: return "splitByChar('.', \(text))[\(index + 1)]"
        case .spark, .duckdb: return "split_part(\(text), '.', \(index + 1))"
        }
    }

    /// `value IN (…)`, FALSE for an empty list.
    func isIn(_ value: String, _ options: [String]) -> String {
        options.isEmpty ? "FALSE" : "(\(value) IN (\(options.map(literal).joined(separator: ", "))))"
    }
}
