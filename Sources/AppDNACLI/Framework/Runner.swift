import AppDNACore

/// The one place where a command line becomes an exit status: parse, run, and map every
/// error to a message and a status from the contract.
public enum Runner {
    /// Runs `appdna` as a process: real streams, SIGPIPE ignored so that a closed pipe shows up
    /// as EPIPE on write (which ends quietly with status 0) instead of killing the process, and
    /// SIGXFSZ so that a file grown past `ulimit -f` is an EFBIG the command reports.
    public static func runProcess() -> Int32 {
        ProcessControl.ignoreBrokenPipes()
        ProcessControl.ignoreFileSizeLimit()
        let arguments = Array(CommandLine.arguments.dropFirst())
        return run(arguments, table: .appdna, io: .standard())
    }

    /// Ends the process with `status` (kept here so the executable imports AppDNACLI only).
    public static func exitProcess(_ status: Int32) -> Never {
        ProcessControl.exit(status)
    }

    public static func run(_ arguments: [String], table: CommandTable, io: CommandIO) -> Int32 {
        // A locale that is not UTF-8 gets ASCII text: -> x ... for → × …, other characters
        // escaped (machine formats are left alone).
        if !TerminalGlyphs.localeIsUTF8(io.environment) {
            for sink in [io.stdout, io.stderr] { sink.asciiOnly = true }
        }
        let status = dispatch(arguments, table: table, io: io)
        io.stdout.flush()
        io.stderr.flush()
        if io.stdout.isBrokenPipe { return ExitStatus.success.rawValue }
        if io.stdout.isBroken {
            io.stderr.writeLine("appdna: cannot write output: \(SystemError.describe(io.stdout.failureCode))")
            io.stderr.flush()
            return ExitStatus.ioError.rawValue
        }
        return status.rawValue
    }

    static func dispatch(_ arguments: [String], table: CommandTable, io: CommandIO) -> ExitStatus {
        do {
            switch try ArgumentParser(table: table).parse(arguments) {
            case .help(let path, _, let brief):
                let renderer = HelpRenderer(table: table)
                io.stdout.writeToolText(brief ? renderer.renderBrief(path: path) : renderer.render(path: path))
                return .success
            case .version:
                io.stdout.writeLine("\(table.programName) \(table.version)")
                return .success
            case .run(let command, let arguments):
                let invocation = Invocation(command: command, io: io,
                                            options: GlobalOptions(arguments, io: io))
                let outcome = Result { try command.run.run(arguments, invocation) }
                // A flag read but not declared is a bug in the command, whatever it returned.
                if !arguments.undeclaredFlagsRead.isEmpty || !arguments.mistypedFlagsRead.isEmpty || !arguments.lateReads.isEmpty {
                    reportUndeclaredReads(arguments, command: command, io: io)
                    reportMistypedReads(arguments, command: command, io: io)
                    reportLateReads(arguments, command: command, io: io)
                    return .internalError
                }
                return try outcome.get()
            }
        } catch let error as ClassifiedError {
            report(error, io: io)
            return ExitStatus(error.kind)
        } catch {
            if GitHubWorkflowText.isActive(io.environment) {
                io.stderr.writeVerbatimLine(GitHubWorkflowText.annotation(.error, "appdna: " + FlagWording.message(for: error)))
            } else {
                io.stderr.writeLine("appdna: " + FlagWording.message(for: error))
            }
            return .internalError
        }
    }

    /// Says so when the command read a flag it does not declare (`ParsedArguments`); the
    /// command's status then becomes 70.
    static func reportUndeclaredReads(_ arguments: ParsedArguments, command: CommandSpec, io: CommandIO) {
        let names = arguments.undeclaredFlagsRead
        guard !names.isEmpty else { return }
        io.stderr.writeLine("appdna: internal error: '\(command.name)' read \(names.joined(separator: ", ")), which it does not declare (it got the default, whatever was typed)")
    }

    /// Says so when a flag was read as a type its value is not (a descriptor made from another
    /// flag's parts, `ParsedArguments`): the command got the default instead of the value
    /// typed, so its status becomes 70.
    static func reportMistypedReads(_ arguments: ParsedArguments, command: CommandSpec, io: CommandIO) {
        for read in arguments.mistypedFlagsRead {
            io.stderr.writeLine("appdna: internal error: '\(command.name)' read \(read) (it got the default, whatever was typed)")
        }
    }

    /// Says so when the command read its arguments after its plan was built (`CommandPlan`):
    /// the run took a decision the plan does not hold; the command's status then becomes 70.
    static func reportLateReads(_ arguments: ParsedArguments, command: CommandSpec, io: CommandIO) {
        let names = arguments.lateReads
        guard !names.isEmpty else { return }
        io.stderr.writeLine("appdna: internal error: '\(command.name)' read \(names.joined(separator: ", ")) after its plan was built (its run reads the plan only)")
    }

    /// `appdna: MESSAGE` and its `hint:` line; under GitHub Actions one `::error` workflow
    /// command holding both, pointing at `place` when the error is about a file.
    static func report(_ error: ClassifiedError, io: CommandIO, place: GitHubWorkflowText.Place? = nil) {
        if GitHubWorkflowText.isActive(io.environment) {
            let hint = FlagWording.hint(for: error).map { "\nhint: " + $0 } ?? ""
            io.stderr.writeVerbatimLine(GitHubWorkflowText.annotation(.error, "appdna: " + FlagWording.message(for: error) + hint, place: place))
            return
        }
        let style = Styler(enabled: ColorPolicy.enabled(flag: nil, environment: io.environment, isTerminal: io.stderr.isTerminal))
        io.stderr.writeLine(style.apply(.red, "appdna:") + " " + FlagWording.message(for: error))
        if let hint = FlagWording.hint(for: error) {
            io.stderr.writeLine("hint: " + hint)
        }
    }
}
