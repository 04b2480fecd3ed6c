/// The bash completion script (`completions/appdna.bash`), generated from the table.
/// Written for bash 3.2 as well (macOS): no `mapfile`, no associative arrays; `compopt` (bash 4)
/// is used when present so that file names are escaped and directories get a `/`.
struct BashCompletion {
    let model: CompletionModel

    func render() -> String {
        let table = model.table
        let name = table.programName
        let paths = model.paths.map { "\"" + $0.joined(separator: " ") + "\"" }.joined(separator: "|")
        var out = model.generatedNotice(shell: .bash) + """

        # Fills COMPREPLY from standard input, one candidate per line.
        _\(name)_reply() {
            local line
            COMPREPLY=()
            while IFS= read -r line; do COMPREPLY+=("$line"); done
        }

        # File (or, with -d, directory) names for the word being completed, as `ls My<TAB>` does:
        # readline escapes them and marks directories with a slash (compopt -o filenames).
        _\(name)_files() {
            local typed="$cur"
            # The word as typed may still hold its quoting (My\\ Bun, 'My Bun): match the name.
            typed="${typed#[\\"\\']}"
            typed="${typed//\\\\/}"
            compopt -o filenames 2>/dev/null
            _\(name)_reply < <(compgen "${1:--f}" -- "$typed")
        }

        _\(name)() {
            local cur prev path word i candidate help_topic
            cur="${COMP_WORDS[COMP_CWORD]}"
            prev=""
            (( COMP_CWORD > 0 )) && prev="${COMP_WORDS[COMP_CWORD-1]}"
            COMPREPLY=()
            # --flag=value: readline splits the word at '=' (COMP_WORDBREAKS), so the flag is
            # two words back (or one, right after the '=').
            if [[ "$cur" == "=" && "$prev" == --* ]]; then
                cur=""
            elif [[ "$prev" == "=" ]] && (( COMP_CWORD > 1 )); then
                prev="${COMP_WORDS[COMP_CWORD-2]}"
            fi

            # The command path typed so far: words that name a group or command, skipping flags
            # and the values of flags that take one. After `help`, the words are a help topic.
            path=""
            help_topic=0
            for (( i = 1; i < COMP_CWORD; i++ )); do
                word="${COMP_WORDS[i]}"
                case "$word" in
                    -*|=) continue ;;
                esac
                [[ "${COMP_WORDS[i-1]}" == "=" ]] && continue
                case "${COMP_WORDS[i-1]}" in
                    \(model.valueFlagSpellings.joined(separator: "|"))) continue ;;
                esac
                if [[ -z "$path" && $help_topic == 0 && "$word" == help ]]; then
                    help_topic=1
                    continue
                fi
                candidate="${path:+$path }$word"
                case "$candidate" in
                    \(paths)) path="$candidate" ;;
                    *) break ;;
                esac
            done

            # `appdna help …`: command paths, and the help topics after `help` itself.
            if (( help_topic )); then
                case "$path" in

        """
        for path in [[]] + model.paths {
            let children = path.isEmpty ? model.helpWords.map(\.word) : model.children(of: path).map(\.word).filter { $0 != "help" }
            guard !children.isEmpty else { continue }
            out += "            \"\(path.joined(separator: " "))\") \(words(children)) ;;\n"
        }
        out += """
                esac
                return 0
            fi

            # The value of the flag just typed (global flags), then per command: its flags' values,
            # its flags, its subcommands or operands.
            case "$prev" in

        """
        out += valueCases(table.globalFlags, indent: "        ")
        out += """
            esac

            case "$path" in

        """
        for path in model.paths {
            let key = path.joined(separator: " ")
            let command = table.command(path)
            let ownFlags = CompletionModel.visible(command?.flags ?? [])
            let flags = CompletionModel.visible(ownFlags + table.globalFlags)
            let flagWords = flags.flatMap { ["--" + $0.long] + ($0.short.map { ["-" + String($0)] } ?? []) }
            let children = model.children(of: path).map(\.word)
            var operandAction = children.isEmpty ? "" : words(children)
            if children.isEmpty, let operand = command?.operands.first(where: { $0.completion != .none }) {
                operandAction = valueAction(operand.completion)
            }
            out += "        \"\(key)\")\n"
            let values = valueCases(ownFlags, indent: "                ")
            if !values.isEmpty {
                out += "            case \"$prev\" in\n" + values + "            esac\n"
            }
            out += "            if [[ \"$cur\" == -* ]]; then\n"
            out += "                \(words(flagWords))\n"
            if !operandAction.isEmpty {
                out += "            else\n                \(operandAction)\n"
            }
            out += "            fi ;;\n"
        }
        let topFlags = CompletionModel.visible(table.globalFlags).map { "--" + $0.long }
        out += """
                *)
                    if [[ "$cur" == -* ]]; then
                        \(words(topFlags))
                    else
                        \(words(model.children(of: []).map(\.word)))
                    fi ;;
            esac
            return 0
        }
        complete -F _\(name) \(name)

        """
        return out
    }

    /// `--format) <complete the values>; return 0 ;;` for each value-taking spelling of `flags`.
    private func valueCases(_ flags: [FlagSpec], indent: String) -> String {
        var out = ""
        for flag in flags where flag.takesValue {
            let spellings = ["--" + flag.long] + (flag.short.map { ["-" + String($0)] } ?? [])
            out += "\(indent)\(spellings.joined(separator: "|"))) \(valueAction(flag.completion)); return 0 ;;\n"
        }
        return out
    }

    private func words(_ candidates: [String]) -> String {
        "_\(model.table.programName)_reply < <(compgen -W \"\(candidates.joined(separator: " "))\" -- \"$cur\")"
    }

    private func valueAction(_ completion: ValueCompletion) -> String {
        switch completion {
        case .none: return "COMPREPLY=()"
        case .file: return "_\(model.table.programName)_files"
        case .directory: return "_\(model.table.programName)_files -d"
        case .choices(let choices): return words(choices)
        }
    }
}
