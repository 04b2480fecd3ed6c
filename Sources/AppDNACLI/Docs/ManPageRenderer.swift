/// appdna(1) in mdoc, generated from the command table (`man/appdna.1` is this output).
public struct ManPageRenderer {
    let table: CommandTable
    /// Fixed, not today's date: the same table must give the same bytes.
    static let date = "November 21, 2026"

    public init(table: CommandTable) {
        self.table = table
    }

    public func render() -> String {
        var out: [String] = []
        let upper = table.programName.uppercased()
        out += [".Dd \(Self.date)", ".Dt \(upper) 1 LOCAL", ".Os \(table.programName) \(table.version)", ".Sh NAME", ".Nm \(table.programName)", ".Nd \(text(table.summary))"]
        out += [".Sh SYNOPSIS"]
        for command in table.visibleCommands {
            out += synopsis(command)
        }
        out += [".Sh DESCRIPTION",
                "One binary for teams that ship apps on the AppDNA platform.",
                "Data goes to standard output, messages to standard error.",
                "Global options may stand before or after the command:",
                ".Bl -tag -width Ds"]
        for flag in table.globalFlags where !flag.hidden {
            out += flagItem(flag)
        }
        out += [".El", ".Pp", text("Durations and sizes, for every flag that takes one: " + UnitText.note)]
        // One section per job, in the order of the guides, then whatever no job claims.
        var shown = Set<[String]>()
        for job in Self.jobs {
            let commands = table.visibleCommands.filter { $0.path.first == job.prefix }
            guard !commands.isEmpty else { continue }
            out += [".Sh \(job.title)", text(job.intro + " Guide: " + job.guide + ".")]
            for command in commands {
                out += commandSection(command)
                shown.insert(command.path)
            }
        }
        let others = table.visibleCommands.filter { !shown.contains($0.path) }
        if !others.isEmpty {
            out += [".Sh OTHER COMMANDS"]
            for command in others { out += commandSection(command) }
        }
        out += [".Sh ENVIRONMENT", ".Bl -tag -width Ds"]
        for variable in table.environment {
            out += [".It Ev \(variable.name)", text(variable.summary + ".")]
            if !variable.usedBy.isEmpty {
                out += ["Read by", text(variable.usedBy.map { "\(table.programName) \($0.joined(separator: " "))" }
                    .joined(separator: ", ") + ".")]
            }
        }
        // mandoc's conventional order: ENVIRONMENT, FILES, EXIT STATUS, EXAMPLES.
        out += [".El", ".Sh FILES", ".Bl -tag -width Ds"]
        for (file, meaning) in Self.files {
            out += [".It Pa \(file)", text(meaning)]
        }
        out += [".El", ".Sh EXIT STATUS",
                "The same for every command:",
                ".Bl -tag -width Ds"]
        for status in ExitStatus.allCases {
            out += [".It \(status.rawValue)", text(status.meaning)]
        }
        out += [".El", ".Sh EXAMPLES"]
        for command in table.visibleCommands {
            for example in command.examples {
                // .Pp before each caption: a caption must sit with its own example, not
                // run on after the previous one's display.
                if out.last != ".Sh EXAMPLES" { out.append(".Pp") }
                out += [text(example.explanation), ".Bd -literal -offset indent", literal(example.command), ".Ed"]
            }
        }
        return out.joined(separator: "\n") + "\n"
    }

    /// The jobs the guides are organised by: a man page section each, with its commands.
    static let jobs: [(title: String, prefix: String, guide: String, intro: String)] = [
        ("CONFIG BUNDLES", "bundle", "docs/ci.md and docs/codegen.md",
         "Fetching the config bundle into the app's resources, checking and comparing bundles, and typed accessors for app code."),
        ("EXPERIMENT ASSIGNMENT", "bucket", "docs/experiments.md, docs/assignment-rules.md and docs/warehouse.md",
         "Reproducing and explaining the variant a user gets, exactly as devices compute it, for one user, a batch, or a warehouse."),
        ("EVENT QUEUES", "queue", "docs/queues.md",
         "Reading an event queue taken from a device, auditing its exposures, and delivering it."),
        ("WEBHOOKS", "webhook", "docs/webhooks.md",
         "Verifying, signing, receiving and sending webhook deliveries."),
        ("LOCAL API", "api", "docs/local-api.md",
         "The AppDNA API on this machine, for CI steps and SDK integrations."),
    ]

    /// The files the tool reads and writes by name.
    static let files: [(String, String)] = [
        ("appdna-config.json", "The config bundle an app ships; written by bundle fetch, read by every command that takes a bundle."),
        ("pending_events.json", "The iOS SDK's event queue (NDJSON, or a legacy JSON array), read by queue inspect and queue replay."),
        ("appdna_events.db", "The Android SDK's event queue (SQLite), read-only."),
        ("ai.appdna.sdk.xml", "Android shared preferences holding an older SDK's queue, read-only."),
        ("PATH.appdna-replay/", "queue replay's state directory beside the queue (or --state-dir): the journal of what was delivered, so a run resumes without sending twice, and the lock."),
        ("PATH.appdna-replay/dead-letter.ndjson", "Events the API refused for good, with the reason (or --dead-letter)."),
        ("~/.local/share/bash-completion/completions/appdna", "Where completions install puts bash's script (zsh: the first writable fpath entry or ~/.zsh/completions; fish: ~/.config/fish/completions)."),
    ]

