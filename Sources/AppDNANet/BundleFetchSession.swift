import AppDNACore

/// The conversation `bundle fetch` has with the API, beside its description (`AppDNAAPI`): one
/// deadline and one retry budget for the whole command, shared by the version check and the
/// download, and each step's answer as a typed outcome. The command decides what to do with
/// an answer (and words it with its flags); the requests, which failures are final and when
/// the budget makes one final, are here.
public struct BundleFetchSession: Sendable {
    public let api: AppDNAAPI
    public let deadline: Deadline
    /// One budget of requests for the whole command (retries + 1), shared by every request.
    public let budget: RetryBudget

    public init(api: AppDNAAPI, deadline: Deadline, budget: RetryBudget) {
        self.api = api
        self.deadline = deadline
        self.budget = budget
    }

    /// GET `path` under the base URL, retried by the policy, within the deadline, on the budget.
    public func get(_ path: String) throws(HTTPError) -> HTTPResponse {
        try api.get(path, deadline: deadline, budget: budget)
    }

    /// What the version endpoint said, when asked whether a file is up to date.
    public enum VersionAnswer: Sendable {
        /// The live bundle_version.
        case version(Int64)
        /// An answer without one (a status other than 2xx, or not JSON with an integer
        /// bundle_version): not final, the bundle is downloaded.
        case unusable(statusText: String)
        /// No answer (a network error): not final, the bundle is downloaded.
        case failed(HTTPError)
    }

    /// Asks GET /version whether a file is up to date. Never final, except for a rejected key
    /// (401/403), a spent deadline, and a server that kept failing until the budget was spent
    /// (the download would only fail again).
    public func versionForUpdate() throws(HTTPError) -> VersionAnswer {
        func giveUp(_ error: HTTPError) -> HTTPError? {
            // The server kept failing and the command's requests (the retry budget) are spent.
            budget.isExhausted ? error : nil
        }
        let url = api.url(AppDNAAPI.bundleVersionPath)
        do throws(HTTPError) {
            let response = try get(AppDNAAPI.bundleVersionPath)
            if response.status == 401 || response.status == 403 {
                throw HTTPStatus.error(for: response, what: "GET \(url)")
            }
            if (200...299).contains(response.status), let document = try? JSONDocument(bytes: response.body),
               let remote = document.root["bundle_version"]?.int64 {
                return .version(remote)
            }
            if HTTPStatus.isRetryable(response.status), let error = giveUp(HTTPStatus.error(for: response, what: "GET \(url)")) {
                throw error
            }
            return .unusable(statusText: response.statusText)
        } catch where error.kind != .permissionDenied && !error.deadlineExpired {
            if let error = giveUp(error) { throw error }
            return .failed(error)
        }
    }

    /// The live bundle_version, for a check that compares (`bundle fetch --check`): any
    /// answer without one is final (69/75/77).
    public func liveVersion() throws -> Int64 {
        let url = api.url(AppDNAAPI.bundleVersionPath)
        let response = try get(AppDNAAPI.bundleVersionPath)
        guard (200...299).contains(response.status) else { throw HTTPStatus.error(for: response, what: "GET \(url)") }
        guard let document = try? JSONDocument(bytes: response.body), let live = document.root["bundle_version"]?.int64 else {
            throw Failure(.unavailable, "GET \(url): the response is not JSON with an integer bundle_version")
        }
        return live
    }

    /// The live bundle's response; a status other than 2xx is final (77 for 401/403, else 69/75).
    public func downloadBundle() throws(HTTPError) -> HTTPResponse {
        let response = try get(AppDNAAPI.bundlePath)
        guard (200...299).contains(response.status) else {
            throw HTTPStatus.error(for: response, what: "GET \(api.url(AppDNAAPI.bundlePath))")
        }
        return response
    }
}
