import AppDNACore

/// A failed request, classified for the caller (and for the retry loop: `retryable`).
/// Messages name the host and what happened, never a header value.
public struct HTTPError: ClassifiedError, Sendable {
    public var kind: FailureKind
    public var message: String
    public var hint: String?
    /// Whether another attempt may succeed (network errors, 5xx, 408, 429).
    public var retryable: Bool
    /// True when the overall deadline ended the request (not a connect timeout of one attempt).
    public var deadlineExpired: Bool
    /// The response that caused the error, when there was one.
    public var status: Int?

    public init(_ kind: FailureKind, _ message: String, hint: String? = nil, retryable: Bool = false,
                deadlineExpired: Bool = false, status: Int? = nil) {
        self.kind = kind
        self.message = message
        self.hint = hint
        self.retryable = retryable
        self.deadlineExpired = deadlineExpired
        self.status = status
    }
}

/// What a status means for a client of the AppDNA API.
public enum HTTPStatus {
    /// 5xx, 408 and 429: the server may answer differently later.
    public static func isRetryable(_ status: Int) -> Bool {
        status == 408 || status == 429 || (500...599).contains(status)
    }

    /// The error for a final non-2xx response: 401/403 → permission denied (77), 408/429/503/504
    /// → temporary (75), other 5xx and 404 → unavailable (69). `what` names the request
    /// ("GET https://api.appdna.ai/api/v1/sdk/config-bundle").
    public static func error(for response: HTTPResponse, what: String) -> HTTPError {
        let status = response.status
        var detail = "\(what): \(response.statusText)"
        if response.attempts > 1 { detail += " after \(response.attempts) attempts" }
        switch status {
        case 401, 403:
            var message = detail + ": the server rejected the API key"
            if let challenge = response.header("WWW-Authenticate"), !challenge.isEmpty {
                message += " (WWW-Authenticate: \(challenge.prefix(200)))"
            }
            return HTTPError(.permissionDenied, message,
                             hint: "check that APPDNA_SDK_KEY (or --key-file) holds a current SDK key of this app", status: status)
        case 408, 429, 503, 504:
            return HTTPError(.temporary, detail, hint: "the service is busy or briefly down; retrying later may work", status: status)
        case 404:
            return HTTPError(.unavailable, detail + ": not found", hint: "check APPDNA_API_URL", status: status)
        default:
            return HTTPError(.unavailable, detail, status: status)
        }
    }
}
