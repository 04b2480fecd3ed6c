import AppDNACore

/// What a replay is asked to do, from the command's flags (validated by the CLI). No defaults
/// here: they are the flags' (`QueueReplayFlags`, `APIFlags.batchTimeout`), written once there.
public struct ReplaySettings: Sendable {
    /// Events per request (`--batch-size`).
    public var batchSize: Int
    /// Requests in flight at once (`--concurrency`).
    public var concurrency: Int
    /// Events per second at most (`--rate`), or nil.
    public var rate: Double?
    /// Events older than this before `now` are skipped unless `includeStale` (`--max-age`).
    public var maxAgeMilliseconds: Int64
    public var includeStale: Bool
    /// The time `maxAgeMilliseconds` is measured from (milliseconds since 1970; `--now`).
    public var now: Int64
    /// Bound on one batch, retries included (`--timeout`).
    public var timeout: Double

    public init(batchSize: Int, concurrency: Int, rate: Double?, maxAgeMilliseconds: Int64, includeStale: Bool,
                now: Int64, timeout: Double) {
        self.batchSize = batchSize
        self.concurrency = concurrency
        self.rate = rate
        self.maxAgeMilliseconds = maxAgeMilliseconds
        self.includeStale = includeStale
        self.now = now
        self.timeout = timeout
    }

    /// The classifier both passes use: the same decisions when planning and when sending.
    func classifier(journal: ReplayJournal) -> ReplayClassifier {
        ReplayClassifier(now: now, maxAgeMilliseconds: maxAgeMilliseconds, includeStale: includeStale, journal: journal)
    }
}
