import AppDNACore

/// How many requests one command may send, retries included: `--retries N` allows N + 1 in
/// all, however many `HTTPClient.send` calls share it (`bundle fetch`'s version check and
/// download draw on the same budget), so a server that keeps failing sees at most N + 1
/// requests and messages count the requests really sent. Thread-safe.
public final class RetryBudget: @unchecked Sendable {
    public let maxRequests: Int
    private var sent = 0
    private let lock = PthreadLock()

    public init(retries: Int) {
        maxRequests = max(0, retries) + 1
    }

    /// Takes one request from the budget; false when none is left.
    func take() -> Bool {
        lock.locked {
            guard sent < maxRequests else { return false }
            sent += 1
            return true
        }
    }

    /// Requests sent so far.
    public var requestsSent: Int { lock.locked { sent } }

    public var isExhausted: Bool { requestsSent >= maxRequests }
}
