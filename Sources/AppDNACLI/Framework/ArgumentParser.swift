import AppDNACore

/// What the command line asks for, once lexed against the table.
public enum ParsedCommandLine: Sendable {
    /// `--help`, `-h` or `appdna help …`: help for this path (empty = the whole tool); `brief`
    /// for `-h` alone (the short help, `HelpRenderer.renderBrief`).
    case help(path: [String], globals: ParsedArguments, brief: Bool)
    case version(globals: ParsedArguments)
    case run(CommandSpec, ParsedArguments)
}

/// Turns argv into a command and its validated arguments, following the contract's lexing
/// rules: `--flag value`, `--flag=value`, `-f value`, `-fvalue`, combined switches `-qv`,
/// `--` ends options, a lone `-` is an operand (stdin), last flag wins, global flags before or
/// after the command, and "did you mean" for unknown commands and flags.
public struct ArgumentParser {
    let table: CommandTable

    public init(table: CommandTable) {
        self.table = table
    }

    public func parse(_ arguments: [String]) throws(Failure) -> ParsedCommandLine {
        var parsed = ParsedArguments()
        var path: [String] = []
        var command: CommandSpec?
        var wantsHelp = false
        // `-h` asks for the short help, `--help` for the full text (which wins when both are given).
        var wantsShortHelp = false, wantsLongHelp = false
        var wantsVersion = false
        var helpTopic: [String]?
        var onlyOperands = false
        var index = 0

        while index < arguments.count {
            let token = arguments[index]
            index += 1

            if !onlyOperands && token == "--" {
                onlyOperands = true
                continue
            }
            if !onlyOperands && token.hasPrefix("-") && token != "-" {
                let flags = table.allFlags(for: command)
                // The command words typed so far and still to come: whose flag a misplaced one is.
                let words = command == nil ? path + arguments[index...].filter { !$0.hasPrefix("-") } : []
                let helpBefore = parsed[GlobalFlags.help]
                if token.hasPrefix("--") {
                    try parseLong(token, flags: flags, command: command, words: words,
                                  arguments: arguments, index: &index, into: &parsed)
                } else {
                    try parseShortCluster(token, flags: flags, command: command, words: words,
                                          arguments: arguments, index: &index, into: &parsed)
                }
                if parsed[GlobalFlags.help] {
                    wantsHelp = true
                    if token == "--help" {
                        wantsLongHelp = true
                    } else if !token.hasPrefix("--") && (!helpBefore || token.dropFirst().contains("h")) {
                        wantsShortHelp = true
                    }
                }
                if parsed[GlobalFlags.version] { wantsVersion = true }
                continue
            }

            // A word: part of the command path, a help topic, or an operand.
            if helpTopic != nil {
                helpTopic!.append(token)
            } else if command != nil || onlyOperands {
                guard command != nil else {
                    throw Failure(.usage, "'\(token)' is not a command; see '\(table.programName) --help'")
                }
                parsed.appendOperand(token)
            } else if path.isEmpty && token == "help" {
                helpTopic = []
            } else {
                path.append(token)
                if let found = table.command(path) {
                    command = found
                } else if !table.commands.contains(where: { $0.path.starts(with: path) }) {
                    throw unknownCommand(path)
                }
            }
        }

        if let topic = helpTopic {
            try checkHelpTopic(topic)
            return .help(path: topic, globals: parsed, brief: false)
        }
        if wantsHelp { return .help(path: path, globals: parsed, brief: wantsShortHelp && !wantsLongHelp) }
        if wantsVersion { return .version(globals: parsed) }
        // One rule for `appdna` and `appdna GROUP` alone: the help of what was typed, status 0.
        guard let command else { return .help(path: path, globals: parsed, brief: false) }
        try checkOperands(parsed.operands, expected: command.operandsGiven(parsed), for: command)
        parsed.declare(command: command.name, flags: command.flags + table.globalFlags)
        return .run(command, parsed)
    }

