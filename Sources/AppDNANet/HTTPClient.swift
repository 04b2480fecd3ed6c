import AppDNACore
import CCurlLoader

/// Requests with retries, `Retry-After`, same-host redirects and one deadline for everything.
public struct HTTPClient: Sendable {
    /// Something to say between attempts (the CLI prints it with --verbose).
    public struct RetryNotice: Sendable {
        public var attempt: Int
        public var delay: Double
        public var reason: String
    }

    public var transport: any HTTPTransport
    public var policy: RetryPolicy
    /// Waits between attempts and dates Retry-After; tests pass a virtual one that records
    /// instead of sleeping.
    public var clock: any Clock
    /// A uniform draw in 0..<1 for the jitter.
    public var random: @Sendable () -> Double
    public var onRetry: @Sendable (RetryNotice) -> Void
    public var maxRedirects = 5
    /// False returns a 3xx response as it is (`webhook listen` relays it to the sender).
    public var followsRedirects = true

    public init(transport: any HTTPTransport = CurlTransport(), policy: RetryPolicy = RetryPolicy(),
                clock: any Clock = SystemClock(),
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
                onRetry: @escaping @Sendable (RetryNotice) -> Void = { _ in }) {
        self.transport = transport
        self.policy = policy
        self.clock = clock
        self.random = random
        self.onRetry = onRetry
    }

    /// Sends `request`, retrying network errors, 5xx, 408 and 429 while `budget` has retries
    /// left (a budget of its own, `policy.maxRetries`, when nil) and the deadline allows, and
    /// following redirects to the same host. The first attempt is always made. Returns the
    /// final response whatever its status (see `HTTPStatus.error(for:what:)`); throws when no
    /// response came. 401 and 403 are returned at once, never retried. A response's `attempts`
    /// and the "after N attempts" of errors count this request's attempts; a request that gives
    /// up also says how many retries the whole command used.
    public func send(_ request: HTTPRequest, deadline: Deadline, budget: RetryBudget? = nil) throws(HTTPError) -> HTTPResponse {
        let budget = budget ?? RetryBudget(retries: policy.maxRetries, shared: false)
        var current = request
        var redirects = 0
        var attempts = 1
        // Only the retries that backed off grow the back-off: answers with Retry-After do not.
        var backoffs = 0
        while true {
            var response: HTTPResponse
            do {
                response = try transport.perform(current, deadline: deadline)
            } catch {
                var failure = error
                guard failure.retryable, !failure.deadlineExpired else {
                    // A failure no retry could mend: the retries are worth a word only when
                    // this request made some.
                    if attempts > 1 { failure.message += Self.givingUp(attempts: attempts, budget) }
                    throw failure
                }
                let delay = policy.delay(beforeRetry: backoffs, retryAfter: nil, unit: random())
                guard delay < deadline.remaining else {
                    failure.message += " (\(attempts) attempt\(attempts == 1 ? "" : "s"); no time left for another within the \(deadline.budgetText) timeout)"
                    throw failure
                }
                guard budget.takeRetry() else {
                    failure.message += Self.givingUp(attempts: attempts, budget)
                    throw failure
                }
                backoffs += 1
                onRetry(RetryNotice(attempt: attempts, delay: delay, reason: failure.message))
                try pause(delay)
                attempts += 1
                continue
            }
            response.attempts = attempts
            if (300...399).contains(response.status), response.status != 304, let target = response.redirectURL {
                guard followsRedirects else { return response }
                try checkRedirect(from: current.url, to: target, status: response.status)
                redirects += 1
                guard redirects <= maxRedirects else {
                    throw HTTPError(.unavailable, "\(HTTPURL(request.url)?.hostAndPort ?? request.url): more than \(maxRedirects) redirects")
                }
                current.url = target
                continue
            }
            guard HTTPStatus.isRetryable(response.status) else { return response }
            let now = clock.wallMilliseconds() / 1000
            let retryAfter = response.header("Retry-After").flatMap { RetryPolicy.retryAfterSeconds($0, now: now) }
            let delay = policy.delay(beforeRetry: backoffs, retryAfter: retryAfter, unit: random())
            guard delay < deadline.remaining, budget.takeRetry() else {
                response.retryUsage = budget.usageText
                return response
            }
            if retryAfter == nil { backoffs += 1 }
            onRetry(RetryNotice(attempt: response.attempts, delay: delay, reason: response.statusText))
            try pause(delay)
            attempts += 1
        }
    }

    /// " (after 2 attempts; the command used 3 of its 3 retries)", or less when there is less
    /// to say (one attempt, a budget of the request's own).
    static func givingUp(attempts: Int, _ budget: RetryBudget) -> String {
        let parts = (attempts > 1 ? ["after \(attempts) attempts"] : []) + [budget.usageText].compactMap { $0 }
        return parts.isEmpty ? "" : " (" + parts.joined(separator: "; ") + ")"
    }

    /// Waits between attempts; a SIGINT/SIGTERM during the wait ends the request.
    private func pause(_ seconds: Double) throws(HTTPError) {
        clock.sleep(seconds)
        let signal = Interruption.signal
        if signal != 0 {
            throw Interruption.error(signal)
        }
    }

    func checkRedirect(from: String, to: String, status: Int) throws(HTTPError) {
        guard let source = HTTPURL(from) else { return }
        guard let target = HTTPURL(to) else {
            throw HTTPError(.unavailable, "\(source.hostAndPort): HTTP \(status) redirects to something that is not an http(s) URL")
        }
        guard source.isSameHost(as: target) else {
            throw HTTPError(.unavailable, "\(source.hostAndPort): HTTP \(status) redirects to another host (\(target.hostAndPort)); not followed, so the API key is not sent there",
                            hint: "if the API moved, set APPDNA_API_URL to its new address")
        }
    }
}
