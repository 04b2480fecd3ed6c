import AppDNACore

/// `bundle diff --format markdown`: a summary fit for a pull-request comment. First a table of
/// the experiments whose users switch variant, then the other notes, then the changes to the
/// JSON; long lists are collapsed in a `<details>` block.
enum DiffMarkdown {
    /// Lists longer than this are collapsed.
    static let collapseAfter = 10

    static func write(_ diff: BundleDiff, switching: [SwitchingShare], oldName: String, newName: String,
                      threshold: Double?, to out: OutputSink) {
        out.writeLine("### appdna bundle diff: \(code(oldName)) → \(code(newName))")
        out.writeLine()
        if diff.isEmpty {
            out.writeLine("No changes.")
            return
        }
        if switching.isEmpty {
            out.writeLine("No experiment moves users to another variant.")
        } else {
            out.writeLine("| experiment | status | users switching variant | how it is computed |" + (threshold == nil ? "" : " gate |"))
            out.writeLine("|---|---|--:|---|" + (threshold == nil ? "" : "---|"))
            for entry in switching {
                let how = entry.buckets.map { "exact: \($0) of 10000 buckets" } ?? "expected after a salt change"
                var row = "| \(cellCode(entry.experiment)) | \(cell(entry.status ?? "-")) | \(NumberText.roundedPercent(entry.share)) | \(how) |"
                if let threshold {
                    row += !entry.running ? " not running |" : entry.exceeds(percent: threshold) ? " **over \(NumberText.shortest(threshold))%** |" : " ok |"
                }
                out.writeLine(row)
            }
        }
        let switchingKinds: Set<BundleDiff.Note.Kind> = [.assignmentChanged, .saltChanged]
        let others = diff.notes.filter { !switchingKinds.contains($0.kind) }.map { "- " + inline($0.message) }
        section("Other changes", others, to: out)
        let changes = diff.changes.map { change -> String in
            switch change.kind {
            case .add: return "+ \(change.path)  \(DiffValueText.of(change.new))"
            case .remove: return "- \(change.path)  \(DiffValueText.of(change.old))"
            case .replace: return "~ \(change.path)  \(DiffValueText.of(change.old)) → \(DiffValueText.of(change.new))"
            case .move: return "> \(change.from!) → \(change.path)  (moved)"
            }
        }
        out.writeLine()
        out.writeLine("<details><summary>\(changes.count) change\(changes.count == 1 ? "" : "s") to the JSON</summary>")
        out.writeLine()
        out.writeLine("~~~diff")
        // Inside a ~~~ fence nothing is markup, and every line starts with its change marker,
        // so no id can close the fence.
        for line in changes { out.writeLine(line) }
        out.writeLine("~~~")
        out.writeLine()
        out.writeLine("</details>")
    }

    /// A heading and a bullet list, collapsed when long.
    static func section(_ title: String, _ lines: [String], to out: OutputSink) {
        guard !lines.isEmpty else { return }
        out.writeLine()
        if lines.count > collapseAfter {
            out.writeLine("<details><summary>\(title) (\(lines.count))</summary>")
            out.writeLine()
            for line in lines { out.writeLine(line) }
            out.writeLine()
            out.writeLine("</details>")
        } else {
            out.writeLine("**\(title)**")
            out.writeLine()
            for line in lines { out.writeLine(line) }
        }
    }

    /// Text inside a table cell: pipes escaped, no line breaks.
    static func cell(_ text: String) -> String {
        inline(text).split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\\|")
    }

    /// Text on one Markdown line: HTML-significant characters escaped (a line break in it is
    /// data, which the output sink writes `\n`, so it cannot end the line).
    static func inline(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "&": result += "&amp;"
            default: result.append(character)
            }
        }
        return result
    }

    /// `text` as a code span that shows it exactly: fenced by one more backtick than its
    /// longest run of backticks (CommonMark), padded when it starts or ends with one, and with
    /// line breaks and other controls written as escapes (`VisibleText`: a raw newline would
    /// end the table row or the line), so the fence is counted on what is shown.
    static func code(_ text: String) -> String {
        let visible = VisibleText.escaped(text)
        var longest = 0, run = 0
        for character in visible.utf8 {
            run = character == UInt8(ascii: "`") ? run + 1 : 0
            longest = max(longest, run)
        }
        let fence = String(repeating: "`", count: longest + 1)
        let pad = visible.hasPrefix("`") || visible.hasSuffix("`") || visible.isEmpty ? " " : ""
        return fence + pad + visible + pad + fence
    }

    /// A code span inside a table cell: GFM splits cells at `|` before it reads code spans, so
    /// pipes are escaped there too (the rendered code shows a plain `|`).
    static func cellCode(_ text: String) -> String {
        code(text).split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\\|")
    }
}
