import AppDNACore

/// Who may use a route: every row of a table declares one (there is no default, so a new row
/// cannot be open by forgetting), and the server checks it when the request's head is complete,
/// before its body is read. Each guard is refused with one status, the same in every server and
/// in the OpenAPI descriptions (a security scheme each).
public enum RouteGuard: Sendable, Equatable, CaseIterable {
    /// Anyone who reaches the server.
    case open
    /// The SDK's API key in `x-api-key`, exactly once (`api serve`): 401 without it, with one
    /// the server was not given, or with two.
    case sdkAPIKey
    /// The inspector page's per-run token in `X-AppDNA-Inspector-Token`, exactly once, and at
    /// most one `Origin`, the inspector's own (an action: replay, override, refetch): 403 otherwise.
    case inspectorToken

    /// The status a request this guard refuses is answered with (nil: it refuses none).
    public var refusalStatus: Int? {
        switch self {
        case .open: return nil
        case .sdkAPIKey: return 401
        case .inspectorToken: return 403
        }
    }

    /// The header that carries the credential.
    public var header: String? {
        switch self {
        case .open: return nil
        case .sdkAPIKey: return "x-api-key"
        case .inspectorToken: return "X-AppDNA-Inspector-Token"
        }
    }
}

/// How a server checks the guards its rows declare: for each, why a head is refused (nil: it
/// passes). A guard the server has no check for refuses every request (it fails closed).
public struct RouteGuards: Sendable {
    public typealias Check = @Sendable (RawHTTPRequest.Head) -> String?
    public var sdkAPIKey: Check?
    public var inspectorToken: Check?

    public init(sdkAPIKey: Check? = nil, inspectorToken: Check? = nil) {
        self.sdkAPIKey = sdkAPIKey
        self.inspectorToken = inspectorToken
    }

    /// Why `head` does not pass `guarded` (nil: it does).
    public func refusal(_ guarded: RouteGuard, _ head: RawHTTPRequest.Head) -> String? {
        let check: Check?
        switch guarded {
        case .open: return nil
        case .sdkAPIKey: check = sdkAPIKey
        case .inspectorToken: check = inspectorToken
        }
        guard let check else { return "this server has no check for \(guarded.header ?? "this guard"): refused" }
        return check(head)
    }

    /// Whether `head` carries `name` more than once: a repeated credential or `Origin` is
    /// refused by every guard (which one would a proxy or a browser have meant?).
    public static func isRepeated(_ name: String, in head: RawHTTPRequest.Head) -> Bool {
        HeaderName.all(name, in: head.headers, nameOf: \.name).count > 1
    }
}
