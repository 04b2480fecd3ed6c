/// `-h`: the short help, as git and ripgrep give it, from the same command table as `--help`:
/// the usage, one paragraph, every option on one line and the examples' commands, in at most
/// `maxLines` lines. `--help` (and `appdna help …`) stays the full text: every option's
/// details, the environment, the exit statuses.
extension HelpRenderer {
    /// The longest short help, in lines.
    static let briefMaxLines = 40

    /// Short help for a path: a command's, the tool's (its commands), or a group's (already
    /// short: the same as `--help`).
    public func renderBrief(path: [String]) -> String {
        if let command = table.command(path) { return briefCommandHelp(command) }
        if HelpTopic.named(path, in: table) != nil || !path.isEmpty { return render(path: path) }
        return briefToolHelp()
    }

    func briefToolHelp() -> String {
        var lines = ["\(table.programName) \(table.version) - \(table.summary)", "",
                     "Usage: \(table.programName) [GLOBAL OPTIONS] COMMAND [ARGS...]", "", "Commands:"]
        lines += TextWrapping.table(table.topLevelWords.map { ($0.word, $0.summary) })
        lines.append("")
        lines += TextWrapping.wrap("'\(table.programName) COMMAND -h' for a command's short help; '\(table.programName) --help' for global options, help topics and exit statuses.", indent: 0)
        return lines.joined(separator: "\n") + "\n"
    }

    /// What goes in, in this order of need: the title and usage lines, every option, the first
    /// sentence of the discussion, one example; then the other examples and the rest of the
    /// discussion's first paragraph, as far as `briefMaxLines` allows.
    func briefCommandHelp(_ command: CommandSpec) -> String {
        var head = ["\(table.programName) \(command.name) - \(command.summary)", "", "Usage: \(usage(for: command))"]
        head += command.alternativeUsages.map { "       \(table.programName) \(command.name) \($0)" }
        let fullText = "'\(table.programName) \(command.name) --help'"
        var options: [String] = []
        let visible = command.flags.filter { !$0.hidden }
        if visible.isEmpty {
            options = ["", fullText + " for the full text."]
        } else {
            options = ["", "Options (each in full: \(fullText)):"] + oneLineRows(visible.map { (flagTerm($0), flagText($0)) })
        }
        let firstParagraph = command.discussion.split(separator: "\n").first.map(String.init) ?? ""
        let shortest = firstParagraph.isEmpty ? [] : [""] + Self.sentences(firstParagraph, fittingIn: 1)
        var examples: [String] = []
        if !command.examples.isEmpty {
            let room = Self.briefMaxLines - head.count - options.count - shortest.count - 2
            examples = ["", "Examples:"] + command.examples.prefix(max(1, room)).map { "  " + $0.command }
        }
        var paragraph: [String] = []
        if !firstParagraph.isEmpty {
            let room = Self.briefMaxLines - head.count - options.count - examples.count - 1
            paragraph = [""] + Self.sentences(firstParagraph, fittingIn: room)
        }
        return (head + paragraph + options + examples).joined(separator: "\n") + "\n"
    }

    /// The leading sentences of `text` that wrap into at most `lines` lines (the first sentence
    /// whatever its length).
    static func sentences(_ text: String, fittingIn lines: Int) -> [String] {
        let full = TextWrapping.wrap(text, indent: 0)
        guard full.count > lines else { return full }
        var best: [String]? = nil
        let characters = Array(text)
        for (index, character) in characters.enumerated() where character == "." && index + 1 < characters.count && characters[index + 1] == " " {
            let candidate = TextWrapping.wrap(String(characters[...index]), indent: 0)
            if best != nil && candidate.count > lines { break }
            best = candidate
            if candidate.count > lines { break }
        }
        return best ?? full
    }

    /// A two-column list with each row on one line: a description longer than the line is cut
    /// at a word and ends with "…" (the full text is one `--help` away).
    func oneLineRows(_ rows: [(term: String, text: String)], indent: Int = 2, maxTermWidth: Int = 28) -> [String] {
        let termWidth = min(maxTermWidth, rows.map(\.term.count).max() ?? 0)
        return rows.map { row in
            let lead = String(repeating: " ", count: indent) + row.term
            let start = max(indent + termWidth, lead.count) + 2
            var line = lead + String(repeating: " ", count: start - lead.count)
            let room = TextWrapping.width - start
            if row.text.count <= room {
                line += row.text
            } else {
                var cut = String(row.text.prefix(room - 1))
                if let space = cut.lastIndex(of: " ") { cut = String(cut[..<space]) }
                while cut.last == "," || cut.last == ";" || cut.last == "(" || cut.last == ":" { cut.removeLast() }
                line += cut + "…"
            }
            return line
        }
    }
}
