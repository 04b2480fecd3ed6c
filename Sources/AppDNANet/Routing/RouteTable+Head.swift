import AppDNACore

/// A server's one decision about a request, made when its head is complete (see
/// `HTTPServer.Admission`): the route and method (404, 405, 400 for a parameter), the row's
/// guard (its status), and the row's body limit against a declared Content-Length (413). Only
/// then is a byte of the body read.
public enum HeadDecision<Endpoint: Sendable>: Sendable {
    /// Read a body of at most `maxBodyBytes`, then serve `match`.
    case admit(RouteMatch<Endpoint>, maxBodyBytes: Int)
    /// Answer the refusal; `route` is the row it concerns, nil when no row matched.
    case refuse(RouteRefusal, route: Route<Endpoint>?)
}

extension RouteTable {
    /// Decides `head` for a server whose own body limit is `serverLimit`, checking guards with `guards`.
    public func decide(_ head: RawHTTPRequest.Head, guards: RouteGuards, serverLimit: Int) -> HeadDecision<Endpoint> {
        let match: RouteMatch<Endpoint>
        switch resolve(method: head.method, target: head.target) {
        case .success(let found): match = found
        case .failure(let refusal): return .refuse(refusal, route: nil)
        }
        let route = match.route
        if let why = guards.refusal(route.guardedBy, head) {
            return .refuse(RouteRefusal(status: route.guardedBy.refusalStatus ?? 403, message: why), route: route)
        }
        let limit = route.body.maxBytes(serverLimit: serverLimit)
        if case .contentLength(let length) = head.framing, length > limit {
            let words = limit == 0 ? "\(match.path) takes no body" : "\(match.path) takes at most \(NumberText.binarySize(limit))"
            return .refuse(RouteRefusal(status: 413, message: "the body (\(length) bytes) is too large: \(words)"), route: route)
        }
        return .admit(match, maxBodyBytes: limit)
    }
}
