/// The three non-ASCII glyphs appdna's messages use (`→`, `×`, `…`), and their ASCII forms for
/// a terminal whose locale is not UTF-8 (where they would show as mojibake). Only text written
/// to a terminal is changed: a pipe or a file gets the same bytes whatever the locale.
public enum TerminalGlyphs {
    static let ascii: [(glyph: String, ascii: String)] = [("→", "->"), ("×", "x"), ("…", "...")]

    /// Whether the locale's character set is UTF-8: the first of LC_ALL, LC_CTYPE and LANG that
    /// is set decides, as in the C library; none set is the C locale (ASCII).
    public static func localeIsUTF8(_ environment: [String: String]) -> Bool {
        let name = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? "C"
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
