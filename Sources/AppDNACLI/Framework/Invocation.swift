import AppDNACore
import AppDNANet

/// The standard streams, environment, network, time and files a command runs with. The binary
/// passes the real ones; tests pass capturing sinks, a made-up environment, a scripted
/// transport, a virtual clock and files of their own, so a whole command (`bundle fetch`, `bundle diff @remote`, `queue replay`)
/// runs in-process without sockets or sleeping.
public final class CommandIO: Sendable {
    public let stdout: OutputSink
    public let stderr: OutputSink
    /// File descriptor commands read standard input from.
    public let stdinDescriptor: Int32
    public let stdinIsTerminal: Bool
    public let environment: [String: String]
    /// How API requests go out: nil is the system libcurl trusting the environment's CA
    /// variables (see `APIAccess.client`); tests pass a scripted transport.
    public let transport: (any HTTPTransport)?
    /// Retry waits, Retry-After dates and --timeout deadlines are measured on it.
    public let clock: any Clock
    /// What a command's output files go through (`bundle fetch -o`): the system's, or a
    /// test's own.
    public let files: any FileAccess
    /// Arguments that were not valid UTF-8 as the process got them, as Swift repaired them
    /// (U+FFFD for each bad sequence): a command that hashes an argument's bytes refuses them
    /// (65) instead of hashing the repair.
    public let notUTF8Arguments: Set<String>

    public init(stdout: OutputSink, stderr: OutputSink, stdinDescriptor: Int32 = 0,
                stdinIsTerminal: Bool? = nil, environment: [String: String],
                transport: (any HTTPTransport)? = nil, clock: any Clock = SystemClock(), files: any FileAccess = SystemFileAccess(),
                notUTF8Arguments: Set<String> = []) {
        self.stdout = stdout
        self.stderr = stderr
        self.stdinDescriptor = stdinDescriptor
        self.stdinIsTerminal = stdinIsTerminal ?? SystemFile.isTerminal(stdinDescriptor)
        self.environment = environment
        self.transport = transport
        self.clock = clock
        self.files = files
        self.notUTF8Arguments = notUTF8Arguments
    }

    /// The process's real streams and environment.
    public static func standard() -> CommandIO {
        CommandIO(stdout: OutputSink(fileDescriptor: 1), stderr: OutputSink(fileDescriptor: 2),
                  environment: ProcessEnvironment.current(), notUTF8Arguments: notUTF8ProcessArguments())
    }

    /// The process's arguments whose bytes are not UTF-8 (`CommandLine.arguments` repairs them
    /// silently), read from the C argv.
    static func notUTF8ProcessArguments() -> Set<String> {
        var found = Set<String>()
        for index in 1..<Int(CommandLine.argc) {
            guard let raw = CommandLine.unsafeArgv[index], String(validatingCString: raw) == nil else { continue }
            found.insert(String(cString: raw))
        }
        return found
    }
}

/// Global options every command honours, resolved once.
public struct GlobalOptions: Sendable {
    public let quiet: Bool
    public let verbose: Bool
    public let noInput: Bool
    /// Colour for data on stdout and for messages on stderr, decided separately because
    /// `appdna … > file` keeps a terminal stderr.
    public let stdoutStyle: Styler
    public let stderrStyle: Styler

    init(_ arguments: ParsedArguments, io: CommandIO) {
        quiet = arguments[GlobalFlags.quiet]
        verbose = arguments[GlobalFlags.verbose] && !quiet
        noInput = arguments[GlobalFlags.noInput]
        let flag = arguments[GlobalFlags.color].rawValue
        stdoutStyle = Styler(enabled: ColorPolicy.enabled(flag: flag, environment: io.environment, isTerminal: io.stdout.isTerminal))
        stderrStyle = Styler(enabled: ColorPolicy.enabled(flag: flag, environment: io.environment, isTerminal: io.stderr.isTerminal))
    }
}

/// What a command's plan and perform both get: the command, its streams, environment, network,
/// clock and files, and the global options. Not the arguments: only the plan builder is given
/// those (`CommandRun.planned`), so a perform cannot read them (issue 54.1).
public struct Invocation: Sendable {
    public let command: CommandSpec
    public let io: CommandIO
    public let options: GlobalOptions

    public init(command: CommandSpec, io: CommandIO, options: GlobalOptions) {
        self.command = command
        self.io = io
        self.options = options
    }

    public var stdout: OutputSink { io.stdout }

    /// A warning on stderr (`appdna: warning: …`), shown even with `--quiet`; under GitHub
    /// Actions a `::warning` annotation.
    public func warn(_ message: String) {
        warn(message, place: nil)
    }

    /// A warning about `place` (a file, and its line when known) for the annotation.
    func warn(_ message: String, place: GitHubWorkflowText.Place?) {
        if GitHubWorkflowText.isActive(io.environment) {
            // The runner shows it as `Warning: appdna: …`: a second "warning:" would repeat it.
            io.stderr.writeVerbatimLine(GitHubWorkflowText.annotation(.warning, "appdna: " + message, place: place))
        } else {
            io.stderr.writeLine("appdna: " + options.stderrStyle.apply(.yellow, "warning:") + " " + message)
        }
    }

    /// An error line on stderr (`appdna: …`) for an outcome the command reports itself (a gate
    /// that fails, an invalid file among several), shown even with `--quiet`; under GitHub
    /// Actions an `::error` annotation about `place`.
    func error(_ message: String, place: GitHubWorkflowText.Place? = nil) {
        if GitHubWorkflowText.isActive(io.environment) {
            io.stderr.writeVerbatimLine(GitHubWorkflowText.annotation(.error, "appdna: " + message, place: place))
        } else {
            io.stderr.writeLine("appdna: " + message)
        }
    }

    /// A warning in the format of the build running us, for `bundle fetch` in a build phase:
    /// the `warning: ` line Xcode lists in its issue navigator (and which reads fine in any
    /// other log), or under GitHub Actions a `::warning` annotation (the tool's own line,
    /// written as it is, its data escaped for the command).
    func buildWarning(_ message: String, place: GitHubWorkflowText.Place? = nil) {
        if GitHubWorkflowText.isActive(io.environment) {
            io.stderr.writeVerbatimLine(GitHubWorkflowText.annotation(.warning, message, place: place))
        } else {
            io.stderr.writeLine("warning: " + message)
        }
    }

    /// A status line on stderr (summaries, progress notes); silenced by `--quiet`.
    public func note(_ message: String) {
        guard !options.quiet else { return }
        io.stderr.writeLine(message)
    }

    /// Extra detail on stderr, only with `--verbose`.
    public func detail(_ message: String) {
        guard options.verbose else { return }
        io.stderr.writeLine(options.stderrStyle.apply(.dim, message))
    }
}
