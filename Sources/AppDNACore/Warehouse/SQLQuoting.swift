/// Turning bundle values (experiment ids, salts, variant ids, targeting values) into SQL
/// literals, and checking that the table and column names users pass are plain identifiers.
///
/// Bundle values are data from a file the user may not control: a salt of
/// `'); DROP TABLE x; --` must become a literal whose bytes are exactly the salt's, never more
/// SQL. Every literal is built here, in one of the two ways engines read them.
public enum SQLQuoting {
    /// A literal where a backslash escapes (`\\`, `\'`), with `escape` spelling a character
    /// that must not appear raw (`mustEscape`: ClickHouse `\xHH` per UTF-8 byte, Spark
    /// `\uXXXX`). Other non-ASCII passes through as UTF-8.
    static func backslashLiteral(_ text: String, escape: (UInt32) -> String) -> String {
        QuotedLiteral.quoted(text, quote: "'", escapes: ["\\": "\\\\", "'": "\\'"], invisible: true, control: escape)
    }

    /// Standard SQL: a quote is doubled, a backslash is itself; a character that must not
    /// appear raw (`mustEscape`) is concatenated as `chr(n)` because a standard literal has no
    /// escape for it.
    static func standardLiteral(_ text: String) -> String {
        var parts: [String] = []
        var run = ""
        for scalar in text.unicodeScalars {
            if mustEscape(scalar.value) {
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

    /// Whether a character of a bundle value is escaped in a literal: the C0 controls and DEL
    /// (a line feed would split the query's lines) and what `VisibleText` escapes in text
    /// output — C1 controls such as U+009B (a terminal's CSI), bidi controls (U+202A–U+202E,
    /// U+2066–U+2069, which reorder what a reviewer sees), line separators. The query lands in
    /// CI logs and review diffs; escaped, it reads as it runs, with the same bytes.
    public static func mustEscape(_ scalar: UInt32) -> Bool {
        scalar < 0x20 || scalar == 0x7F || VisibleText.mustEscape(scalar)
    }

    /// `\xHH` for each UTF-8 byte of `scalar` (ClickHouse's escape: it reads bytes).
    static func utf8ByteEscapes(_ scalar: UInt32) -> String {
        guard let value = Unicode.Scalar(scalar) else { return "" }
        return String(value).utf8.map { "\\x" + QuotedLiteral.hex(UInt32($0), digits: 2) }.joined()
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
