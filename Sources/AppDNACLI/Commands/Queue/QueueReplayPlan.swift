import AppDNACore
import AppDNANet
import AppDNAReplay

/// Everything one `queue replay` run needs, read from the flags and the configuration once,
/// before any queue is read or the state directory touched: the PATHs, what the engine is
/// asked (`ReplaySettings`), where the state goes, the key, the URL and the client. A key
/// that is missing or malformed, a bad APPDNA_API_URL or CA variable is refused here (78).
/// (`ReplayPlan` is what the engine finds in the queues: what would be sent.)
struct QueueReplayPlan: Sendable {
    let paths: [String]
    let replay: ReplaySettings
    let stateDirectory: String
    let deadLetterPath: String
    let json: Bool
    let dryRun: Bool
    /// `--yes`: send without asking.
    let yes: Bool
    /// The key; nil only on a dry run without one (it sends nothing).
    let key: APIKey?
    /// APPDNA_API_URL checked, or the default on a dry run whose URL is refused.
    let base: String
    /// What the batches go out with (`--retries` each); nil on a dry run.
    let client: HTTPClient?
    /// Where the client's `--verbose` retry notes go.
    let retryNotes: ReplayRetryNotes

    var batchSize: Int { replay.batchSize }
    var url: String { base + AppDNAAPI.ingestPath }

    /// Reads every flag once and checks the configuration; no effect (nothing read but the key file).
    @Sendable static func make(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> QueueReplayPlan {
        let io = invocation.io
        // Flags that would change nothing: how to send, on a run that sends nothing; the age
        // bound, when every age is sent.
        if arguments[QueueReplayFlags.dryRun] {
            try ModeFlags("--dry-run", reads: [], instead: [(QueueReplayFlags.yes.spec, "a dry run sends nothing, so asks nothing")])
                .check(arguments, declared: [QueueReplayFlags.yes.spec, QueueReplayFlags.concurrency.spec, QueueReplayFlags.rate.spec,
                                             APIFlags.batchTimeout.spec, APIFlags.batchRetries.spec])
        }
        if arguments[QueueReplayFlags.includeStale] {
            try ModeFlags("--include-stale", reads: [], instead: [(QueueReplayFlags.maxAge.spec, "--include-stale sends events of any age")])
                .check(arguments, declared: [QueueReplayFlags.maxAge.spec])
        }
        let replay = ReplaySettings(batchSize: arguments[QueueReplayFlags.batchSize],
                                    concurrency: arguments[QueueReplayFlags.concurrency],
                                    rate: arguments[QueueReplayFlags.rate],
                                    maxAgeMilliseconds: arguments[QueueReplayFlags.maxAge],
                                    includeStale: arguments[QueueReplayFlags.includeStale],
                                    now: arguments[QueueReplayFlags.now] ?? io.clock.wallMilliseconds(),
                                    timeout: arguments[APIFlags.batchTimeout])
        let retries = arguments[APIFlags.batchRetries]
        let dryRun = arguments[QueueReplayFlags.dryRun]
        let paths = arguments.operands
        // The state directory sits beside the first PATH unless --state-dir says otherwise.
        var first = paths[0]
        while first.count > 1 && first.hasSuffix("/") { first.removeLast() }
        let stateDirectory = arguments[QueueReplayFlags.stateDir] ?? (first + ".appdna-replay")
        // A state directory that is something else is refused now (73), not when the journal is read.
        if let existing = try? io.files.status(path: stateDirectory, followingLinks: true), existing.kind != .directory {
            throw Failure(.cannotCreateOutput, "--state-dir \(stateDirectory) is \(existing.kindName), not a directory",
                          hint: "give --state-dir a directory, or a path where one can be made")
        }
        let deadLetterPath = arguments[QueueReplayFlags.deadLetter] ?? (stateDirectory + "/dead-letter.ndjson")
        // The queues are only ever read: dead letters appended to one would change what the device sends.
        if let queue = paths.first(where: { ByteIdentity.same($0, deadLetterPath) }) {
            throw Failure(.usage, "--dead-letter \(queue) is one of the queues to replay, which are only ever read",
                          hint: "leave --dead-letter out (the state directory holds the dead letters) or name another file")
        }

        // A dead-letter file given by name is checked now, before anything is sent: a FIFO
        // would block the run at its first refused event, a missing directory fail it then.
        if !dryRun { try OutputPaths.checkRegular(arguments[QueueReplayFlags.deadLetter], flag: "--dead-letter", io.files) }

        // Configuration (78) before any queue is read; a dry run does without a key.
        let keyFile = arguments[APIFlags.keyFile]
        let retryNotes = ReplayRetryNotes(verbose: invocation.options.verbose, style: invocation.options.stderrStyle)
        var key: APIKey? = nil
        var base = APIAccess.defaultAPIURL
        var client: HTTPClient? = nil
        if dryRun {
            key = try? APIAccess.key(keyFile: keyFile, environment: io.environment, files: io.files)
            base = (try? APIAccess.baseURL(io.environment)) ?? APIAccess.defaultAPIURL
        } else {
            key = try APIAccess.key(keyFile: keyFile, environment: io.environment, files: io.files)
            base = try APIAccess.baseURL(io.environment)
            client = try APIAccess.client(invocation, retries: retries, say: { line in retryNotes.say(line) })
        }
        return QueueReplayPlan(paths: paths, replay: replay, stateDirectory: stateDirectory, deadLetterPath: deadLetterPath,
                               json: arguments[QueueReplayFlags.json], dryRun: dryRun, yes: arguments[QueueReplayFlags.yes],
                               key: key, base: base, client: client, retryNotes: retryNotes)
    }
}

/// `--verbose` retry notes come from the engine's sending threads: once the run has a progress
/// bar, it steps aside for them.
final class ReplayRetryNotes: Sendable {
    let verbose: Bool
    let style: Styler
    private let bar = Locked<ProgressBar?>(nil)

    init(verbose: Bool, style: Styler) {
        self.verbose = verbose
        self.style = style
    }

    /// Where the notes go from now on.
    func show(on progress: ProgressBar) {
        bar.withLock { $0 = progress }
    }

    func say(_ line: String) {
        guard verbose, let progress = bar.withLock({ $0 }) else { return }
        progress.interject(style.apply(.dim, line))
    }
}
