import AppDNACore

/// The faults `api serve` injects, from its flags: `--fail STATUS[:N]` (N requests, or all of
/// them, after the first `--fail-after`, get STATUS, with `--retry-after`), `--latency` before every answer, and
/// `--status-413-over SIZE` for event batches. One counter for every endpoint, so `--fail 503:2`
/// means "the next two requests fail, whatever they ask". (The CLI reads the flags:
/// `ServeFaults+Flags.swift`.)
public final class ServeFaults: Sendable {
    public let failStatus: Int?
    private let counts: Locked<Counts>

    private struct Counts {
        /// nil: every request.
        var failuresLeft: Int?
        /// Requests still to be served before the failures start.
        var passesLeft: Int
    }
    public let retryAfter: Double?
    public let latency: Double
    public let maxEventBody: Int?

    /// `failStatus` answers `failures` requests (nil: every one) once `passes` were served; nil fails none.
    public init(failStatus: Int?, failures: Int?, after passes: Int = 0, retryAfter: Double?, latency: Double, maxEventBody: Int?) {
        self.failStatus = failStatus
        counts = Locked(Counts(failuresLeft: failures, passesLeft: passes))
        self.retryAfter = retryAfter
        self.latency = latency
        self.maxEventBody = maxEventBody
    }

    /// The status this request must fail with, counting it; nil to serve it.
    func takeFailure() -> Int? {
        guard let failStatus else { return nil }
        return counts.withLock { counts -> Int? in
            if counts.passesLeft > 0 {
                counts.passesLeft -= 1
                return nil
            }
            guard let left = counts.failuresLeft else { return failStatus }
            guard left > 0 else { return nil }
            counts.failuresLeft = left - 1
            return failStatus
        }
    }

    /// Retry-After as whole seconds (rounded up), the header's only form besides a date.
    var retryAfterHeader: [(name: String, value: String)] {
        retryAfter.map { [("Retry-After", String(Int($0.rounded(.up))))] } ?? []
    }

    func waitLatency() {
        guard latency > 0 else { return }
        SystemTime.sleep(latency)
    }
}