    private func parseLong(_ token: String, flags: [FlagSpec], command: CommandSpec?, words: [String],
                           arguments: [String], index: inout Int, into parsed: inout ParsedArguments) throws(Failure) {
        let body = token.dropFirst(2)
        let name: Substring
        var inlineValue: String?
        if let equals = body.firstIndex(of: "=") {
            name = body[..<equals]
            inlineValue = String(body[body.index(after: equals)...])
        } else {
            name = body
        }
        guard let flag = flags.first(where: { $0.long == name }) else {
            throw unknownFlag("--\(name)", flags: flags, command: command, words: words, commandLine: arguments)
        }
        if flag.takesValue {
            try recordValue(of: flag, spelled: "--\(flag.long)", attached: inlineValue,
                            arguments: arguments, index: &index, into: &parsed)
        } else {
            if inlineValue != nil {
                throw Failure(.usage, "--\(flag.long) is a switch and takes no value")
            }
            try parsed.record(flag, value: nil)
        }
    }

    /// `-q`, `-qv`, `-o PATH`, `-oPATH`, `-qoPATH`: switches may be combined; the first flag that
    /// takes a value takes the rest of the token, or the next argument.
    private func parseShortCluster(_ token: String, flags: [FlagSpec], command: CommandSpec?, words: [String],
                                   arguments: [String], index: inout Int, into parsed: inout ParsedArguments) throws(Failure) {
        var rest = Substring(token.dropFirst())
        while let letter = rest.first {
            rest = rest.dropFirst()
            guard let flag = flags.first(where: { $0.short == letter }) else {
                throw unknownFlag("-\(letter)", flags: flags, command: command, words: words, commandLine: arguments)
            }
            if flag.takesValue {
                let attached = rest.isEmpty ? nil : String(rest.hasPrefix("=") ? rest.dropFirst() : rest)
                try recordValue(of: flag, spelled: "-\(letter) (--\(flag.long))", attached: attached,
                                arguments: arguments, index: &index, into: &parsed)
                return
            }
            try parsed.record(flag, value: nil)
        }
    }

    /// A value flag's value: attached to the token (`--a=b`, `-ob`) or the next argument,
    /// whatever it looks like (so `--prefix -x-` works).
    private func recordValue(of flag: FlagSpec, spelled: String, attached: String?, arguments: [String],
                             index: inout Int, into parsed: inout ParsedArguments) throws(Failure) {
        let value: String
        if let attached {
            value = attached
        } else if index < arguments.count {
            value = arguments[index]
            index += 1
        } else {
            throw Failure(.usage, "\(spelled) needs a value (\(flag.valueName!))")
        }
        // The flag's own step validates it (choices, ranges, formats) as it is stored.
        try parsed.record(flag, value: value)
    }

    private func checkOperands(_ operands: [String], expected: [OperandSpec], for command: CommandSpec) throws(Failure) {
        let required = expected.filter { !$0.optional }.count
        if operands.count < required {
            let missing = expected[operands.count]
            throw Failure(.usage, "'\(table.programName) \(command.name)' needs \(missing.name) (usage: \(usageLine(command)))")
        }
        let variadic = expected.contains { $0.variadic }
        if !variadic && operands.count > expected.count {
            let extra = operands[expected.count]
            throw Failure(.usage, "unexpected argument '\(extra)' (usage: \(usageLine(command)))")
        }
        for (operand, value) in zip(expected, operands) {
            guard operand.onlyChoices, case .choices(let choices) = operand.completion, !choices.contains(value) else { continue }
            throw Failure(.usage, "'\(table.programName) \(command.name)' takes \(operand.name) as one of "
                          + "\(choices.joined(separator: ", ")), not '\(value)'" + Suggestions.phrase(for: value, among: choices))
        }
    }

    private func checkHelpTopic(_ topic: [String]) throws(Failure) {
        if topic.isEmpty || table.command(topic) != nil || HelpTopic.named(topic, in: table) != nil { return }
        if table.commands.contains(where: { $0.path.starts(with: topic) }) { return }
        // After `help` every word is a topic (a command, a group, or a page such as
        // `environment`): "unknown command" would read as if `appdna enviroment` had been run.
        throw unknownCommand(topic, topics: topic.count == 1 ? HelpTopic.allCases.map(\.rawValue) : [], noun: "help topic")
    }

