import AppDNACore

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
    /// Waits between attempts; tests pass one that records instead of sleeping.
    public var sleep: @Sendable (Double) -> Void
    /// A uniform draw in 0..<1 for the jitter.
    public var random: @Sendable () -> Double
    public var onRetry: @Sendable (RetryNotice) -> Void
    public var maxRedirects = 5
    /// False returns a 3xx response as it is (`webhook listen` relays it to the sender).
    public var followsRedirects = true

    public init(transport: any HTTPTransport = CurlTransport(), policy: RetryPolicy = RetryPolicy(),
                sleep: @escaping @Sendable (Double) -> Void = HTTPClient.realSleep,
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
                onRetry: @escaping @Sendable (RetryNotice) -> Void = { _ in }) {
        self.transport = transport
        self.policy = policy
        self.sleep = sleep
        self.random = random
        self.onRetry = onRetry
    }

    public static let realSleep: @Sendable (Double) -> Void = { seconds in
        guard seconds > 0 else { return }
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        var left = timespec()
        while nanosleep(&request, &left) != 0 && errno == EINTR { request = left }
    }

    /// Sends `request`, retrying network errors, 5xx, 408 and 429 up to `policy.maxRetries`
    /// times while the deadline allows, and following redirects to the same host. Returns the
    /// final response whatever its status (see `HTTPStatus.error(for:what:)`); throws when no
    /// response came. 401 and 403 are returned at once, never retried.
    public func send(_ request: HTTPRequest, deadline: Deadline) throws(HTTPError) -> HTTPResponse {
        var current = request
        var attempt = 0
        var redirects = 0
        while true {
            attempt += 1
            var response: HTTPResponse
            do {
                response = try transport.perform(current, deadline: deadline)
            } catch {
                var failure = error
                guard failure.retryable, !failure.deadlineExpired, attempt <= policy.maxRetries else {
                    if attempt > 1 { failure.message += " (after \(attempt) attempts)" }
                    throw failure
                }
                let delay = policy.delay(beforeRetry: attempt - 1, retryAfter: nil, unit: random())
                guard delay < deadline.remaining else {
                    failure.message += " (\(attempt) attempt\(attempt == 1 ? "" : "s"); no time left for another within the \(deadline.budgetText) timeout)"
                    throw failure
                }
                onRetry(RetryNotice(attempt: attempt, delay: delay, reason: failure.message))
                sleep(delay)
                continue
            }
            response.attempts = attempt
            if (300...399).contains(response.status), response.status != 304, let target = response.redirectURL {
                guard followsRedirects else { return response }
                try checkRedirect(from: current.url, to: target, status: response.status)
                redirects += 1
                guard redirects <= maxRedirects else {
                    throw HTTPError(.unavailable, "\(HTTPURL(request.url)?.hostAndPort ?? request.url): more than \(maxRedirects) redirects")
                }
                current.url = target
                attempt -= 1
                continue
            }
            guard HTTPStatus.isRetryable(response.status), attempt <= policy.maxRetries else { return response }
            let retryAfter = response.header("Retry-After").flatMap { RetryPolicy.retryAfterSeconds($0) }
            let delay = policy.delay(beforeRetry: attempt - 1, retryAfter: retryAfter, unit: random())
            guard delay < deadline.remaining else { return response }
            onRetry(RetryNotice(attempt: attempt, delay: delay, reason: response.statusText))
            sleep(delay)
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
