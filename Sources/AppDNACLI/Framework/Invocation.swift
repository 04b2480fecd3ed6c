import AppDNACore

/// The standard streams and environment a command runs with. The binary passes the real ones;
/// tests pass capturing sinks and a made-up environment, so a whole command runs in-process.
public final class CommandIO: @unchecked Sendable {
    public let stdout: OutputSink
    public let stderr: OutputSink
    /// File descriptor commands read standard input from.
    public let stdinDescriptor: Int32
    public let stdinIsTerminal: Bool
    public let environment: [String: String]

    public init(stdout: OutputSink, stderr: OutputSink, stdinDescriptor: Int32 = 0,
                stdinIsTerminal: Bool? = nil, environment: [String: String]) {
        self.stdout = stdout
        self.stderr = stderr
        self.stdinDescriptor = stdinDescriptor
        self.stdinIsTerminal = stdinIsTerminal ?? (isatty(stdinDescriptor) == 1)
        self.environment = environment
    }

    /// The process's real streams and environment.
    public static func standard() -> CommandIO {
        CommandIO(stdout: OutputSink(fileDescriptor: 1), stderr: OutputSink(fileDescriptor: 2),
                  environment: ProcessEnvironment.current())
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

/// Everything a command's `run` gets.
public struct Invocation: Sendable {
    public let command: CommandSpec
    public let arguments: ParsedArguments
    public let io: CommandIO
    public let options: GlobalOptions

    public var stdout: OutputSink { io.stdout }

    /// A warning on stderr (`appdna: warning: …`), shown even with `--quiet`.
    public func warn(_ message: String) {
        io.stderr.writeLine("appdna: " + options.stderrStyle.apply(.yellow, "warning:") + " " + message)
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
