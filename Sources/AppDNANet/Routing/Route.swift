/// One row of a server's route table: the methods, the path pattern with its typed segments,
/// the query parameters it takes, its guard and its body limit (both required), and its
/// answers. `Endpoint` is the server's own enum, so a handler switches over every endpoint and
/// the compiler names a forgotten one.
public struct Route<Endpoint: Sendable>: Sendable {
    public enum Segment: Sendable {
        /// This exact segment (compared by bytes, after percent-decoding).
        case literal(String)
        /// A typed value (`{id}`), checked as the parameter declares.
        case parameter(RouteParameterSpec)
        /// Whatever follows, any number of segments (a webhook URL's path): only as the last.
        case rest
    }

    /// What a route does with the query string.
    public enum Query: Sendable {
        /// Only these parameters, each at most once and checked; anything else is a 400.
        case declared([RouteParameterSpec])
        /// Not this server's to read (a webhook sender's URL, an SDK's request): passed on
        /// untouched, never interpreted.
        case notInterpreted
    }

    public let endpoint: Endpoint
    /// `GET` also answers `HEAD` (RFC 9110 §9.3.2), without a body.
    public let methods: [String]
    public let path: [Segment]
    public let query: Query
    /// Who may use it, checked at the head (no default: a row without one does not compile).
    public let guardedBy: RouteGuard
    /// Its body and the body's limit, applied at the head (no default either).
    public let body: RouteBody
    /// One line for the docs and the fuzzer's report.
    public let summary: String
    /// What it answers when served (the OpenAPI descriptions list them, with the refusals).
    public let answers: [RouteAnswer]

    public init(_ methods: [String], _ path: [Segment], query: Query = .declared([]), guard guardedBy: RouteGuard, body: RouteBody,
                _ endpoint: Endpoint, _ summary: String, answers: [RouteAnswer]) {
        precondition(!methods.isEmpty, "a route takes at least one method")
        if let last = path.indices.last {
            precondition(!path[..<last].contains { if case .rest = $0 { true } else { false } }, ".rest is only the last segment")
        }
        self.methods = methods
        self.path = path
        self.query = query
        self.guardedBy = guardedBy
        self.body = body
        self.endpoint = endpoint
        self.summary = summary
        self.answers = answers
    }

    /// The segments of a fixed path (`/api/v1/sdk/config-bundle`), each a literal.
    public static func literals(_ path: String) -> [Segment] {
        path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { .literal(String($0)) }
    }

    /// The methods a request may use, `HEAD` beside `GET`: what `Allow` lists.
    public var allowedMethods: [String] {
        methods.contains("GET") && !methods.contains("HEAD") ? methods + ["HEAD"] : methods
    }

    /// `/api/deliveries/{id}/replay`, `/{path…}`: the pattern as people read it.
    public var pattern: String {
        let parts = path.map { segment -> String in
            switch segment {
            case .literal(let text): return text
            case .parameter(let spec): return "{\(spec.name)}"
            case .rest: return "{path…}"
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// Every parameter this route checks: path segments, then the declared query.
    public var parameters: [RouteParameterSpec] {
        let inPath = path.compactMap { segment -> RouteParameterSpec? in
            if case .parameter(let spec) = segment { return spec }
            return nil
        }
        if case .declared(let specs) = query { return inPath + specs }
        return inPath
    }
}
