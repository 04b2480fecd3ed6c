/// Word wrapping for help text. Help is wrapped at a fixed width, not the terminal's, so the
/// same command prints the same bytes everywhere (and golden tests stay meaningful).
enum TextWrapping {
    static let width = 80

    /// Wraps `text` to lines of at most `width` columns, each prefixed with `indent` spaces
    /// (the first line with `firstIndent` when given). Blank lines separate paragraphs.
    static func wrap(_ text: String, indent: Int, firstIndent: Int? = nil, width: Int = TextWrapping.width) -> [String] {
        var lines: [String] = []
        var first = true
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if paragraph.isEmpty {
                lines.append("")
                continue
            }
            var line = ""
            var lineIndent = first ? (firstIndent ?? indent) : indent
            for word in paragraph.split(separator: " ") {
                if !line.isEmpty && lineIndent + line.count + 1 + word.count > width {
                    lines.append(String(repeating: " ", count: lineIndent) + line)
                    line = ""
                    lineIndent = indent
                }
                line += line.isEmpty ? String(word) : " " + word
            }
            lines.append(String(repeating: " ", count: lineIndent) + line)
            first = false
        }
        return lines
    }

    /// A two-column list: terms on the left, descriptions wrapped beside them.
    static func table(_ rows: [(term: String, text: String)], indent: Int = 2, maxTermWidth: Int = 28) -> [String] {
        let termWidth = min(maxTermWidth, rows.map(\.term.count).max() ?? 0)
        let textColumn = indent + termWidth + 2
        var lines: [String] = []
        for row in rows {
            let lead = String(repeating: " ", count: indent) + row.term
            if row.term.count > termWidth {
                lines.append(lead)
                lines += wrap(row.text, indent: textColumn)
            } else {
                let padded = lead + String(repeating: " ", count: textColumn - lead.count)
                let wrapped = wrap(row.text, indent: textColumn)
                lines.append(padded + wrapped[0].dropFirst(textColumn))
                lines += wrapped.dropFirst()
            }
        }
        return lines
    }
}