    func usageLine(_ command: CommandSpec) -> String {
        HelpRenderer(table: table).usage(for: command)
    }

    /// `topics`: the help topics that may stand where the word is (after `appdna help`, whose
    /// words the message calls a `noun` of "help topic").
    private func unknownCommand(_ path: [String], topics: [String] = [], noun: String = "command") -> Failure {
        let known = path.dropLast()
        let siblings = Set(table.visibleCommands.filter { $0.path.count > known.count && $0.path.starts(with: known) }
            .map { $0.path[known.count] } + topics).sorted()
        let word = path.last!
        let prefix = known.isEmpty ? "" : known.joined(separator: " ") + " "
        // `appdna version`: the word names a global switch, which is spelled as a flag.
        if known.isEmpty, let flag = table.globalFlags.first(where: { $0.long == word && !$0.takesValue && !$0.hidden }) {
            return Failure(.usage, "unknown command '\(word)'; did you mean '\(table.programName) --\(flag.long)'?")
        }
        return Failure(.usage, "unknown \(noun) '\(prefix)\(word)'"
                       + Suggestions.phrase(for: word, among: siblings, prefix: prefix)
                       + " (see '\(table.programName) \(prefix)--help')")
    }

    /// `-V` is `--version` in many tools: for an unknown letter, the visible long flag that starts
    /// with it (in either case) and has no short letter of its own, rather than any one-letter
    /// neighbour (which made `-V` suggest `-h`).
    private func shortLetterSuggestion(_ bare: String, flags: [FlagSpec]) -> String? {
        guard bare.count == 1 else { return nil }
        let letter = bare.lowercased()
        return flags.first { !$0.hidden && $0.short == nil && $0.long.hasPrefix(letter) }?.long
    }

    private func unknownFlag(_ spelled: String, flags: [FlagSpec], command: CommandSpec?, words: [String],
                             commandLine: [String]) -> Failure {
        let names = flags.filter { !$0.hidden }.flatMap { flag -> [String] in
            [flag.long] + (flag.short.map { [String($0)] } ?? [])
        }
        let bare = spelled.hasPrefix("--") ? String(spelled.dropFirst(2)) : String(spelled.dropFirst())
        var message = "unknown flag '\(spelled)'"
        if let command {
            message += " for '\(table.programName) \(command.name)'"
        } else if words.isEmpty, table.commands.contains(where: { $0.flags.contains { $0.long == bare } }) {
            // No command typed: `appdna --version --json` names no command to blame.
            if commandLine.contains("--version") {
                return ModeFlags.conflict("--\(bare)", "--version", instead: "it prints one line, '\(table.programName) VERSION', and takes no command's flags")
            }
            return Failure(.usage, message + "; --\(bare) is a command's flag: put it after the command ('\(table.programName) --help' lists them)")
        } else if let owner = owner(of: bare, words: words) {
            // A command's flag typed before the command.
            return Failure(.usage, message + "; --\(bare) belongs to '\(table.programName) \(owner.name)': put it after the command")
        }
        let suggestion = shortLetterSuggestion(bare, flags: flags) ?? Suggestions.closest(to: bare, among: names).first
        if let suggestion {
            message += "; did you mean '\(suggestion.count == 1 ? "-" : "--")\(suggestion)'?"
        }
        return Failure(.usage, message)
    }

    /// The command a flag typed before its command belongs to: the command the words name
    /// (`queue --json inspect` → queue inspect), else one of the group they start (`queue
    /// --json` → queue inspect), else any command that has it.
    private func owner(of long: String, words: [String]) -> CommandSpec? {
        let owners = table.commands.filter { $0.flags.contains { $0.long == long } }
        for length in stride(from: words.count, through: 1, by: -1) {
            if let named = owners.first(where: { $0.path == Array(words.prefix(length)) }) { return named }
        }
        if let group = words.first, let inGroup = owners.first(where: { $0.path.first == group }) { return inGroup }
        return owners.first
    }
}
