import AppDNACore

/// When to try again: 1 s, 2 s, 4 s (then doubling, at most 30 s) with ±25 % jitter, or what
/// the server's `Retry-After` says, capped at 120 s.
public struct RetryPolicy: Sendable {
    /// Retries after the first attempt (`--retries`).
    public var maxRetries: Int
    public var baseDelay: Double
    /// ±fraction of the delay, drawn uniformly.
    public var jitter: Double
    /// The longest `Retry-After` honoured.
    public var retryAfterCap: Double
    /// The longest exponential back-off, jitter included: many retries never add up to a wait
    /// that looks like a hang.
    public var backoffCap: Double

    public static let defaultBackoffCap = 30.0

    public init(maxRetries: Int = 3, baseDelay: Double = 1, jitter: Double = 0.25, retryAfterCap: Double = 120,
                backoffCap: Double = RetryPolicy.defaultBackoffCap) {
        self.maxRetries = maxRetries
        self.baseDelay = baseDelay
        self.jitter = jitter
        self.retryAfterCap = retryAfterCap
        self.backoffCap = backoffCap
    }

    /// The wait before the `retry`-th back-off (0 = the first; `HTTPClient` counts only the
    /// retries that backed off, not those a `Retry-After` timed). `unit` is a uniform draw in
    /// 0..<1 for the jitter. A server's `retryAfter` (seconds) replaces the backoff, capped.
    public func delay(beforeRetry retry: Int, retryAfter: Double?, unit: Double) -> Double {
        if let retryAfter { return min(max(retryAfter, 0), retryAfterCap) }
        let base = baseDelay * Double(1 << min(max(retry, 0), 20))
        return min(base * (1 + jitter * (2 * unit - 1)), backoffCap)
    }

    /// `Retry-After` in seconds from now: delta-seconds or an HTTP-date
    /// (`Sun, 06 Nov 1994 08:49:37 GMT`, also RFC 850 and asctime forms); nil when unreadable.
    public static func retryAfterSeconds(_ value: String, now: Int64 = SystemClock().wallMilliseconds() / 1000) -> Double? {
        let text = HeaderText.trimmed(value)
        if !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }) {
            return Double(text.prefix(12)) ?? nil
        }
        guard let date = httpDate(text) else { return nil }
        return Double(max(0, date - now))
    }

    /// Seconds since 1970 of an HTTP-date (RFC 9110 §5.6.7).
    public static func httpDate(_ text: String) -> Int64? {
        let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        var words = text.split(whereSeparator: { $0 == " " || $0 == "," }).map { String($0) }
        guard words.count >= 4 else { return nil }
        words.removeFirst()   // day name
        var day: Int?, month: Int?, year: Int?, clock: String?
        if words.count >= 4, let d = Int(words[0]), let m = months.firstIndex(of: words[1].lowercased()) {
            // IMF-fixdate: 06 Nov 1994 08:49:37 GMT
            day = d; month = m + 1; year = Int(words[2]); clock = words[3]
        } else if words.count >= 3, words[0].split(separator: "-").count == 3 {
            // RFC 850: 06-Nov-94 08:49:37 GMT
            let parts = words[0].split(separator: "-").map(String.init)
            day = Int(parts[0]); month = months.firstIndex(of: parts[1].lowercased()).map { $0 + 1 }
            year = Int(parts[2]).map { $0 < 100 ? ($0 < 70 ? 2000 + $0 : 1900 + $0) : $0 }
            clock = words[1]
        } else if words.count >= 4, let m = months.firstIndex(of: words[0].lowercased()) {
            // asctime: Nov  6 08:49:37 1994
            month = m + 1; day = Int(words[1]); clock = words[2]; year = Int(words[3])
        }
        guard let day, let month, let year, let clock, (1...31).contains(day) else { return nil }
        let hms = clock.split(separator: ":").compactMap { Int($0) }
        guard hms.count == 3, hms[0] < 24, hms[1] < 60, hms[2] <= 60 else { return nil }
        let days = Timestamp.daysFromCivil(year: year, month: month, day: day)
        return Int64(days) * 86400 + Int64(hms[0] * 3600 + hms[1] * 60 + hms[2])
    }
}
