/// The three non-ASCII glyphs appdna's messages use (`→`, `×`, `…`), and their ASCII forms for
/// a locale that is not UTF-8 (`LC_ALL=C`), where they would show as mojibake: then all text
/// output, terminal or not, is ASCII — these glyphs in their ASCII forms, every other non-ASCII
/// character escaped (`VisibleText`). Machine formats (JSON, TSV, SQL …) stay UTF-8.
///
/// The sink cannot tell the tool's glyphs from the same three characters in data (messages are
/// worded with data in them), so a `→` inside an id reads `->` too; any other character of an
/// id is escaped, never transliterated.
public enum TerminalGlyphs {
    static let ascii: [(glyph: String, ascii: String)] = [("→", "->"), ("×", "x"), ("…", "...")]

    /// Whether the locale's character set is UTF-8: the first of LC_ALL, LC_CTYPE and LANG that
    /// is set decides, as in the C library. None set is taken as UTF-8 (what terminals and CI
    /// logs show today; `env -i` and minimal containers set nothing): only a locale that says
    /// otherwise (`C`, `POSIX`, `en_US.ISO-8859-1`) asks for ASCII.
    public static func localeIsUTF8(_ environment: [String: String]) -> Bool {
        guard let name = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap({ environment[$0] }).first(where: { !$0.isEmpty }) else { return true }
        let lower = name.lowercased()
        return lower.contains("utf-8") || lower.contains("utf8")
    }

    /// `text` with the glyphs in ASCII.
    public static func asASCII(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0 == "→" || $0 == "×" || $0 == "…" }) else { return text }
        var result = text
        for pair in ascii { result = result.replacing(pair.glyph, with: pair.ascii) }
        return result
    }
}
