/// Turning bundle values (experiment ids, salts, variant ids, targeting values) into SQL
/// literals, and checking that the table and column names users pass are plain identifiers.
///
/// Bundle values are data from a file the user may not control: a salt of
/// `'); DROP TABLE x; --` must become a literal whose bytes are exactly the salt's, never more
/// SQL. Every literal is built here, so there is one place to get it right per dialect.
public enum SQLQuoting {
    /// `text` as a string literal of `dialect` whose value has exactly the UTF-8 bytes of
    /// `text` (non-ASCII passes through as UTF-8; control characters are escaped so the query
    /// stays one readable line per value).
    public static func literal(_ text: String, in dialect: SQLDialect) -> String {
        switch dialect.literalEscaping {
        case .backslash: return backslashLiteral(text, unicodeEscape: dialect == .spark)
        case .standard: return standardLiteral(text)
        }
    }

    /// ClickHouse and Spark: `\\`, `\'` and, for control characters, `\xHH` (ClickHouse) or
    /// `\uXXXX` (Spark, which has no `\x`).
    private static func backslashLiteral(_ text: String, unicodeEscape: Bool) -> String {
        QuotedLiteral.quoted(text, quote: "'", escapes: ["\\": "\\\\", "'": "\\'"]) { value in
            unicodeEscape ? "\\u" + QuotedLiteral.hex(value, digits: 4) : "\\x" + QuotedLiteral.hex(value, digits: 2)
        }
    }

    /// DuckDB (standard SQL): a quote is doubled, a backslash is itself; a control character
    /// is concatenated as `chr(n)` because a standard literal has no escape for it.
    private static func standardLiteral(_ text: String) -> String {
        var parts: [String] = []
        var run = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7f {
                if !run.isEmpty { parts.append("'" + run + "'"); run = "" }
                parts.append("chr(\(scalar.value))")
            } else if scalar == "'" {
                run += "''"
            } else {
                run.unicodeScalars.append(scalar)
            }
        }
        if !run.isEmpty || parts.isEmpty { parts.append("'" + run + "'") }
        return parts.count == 1 ? parts[0] : "(" + parts.joined(separator: " || ") + ")"
    }

    /// Whether `name` is a plain identifier, optionally qualified (`db.table`): ASCII letters,
    /// digits and underscores, not starting with a digit. Names are not quoted (quoting rules
    /// for identifiers differ more between engines than for strings); anything else is refused.
    public static func isPlainIdentifier(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard !parts.isEmpty, parts.count <= 3 else { return false }
        return parts.allSatisfy { part in
            guard let first = part.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
            return part.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
            }
        }
    }

    /// `name` if it is a plain identifier, else a usage failure naming what it was for.
    public static func identifier(_ name: String, for role: String) throws -> String {
        guard isPlainIdentifier(name) else {
            throw Failure(.usage, "\(role) '\(name)' is not a plain SQL identifier (letters, digits, '_', optionally db.table)")
        }
        return name
    }
}
