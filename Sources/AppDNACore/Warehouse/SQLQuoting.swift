/// Turning bundle values (experiment ids, salts, variant ids, targeting values) into SQL
/// literals, and checking that the table and column names users pass are plain identifiers.
///
/// Bundle values are data from a file the user may not control: a salt of
/// `'); DROP TABLE x; --` must become a literal whose bytes are exactly the salt's, never more
/// SQL. Every literal is built here, in one of the two ways engines read them.
public enum SQLQuoting {
    /// A literal where a backslash escapes (`\\`, `\'`), with `control` spelling a control
    /// character (ClickHouse `\xHH`, Spark `\uXXXX`). Non-ASCII passes through as UTF-8;
    /// control characters are escaped so the query stays one readable line per value.
    static func backslashLiteral(_ text: String, control: (UInt32) -> String) -> String {
        QuotedLiteral.quoted(text, quote: "'", escapes: ["\\": "\\\\", "'": "\\'"], control: control)
    }

    /// Standard SQL: a quote is doubled, a backslash is itself; a control character
    /// is concatenated as `chr(n)` because a standard literal has no escape for it.
    static func standardLiteral(_ text: String) -> String {
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

    /// The rule `isPlainIdentifier` checks, for messages.
    public static let plainIdentifierRule = "letters, digits, '_', optionally db.table"
}
