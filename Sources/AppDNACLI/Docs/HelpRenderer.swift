/// `--help` and `appdna help …`, generated from the command table.
public struct HelpRenderer {
    let table: CommandTable

    public init(table: CommandTable) {
        self.table = table
    }

    /// Help for a path: the tool (empty), a group (`bundle`), a command (`bundle fetch`) or a
    /// topic (`environment`).
    public func render(path: [String]) -> String {
        if let command = table.command(path) { return commandHelp(command) }
        if let topic = HelpTopic.named(path, in: table) { return topicHelp(topic) }
        if path.count == 1, table.group(path[0]) != nil { return groupHelp(path[0]) }
        return toolHelp()
    }

    public func usage(for command: CommandSpec) -> String {
        var parts = [table.programName] + command.path
        if !command.flags.filter({ !$0.hidden }).isEmpty { parts.append("[OPTIONS]") }
        parts += command.operands.map(\.usageText)
        return parts.joined(separator: " ")
    }

    func toolHelp() -> String {
        var lines = ["\(table.programName) \(table.version) - \(table.summary)", "",
                     "Usage: \(table.programName) [GLOBAL OPTIONS] COMMAND [ARGS...]", "", "Commands:"]
        lines += TextWrapping.table(table.topLevelWords.map { ($0.word, $0.summary) }
                                    + [("help", "Show help for a command (same as COMMAND --help) or a topic")])
        lines += ["", "Global options (before or after the command):"]
        lines += flagRows(table.globalFlags)
        lines += ["", "Durations and sizes (every flag that takes one):"]
        lines += TextWrapping.wrap(UnitText.note, indent: 2)
        lines += ["", "Help topics ('\(table.programName) help TOPIC'):"]
        lines += TextWrapping.table(HelpTopic.allCases.map { ($0.rawValue, $0.summary) })
        lines += ["", "Exit status (the same for every command):"]
        lines += TextWrapping.table(ExitStatus.allCases.map { (String($0.rawValue), $0.meaning) }, maxTermWidth: 4)
        lines += ["", "Run '\(table.programName) help COMMAND' for more about a command."]
        return lines.joined(separator: "\n") + "\n"
    }

    func topicHelp(_ topic: HelpTopic) -> String {
        var lines = ["\(table.programName) help \(topic.rawValue) - \(topic.title)", ""]
        switch topic {
        case .environment:
            lines += ["Environment:"]
            lines += TextWrapping.table(table.environment.map { ($0.name, $0.summary) })
            lines += ["", "Each command's help ('\(table.programName) help COMMAND') lists the variables that command reads."]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    func groupHelp(_ name: String) -> String {
        let group = table.group(name)!
        var lines = ["\(table.programName) \(name) - \(group.summary)", "",
                     "Usage: \(table.programName) \(name) COMMAND [ARGS...]", "", "Commands:"]
        lines += TextWrapping.table(table.commands(inGroup: name).map { ($0.path.last!, $0.summary) })
        lines += ["", "Run '\(table.programName) help \(name) COMMAND' for more about a command."]
        return lines.joined(separator: "\n") + "\n"
    }

    func commandHelp(_ command: CommandSpec) -> String {
        var lines = ["\(table.programName) \(command.name) - \(command.summary)", "", "Usage: \(usage(for: command))"]
        lines += command.alternativeUsages.map { "       \(table.programName) \(command.name) \($0)" }
        if !command.discussion.isEmpty {
            lines.append("")
            lines += TextWrapping.wrap(command.discussion, indent: 0)
        }
        if !command.operands.isEmpty {
            lines += ["", "Arguments:"]
            lines += TextWrapping.table(command.operands.map { ($0.usageText, $0.summary) })
        }
        let visible = command.flags.filter { !$0.hidden }
        if !visible.isEmpty {
            lines += ["", "Options:"]
            lines += flagRows(visible)
        }
        for reference in command.references {
            lines += ["", reference.title + ":"]
            lines += TextWrapping.table(reference.rows, maxTermWidth: 6)
        }
        let environment = table.environment(for: command)
        if !environment.isEmpty {
            lines += ["", "Environment:"]
            lines += TextWrapping.table(environment.map { ($0.name, $0.summary) })
        }
        lines += ["", "Global options: " + table.globalFlags.filter { !$0.hidden }.map { "--\($0.long)" }.joined(separator: ", ")
                  + " (see '\(table.programName) --help')."]
        if !command.examples.isEmpty {
            lines += ["", "Examples:"]
            for example in command.examples {
                lines.append("  " + example.command)
                lines += TextWrapping.wrap(example.explanation, indent: 6)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    func flagRows(_ flags: [FlagSpec]) -> [String] {
        TextWrapping.table(flags.filter { !$0.hidden }.map { flag in
            (flagTerm(flag), flagText(flag))
        })
    }

    func flagTerm(_ flag: FlagSpec) -> String {
        let short = flag.short.map { "-\($0), " } ?? "    "
        let value = flag.valueName.map { " " + $0 } ?? ""
        return short + "--" + flag.long + value
    }

    /// ` (0-100, default: 3)`, ` (1-64)`, ` (default: auto)` or nothing; the man page says the same.
    static func rangeAndDefault(_ flag: FlagSpec) -> String {
        let parts = [flag.range, flag.defaultValue.map { "default: \($0)" }].compactMap { $0 }
        return parts.isEmpty ? "" : " (" + parts.joined(separator: ", ") + ")"
    }

    func flagText(_ flag: FlagSpec) -> String {
        var text = flag.summary
        if let choices = flag.choices { text += " [\(choices.joined(separator: "|"))]" }
        text += Self.rangeAndDefault(flag)
        if flag.repeatable { text += " (repeatable)" }
        return text
    }
}
