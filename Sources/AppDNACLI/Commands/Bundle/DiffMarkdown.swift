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
            case .add: return "+ \(change.path)  \(BundleDiffCommand.render(change.new))"
            case .remove: return "- \(change.path)  \(BundleDiffCommand.render(change.old))"
            case .replace: return "~ \(change.path)  \(BundleDiffCommand.render(change.old)) → \(BundleDiffCommand.render(change.new))"
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

    /// Text on one Markdown line: HTML-significant characters escaped, line breaks as spaces.
    static func inline(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "&": result += "&amp;"
            case "\n", "\r": result += " "
            default: result.append(character)
            }
        }
        return result
    }

    /// `text` as a code span that shows it exactly: fenced by one more backtick than its
    /// longest run of backticks (CommonMark), padded when it starts or ends with one, and with
    /// line breaks and other controls written as escapes (a raw newline would end the table
    /// row or the line).
    static func code(_ text: String) -> String {
        var visible = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 10: visible += "\\n"
            case 13: visible += "\\r"
            case 9: visible += "\\t"
            case 0..<0x20, 0x7F: visible += String(format2: scalar.value)
            default: visible.unicodeScalars.append(scalar)
            }
        }
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

extension String {
    /// `\x1B`-style text for a control character.
    init(format2 value: UInt32) {
        let digits = Array("0123456789ABCDEF")
        self = "\\x" + String(digits[Int(value >> 4)]) + String(digits[Int(value & 15)])
    }
}
