import AppDNACore
import AppDNAServers

/// `api serve`'s fault flags read into the library's `ServeFaults`: `--fail STATUS[:N]` is
/// checked here, where its wording names the flag.
extension ServeFaults {
    convenience init(fail: String?, after passes: Int = 0, retryAfter: Double?, latency: Double, maxEventBody: Int?) throws {
        guard let fail else {
            self.init(failStatus: nil, failures: nil, after: passes, retryAfter: retryAfter, latency: latency, maxEventBody: maxEventBody)
            return
        }
        let parts = fail.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let status = Int(parts[0]), (100...599).contains(status),
              parts.count == 1 || Int(parts[1]).map({ $0 >= 0 }) == true else {
            throw Failure(.usage, "--fail takes STATUS or STATUS:COUNT (503, 503:3), not '\(fail)'")
        }
        self.init(failStatus: status, failures: parts.count == 2 ? Int(parts[1])! : nil, after: passes, retryAfter: retryAfter, latency: latency,
                  maxEventBody: maxEventBody)
    }
}
