/// The fish completion script (`completions/appdna.fish`), generated from the table.
struct FishCompletion {
    let model: CompletionModel

    func render() -> String {
        let table = model.table
        let name = table.programName
        var out = model.generatedNotice(shell: .fish)
        out += "complete -c \(name) -f\n\n"
        for flag in CompletionModel.visible(table.globalFlags) {
            out += line(flag, condition: nil)
        }
        for path in [[]] + model.paths {
            let children = model.children(of: path)
            guard !children.isEmpty else { continue }
            let condition = path.isEmpty ? "__fish_use_subcommand" : groupCondition(path, children: children.map(\.word))
            for child in children {
                out += "complete -c \(name) -n '\(condition)' -a \(child.word) -d \(quote(child.summary))\n"
            }
        }
        // `appdna help …`: the words after help are a command path.
        let topWords = model.helpWords.map(\.word)
        for child in model.helpWords {
            out += "complete -c \(name) -n '__fish_seen_subcommand_from help; and not __fish_seen_subcommand_from \(topWords.joined(separator: " "))' -a \(child.word) -d \(quote(child.summary))\n"
        }
        for command in table.visibleCommands {
            let condition = command.path.map { "__fish_seen_subcommand_from \($0)" }.joined(separator: "; and ")
            for flag in CompletionModel.visible(command.flags) {
                out += line(flag, condition: condition)
            }
            for operand in command.operands {
                switch operand.completion {
                case .file, .directory:
                    out += "complete -c \(name) -n '\(condition)' -F\n"
                case .choices(let words):
                    out += "complete -c \(name) -n '\(condition)' -a \(quote(words.joined(separator: " "))) -d \(quote(operand.summary))\n"
                case .none:
                    break
                }
            }
        }
        return out
    }

    /// Inside `path` but before any of its subcommands.
    private func groupCondition(_ path: [String], children: [String]) -> String {
        let inside = path.map { "__fish_seen_subcommand_from \($0)" }.joined(separator: "; and ")
        return inside + "; and not __fish_seen_subcommand_from " + children.joined(separator: " ")
    }

    /// The flag with its description; its values (choices, directories) on a line of their own
    /// before it, without a description, since fish would repeat a line's -d beside every value.
    private func line(_ flag: FlagSpec, condition: String?) -> String {
        var head = ["complete -c \(model.table.programName)"]
        if let condition { head.append("-n '\(condition)'") }
        if let short = flag.short { head.append("-s \(short)") }
        head.append("-l \(flag.long)")
        var out = ""
        switch flag.completion {
        case .choices(let words):
            out += (head + ["-x -a \(quote(words.joined(separator: " ")))"]).joined(separator: " ") + "\n"
            head.append("-x")
        case .directory:
            out += (head + ["-x -a '(__fish_complete_directories)'"]).joined(separator: " ") + "\n"
            head.append("-x")
        case .file: head.append("-r -F")
        case .none: if flag.takesValue { head.append("-x") }
        }
        return out + (head + ["-d \(quote(flag.summary))"]).joined(separator: " ") + "\n"
    }

    private func quote(_ text: String) -> String {
        "'" + text.replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'"
    }
}
