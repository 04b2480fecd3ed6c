/// The few spellings that differ between the engines, in one place: literals, the hash, text
/// case, number parsing, regular expressions, NULL of type text.
struct WarehouseSQL {
    let dialect: SQLDialect

    func literal(_ text: String) -> String { SQLQuoting.literal(text, in: dialect) }

    func hash(of text: String) -> String { SQLMurmurHash(dialect: dialect).hash(of: text) }

    /// The SDK bucket (0–9999) of the user id `user` (an SQL expression): the hash of
    /// `"<experiment>.<salt>.<user><suffix>"`, with `salt` as given (callers apply the blank-salt
    /// fallback, or not, as the device they mirror does). The fixed parts are literals.
    func sdkBucket(experiment: String, salt: String, user: String, suffix: String = "") -> String {
        let text = "\(literal(experiment + "." + salt + ".")) || \(user)" + (suffix.isEmpty ? "" : " || \(literal(suffix))")
        return "(\(hash(of: "(" + text + ")")) % \(BucketingScheme.sdk.bucketCount))"
    }

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

    /// Any value as text (a bundle_version column may hold numbers or strings).
    func text(_ value: String) -> String {
        switch dialect {
        case .clickhouse: return "toString(\(value))"
        case .spark: return "CAST(\(value) AS STRING)"
        case .duckdb: return "CAST(\(value) AS VARCHAR)"
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

    /// `text` in Unicode normalisation form C. Spark has no SQL function for it; it calls ICU4J,
    /// which Spark bundles since 4.0 (for collations), through `reflect`.
    func nfc(_ text: String) -> String {
        switch dialect {
        case .clickhouse: return "normalizeUTF8NFC(\(text))"
        case .spark: return "reflect('com.ibm.icu.text.Normalizer', 'compose', \(text), false)"
        case .duckdb: return "nfc_normalize(\(text))"
        }
    }

    /// `text` without Unicode white space (the White_Space property, as Swift's
    /// `Unicode.Scalar.Properties.isWhitespace`) at either end.
    func trimmedWhitespace(_ text: String) -> String {
        let space = "[\\x{9}-\\x{D}\\x{20}\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}]+"
        let pattern = literal("^" + space + "|" + space + "$")
        switch dialect {
        case .clickhouse: return "replaceRegexpAll(\(text), \(pattern), '')"
        case .spark: return "regexp_replace(\(text), \(pattern), '')"
        case .duckdb: return "regexp_replace(\(text), \(pattern), '', 'g')"
        }
    }

    /// `value IN (…)`, FALSE for an empty list.
    func isIn(_ value: String, _ options: [String]) -> String {
        options.isEmpty ? "FALSE" : "(\(value) IN (\(options.map(literal).joined(separator: ", "))))"
    }
}
