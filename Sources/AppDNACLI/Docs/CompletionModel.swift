/// What every shell's completion script needs from the table, computed once so the three
/// generators (bash, zsh, fish) agree on which words exist.
struct CompletionModel {
    let table: CommandTable

    /// Command paths that are groups (`["bundle"]`) or commands, excluding hidden ones.
    var paths: [[String]] {
        var result: [[String]] = []
        for command in table.visibleCommands {
            for length in 1...command.path.count {
                let prefix = Array(command.path.prefix(length))
                if !result.contains(prefix) { result.append(prefix) }
            }
        }
        return result
    }

    /// The words that may follow `path` (subcommands), with summaries.
    func children(of path: [String]) -> [(word: String, summary: String)] {
        if path.isEmpty { return table.topLevelWords + [("help", "Show help for a command")] }
        return table.visibleCommands
            .filter { $0.path.count == path.count + 1 && $0.path.starts(with: path) }
            .map { ($0.path.last!, $0.summary) }
    }

    /// Every spelling of a flag that takes a value, anywhere in the table: when completing, the
    /// word after one of these is a value, not a command word.
    var valueFlagSpellings: [String] {
        var spellings: [String] = []
        for flag in table.globalFlags + table.commands.flatMap(\.flags) where flag.takesValue {
            spellings.append("--" + flag.long)
            if let short = flag.short { spellings.append("-" + String(short)) }
        }
        return Array(Set(spellings)).sorted()
    }

    static func visible(_ flags: [FlagSpec]) -> [FlagSpec] {
        flags.filter { !$0.hidden }
    }
}
