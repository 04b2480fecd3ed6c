/// The zsh completion function (`completions/_appdna`), generated from the table: one
/// function per group or command, each an `_arguments` call.
struct ZshCompletion {
    let model: CompletionModel

    func render() -> String {
        let table = model.table
        let name = table.programName
        var out = "#compdef \(name)\n" + model.generatedNotice(shell: .zsh) + "\n"
        out += "_\(name)_globals=(\n"
        for flag in CompletionModel.visible(table.globalFlags) {
            out += "  \(spec(flag))\n"
        }
        out += ")\n\n"
        out += groupFunction(path: [])
        out += helpFunction()
        for path in model.paths {
            if let command = table.command(path) {
                out += commandFunction(command)
            } else {
                out += groupFunction(path: path)
            }
        }
        out += "\nif [[ \"$funcstack[1]\" == \"_\(name)\" ]]; then\n  _\(name) \"$@\"\nelse\n  compdef _\(name) \(name)\nfi\n"
        return out
    }

    private func functionName(_ path: [String]) -> String {
        (["_" + model.table.programName] + path).joined(separator: "_").replacing("-", with: "_")
    }

    private func groupFunction(path: [String]) -> String {
        let name = functionName(path)
        var out = "\(name)() {\n  local curcontext=\"$curcontext\" state line\n  local -a subcommands\n  subcommands=(\n"
        for child in model.children(of: path) {
            out += "    '\(child.word):\(escape(child.summary))'\n"
        }
        out += "  )\n  _arguments -C \"${_\(model.table.programName)_globals[@]}\" '1: :->command' '*:: :->arguments'\n"
        out += "  case $state in\n    command) _describe -t commands 'command' subcommands ;;\n    arguments)\n      case $line[1] in\n"
        for child in model.children(of: path) {
            out += "        \(child.word)) \(functionName(path + [child.word])) ;;\n"
        }
        out += "      esac ;;\n  esac\n}\n\n"
        return out
    }

    /// `appdna help …`: the words after `help` are a command path (`help bundle validate`).
    private func helpFunction() -> String {
        let name = functionName(["help"])
        var out = "\(name)() {\n  local -a subcommands\n  case $CURRENT in\n"
        out += "    2) subcommands=(\(describe(model.helpWords))) ;;\n"
        out += "    3)\n      case $words[2] in\n"
        for path in model.paths where path.count == 1 {
            let children = model.children(of: path)
            guard !children.isEmpty else { continue }
            out += "        \(path[0])) subcommands=(\(describe(children))) ;;\n"
        }
        out += "      esac ;;\n  esac\n  (( $#subcommands )) && _describe -t commands 'command' subcommands\n}\n\n"
        return out
    }

    private func describe(_ words: [(word: String, summary: String)]) -> String {
        words.map { "'\($0.word):\(escape($0.summary))'" }.joined(separator: " ")
    }

    private func commandFunction(_ command: CommandSpec) -> String {
        var out = "\(functionName(command.path))() {\n  _arguments -s \"${_\(model.table.programName)_globals[@]}\""
        for flag in CompletionModel.visible(command.flags) {
            out += " \\\n    \(spec(flag))"
        }
        for (index, operand) in command.operands.enumerated() {
            let position = operand.variadic ? "*" : String(index + 1)
            let colon = operand.optional && !operand.variadic ? "::" : ":"
            out += " \\\n    '\(position)\(colon)\(escape(operand.name)):\(operandAction(operand))'"
        }
        out += "\n}\n\n"
        return out
    }

    /// `'(-q --quiet)'{-q,--quiet}'[text]'` or `'--scheme[text]:SCHEME:(sdk docs)'`.
    private func spec(_ flag: FlagSpec) -> String {
        let description = "[\(escape(flag.summary))]"
        let value = flag.valueName.map { ":\(escape($0)):\(action(flag.completion))" } ?? ""
        let repeatMark = flag.repeatable ? "*" : ""
        // `--flag=`: the value may follow as the next word or after '=' in the same word.
        let equals = flag.valueName == nil ? "" : "="
        if let short = flag.short {
            return "'(-\(short) --\(flag.long))'{-\(short),--\(flag.long)\(equals)}'\(description)\(value)'"
        }
        return "'\(repeatMark)--\(flag.long)\(equals)\(description)\(value)'"
    }

    /// An operand's action. One with nothing to complete shows its name, but not while the word
    /// starts with `-`: then only flags may match, so `--sch<TAB>` inserts `--scheme`.
    private func operandAction(_ operand: OperandSpec) -> String {
        guard operand.completion == .none else { return action(operand.completion) }
        return "{ [[ $PREFIX == -* ]] || _message \(escape(operand.name)) }"
    }

    private func action(_ completion: ValueCompletion) -> String {
        switch completion {
        case .none: return " "
        case .file: return "_files"
        case .directory: return "_files -/"
        case .choices(let words): return "(\(words.joined(separator: " ")))"
        }
    }

    /// Inside single quotes, and inside `_arguments`' brackets and colons.
    private func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "'": result += "'\\''"
            case "[", "]", ":", "\\": result += "\\" + String(character)
            default: result.append(character)
            }
        }
        return result
    }
}