    func synopsis(_ command: CommandSpec) -> [String] {
        var lines = [".Nm", ".Cm \(command.name)"]
        if !command.flags.filter({ !$0.hidden }).isEmpty { lines.append(".Op Ar options") }
        for operand in command.operands {
            let word = operand.variadic ? "Ar \(operand.name) ..." : "Ar \(operand.name)"
            lines.append(operand.optional ? ".Op \(word)" : ".\(word)")
        }
        return lines
    }

    func commandSection(_ command: CommandSpec) -> [String] {
        var lines = [".Ss \(table.programName) \(command.name)", text(command.summary) + "."]
        if !command.discussion.isEmpty {
            for paragraph in command.discussion.split(separator: "\n") {
                lines += [".Pp", text(String(paragraph))]
            }
        }
        if !command.alternativeUsages.isEmpty {
            lines += [".Pp", "Other forms:", ".Bd -literal -offset indent"]
            lines += command.alternativeUsages.map { literal("\(table.programName) \(command.name) \($0)") }
            lines.append(".Ed")
        }
        if !command.operands.isEmpty {
            lines += [".Bl -tag -width Ds"]
            for operand in command.operands {
                lines += [".It Ar \(operand.name)", text(operand.summary)]
            }
            lines.append(".El")
        }
        let visible = command.flags.filter { !$0.hidden }
        if !visible.isEmpty {
            lines += [".Bl -tag -width Ds"]
            for flag in visible { lines += flagItem(flag) }
            lines.append(".El")
        }
        for reference in command.references {
            lines += [".Pp", text(reference.title + ":"), ".Bl -tag -width Ds -compact"]
            for row in reference.rows { lines += [".It \(row.term)", text(row.text)] }
            lines.append(".El")
        }
        let environment = table.environment(for: command)
        if !environment.isEmpty {
            lines += [".Pp", "Environment:", ".Bl -tag -width Ds -compact"]
            for variable in environment { lines += [".It Ev \(variable.name)", text(variable.summary)] }
            lines.append(".El")
        }
        return lines
    }

    func flagItem(_ flag: FlagSpec) -> [String] {
        var head = ".It"
        if let short = flag.short { head += " Fl \(short) ,"}
        head += " Fl -\(flag.long)"
        if let value = flag.valueName { head += " Ar \(value)" }
        var body = flag.summary
        if let choices = flag.choices { body += "; one of " + choices.joined(separator: ", ") }
        body += HelpRenderer.rangeAndDefault(flag)
        if flag.repeatable { body += "; may be repeated" }
        var lines = [head, text(body) + "."]
        if let details = flag.details { lines += [".Pp", text(details)] }
        return lines
    }

    /// Roff text lines: backslashes escaped, a leading dot or quote neutralised, one sentence
    /// per line and no line over 80 bytes (what `mandoc -T lint` asks for).
    func text(_ value: String) -> String {
        var lines: [String] = []
        for sentence in sentences(value) {
            var line = ""
            for word in sentence.split(separator: " ") {
                if !line.isEmpty && roffWidth(line) + 1 + roffWidth(word) > 78 {
                    lines.append(line)
                    line = ""
                }
                line += line.isEmpty ? String(word) : " " + word
            }
            lines.append(line)
        }
        return lines.map(escapeLine).joined(separator: "\n")
    }

    /// The width mandoc's lint measures: a non-ASCII character counts as its escape `\[u2026]`,
    /// a backslash as `\e`.
    private func roffWidth<Text: StringProtocol>(_ text: Text) -> Int {
        text.unicodeScalars.reduce(0) { $0 + ($1 == "\\" ? 2 : $1.isASCII ? 1 : 8) }
    }

    /// Splits after ". " so every sentence starts a line (roff spaces sentences itself).
    private func sentences(_ value: String) -> [String] {
        var result: [String] = []
        var current = ""
        var previous: Character = " "
        for character in value {
            if character == " " && (previous == "." || previous == "?" || previous == "!") {
                result.append(current)
                current = ""
            } else {
                current.append(character)
            }
            previous = character
        }
        if !current.isEmpty { result.append(current) }
        return result
    }

    private func escapeLine(_ line: String) -> String {
        var escaped = Self.portableGlyphs(line.replacing("\\", with: "\\e"))
        if escaped.hasPrefix(".") || escaped.hasPrefix("'") { escaped = "\\&" + escaped }
        return escaped
    }

    /// Characters outside ASCII as roff's own names, so that the page renders without
    /// warnings in any locale (the C locale included) and each output device draws its best
    /// form: "…" becomes "...", "→" \(->, "×" \(mu, "±" \(+-; any other one \[uXXXX].
    static func portableGlyphs(_ line: String) -> String {
        guard line.unicodeScalars.contains(where: { !$0.isASCII }) else { return line }
        var out = ""
        for scalar in line.unicodeScalars {
            switch scalar {
            case "…": out += "..."
            case "→": out += "\\(->"
            case "×": out += "\\(mu"
            case "±": out += "\\(+-"
            case "–", "—": out += "\\(en"
            case "‘", "’": out += "'"
            case "“", "”": out += "\\(dq"
            default:
                if scalar.isASCII { out.unicodeScalars.append(scalar) } else {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    out += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
                }
            }
        }
        return out
    }

    /// A line inside a literal display.
    func literal(_ value: String) -> String {
        escapeLine(value)
    }
}
