import AppDNACore

/// A failed request, classified for the caller (and for the retry loop: `retryable`).
/// Messages name the host and what happened, never a header value.
public struct HTTPError: ClassifiedError, Sendable {
    public var kind: FailureKind
    public var message: String
    public var hint: String?
    public var remedy: Remedy?
    /// When what failed is a setting of the command's (the request budget, the listening address).
    public var settingFact: SettingFact?
    /// Whether another attempt may succeed (network errors, 5xx, 408, 429).
    public var retryable: Bool
    /// True when the overall deadline ended the request (not a connect timeout of one attempt).
    public var deadlineExpired: Bool
    /// The response that caused the error, when there was one.
    public var status: Int?

    public init(_ kind: FailureKind, _ message: String, hint: String? = nil, remedy: Remedy? = nil, retryable: Bool = false,
                deadlineExpired: Bool = false, status: Int? = nil, settingFact: SettingFact? = nil) {
        self.settingFact = settingFact
        self.kind = kind
        self.message = message
        self.hint = hint
        self.remedy = remedy
        self.retryable = retryable
        self.deadlineExpired = deadlineExpired
        self.status = status
    }

    /// A failure of Core's (a library that cannot be loaded, a file that cannot be read) as
    /// an error of the HTTP layer: not retryable, no response.
    public init(_ failure: Failure) {
        self.init(failure.kind, failure.message, hint: failure.hint, remedy: failure.remedy, settingFact: failure.settingFact)
    }

    /// Runs Core work that fails with a `Failure` (loading a library, reading a file) as work
    /// of the HTTP layer.
    static func lifting<T>(_ body: () throws(Failure) -> T) throws(HTTPError) -> T {
        do { return try body() } catch { throw HTTPError(error) }
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
        if let usage = response.retryUsage { detail += " (\(usage))" }
        let host = HTTPURL(response.url).map(\.hostAndPort) ?? HTTPURL(what.split(separator: " ").last.map(String.init) ?? "")?.hostAndPort ?? "the server"
        switch status {
        case 401:
            var message = detail + ": \(host) rejected the API key"
            if let challenge = response.header("WWW-Authenticate"), !challenge.isEmpty {
                message += " (WWW-Authenticate: \(challenge.prefix(200)))"
            }
            return HTTPError(.permissionDenied, message,
                             remedy: .currentAPIKey(orNetworkBlockedFrom: nil), status: status)
        case 403:
            // A firewall, CDN or proxy in front of the API answers 403 too: say both.
            return HTTPError(.permissionDenied, detail + ": \(host) refused the request: the API key, or an access rule (firewall, CDN, proxy) in front of the API",
                             remedy: .currentAPIKey(orNetworkBlockedFrom: host),
                             status: status)
        case 408, 429, 503, 504:
            return HTTPError(.temporary, detail, hint: "the service is busy or briefly down; retrying later may work", status: status)
        case 404:
            return HTTPError(.unavailable, detail + ": there is no AppDNA API at this address", hint: "check APPDNA_API_URL", status: status)
        default:
            return HTTPError(.unavailable, detail, status: status)
        }
    }
}

extension HTTPStatus {
    /// The standard reason phrase of `status` (RFC 9110 and friends), "" for an unknown one.
    /// Messages use it rather than the phrase received: HTTP/2 sends none, and proxies send
    /// their own, so the same status reads the same whatever the connection.
    public static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: return "Continue"
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 204: return "No Content"
        case 206: return "Partial Content"
        case 300: return "Multiple Choices"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 303: return "See Other"
        case 304: return "Not Modified"
        case 307: return "Temporary Redirect"
        case 308: return "Permanent Redirect"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 402: return "Payment Required"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 406: return "Not Acceptable"
        case 407: return "Proxy Authentication Required"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 410: return "Gone"
        case 411: return "Length Required"
        case 412: return "Precondition Failed"
        case 413: return "Content Too Large"
        case 414: return "URI Too Long"
        case 415: return "Unsupported Media Type"
        case 416: return "Range Not Satisfiable"
        case 417: return "Expectation Failed"
        case 421: return "Misdirected Request"
        case 422: return "Unprocessable Content"
        case 425: return "Too Early"
        case 426: return "Upgrade Required"
        case 428: return "Precondition Required"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 451: return "Unavailable For Legal Reasons"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        case 505: return "HTTP Version Not Supported"
        case 507: return "Insufficient Storage"
        case 511: return "Network Authentication Required"
        default: return ""
        }
    }
}
