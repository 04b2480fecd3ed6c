import AppDNACore

/// What a replay is asked to do, from the command's flags (validated by the CLI).
public struct ReplaySettings: Sendable {
    /// Events per request (`--batch-size`).
    public var batchSize = 20
    /// Requests in flight at once (`--concurrency`).
    public var concurrency = 1
    /// Events per second at most (`--rate`), or nil.
    public var rate: Double?
    /// Events older than this before `now` are skipped unless `includeStale`.
    public var maxAgeMilliseconds: Int64 = 7 * 86_400_000
    public var includeStale = false
    /// The time `maxAgeMilliseconds` is measured from (milliseconds since 1970).
    public var now: Int64 = 0
    /// Bound on one batch, retries included (`--timeout`).
    public var timeout = 600.0

    public init() {}

    /// The classifier both passes use: the same decisions when planning and when sending.
    func classifier(journal: ReplayJournal) -> ReplayClassifier {
        ReplayClassifier(now: now, maxAgeMilliseconds: maxAgeMilliseconds, includeStale: includeStale, journal: journal)
    }
}
