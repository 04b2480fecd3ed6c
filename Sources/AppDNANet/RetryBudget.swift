import AppDNACore

/// The retries one command may make, `--retries N` in all, however many `HTTPClient.send`
/// calls share it (`bundle fetch`'s version check and download draw on the same budget).
/// A first attempt never draws on it: a healthy server always gets every request the command
/// needs, and a server that keeps failing sees at most N + 1 requests (the first attempt of the
/// request that failed first, then the N retries). Thread-safe (`queue replay` sends from
/// several threads).
public final class RetryBudget: Sendable {
    /// N of `--retries N`.
    public let retriesAllowed: Int
    /// Retries taken so far.
    private let used = Locked(0)

    /// False for the budget `HTTPClient.send` makes for one request when none is shared (a
    /// `queue replay` batch, `webhook trigger`): its attempts already say everything.
    let isShared: Bool

    public convenience init(retries: Int) {
        self.init(retries: retries, shared: true)
    }

    init(retries: Int, shared: Bool) {
        retriesAllowed = max(0, retries)
        isShared = shared
    }

    /// Takes one retry; false when the command has none left.
    func takeRetry() -> Bool {
        used.withLock { used in
            guard used < retriesAllowed else { return false }
            used += 1
            return true
        }
    }

    /// Retries taken so far by all the command's requests.
    public var retriesUsed: Int { used.withLock { $0 } }

    /// True once every retry is used: a command stops rather than start another request that
    /// could not be retried (`bundle fetch` after a failed version check).
    public var isExhausted: Bool { retriesUsed >= retriesAllowed }

    /// "the command used 1 of its 3 retries": said when a request gives up; nil when the budget
    /// is the request's own or allows no retry.
    public var usageText: String? {
        guard isShared, retriesAllowed > 0 else { return nil }
        return "the command used \(retriesUsed) of its \(retriesAllowed) retr\(retriesAllowed == 1 ? "y" : "ies")"
    }
}
