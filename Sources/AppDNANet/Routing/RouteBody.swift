/// What a route's request body may be, and how large: every row declares it (there is no
/// default). The server applies the limit when the head is complete: a Content-Length over it
/// is answered 413 before a byte of the body is read, a chunked body as soon as it passes it.
public enum RouteBody: Sendable {
    /// No body: a request with one byte of body is 413.
    case empty
    /// At most this many bytes, of this content.
    case upTo(Int, RouteContent)
    /// Up to the server's own limit (`webhook listen --max-body`), of this content.
    case serverLimit(RouteContent)

    /// The largest body, given the server's own limit.
    public func maxBytes(serverLimit limit: Int) -> Int {
        switch self {
        case .empty: return 0
        case .upTo(let bytes, _): return min(bytes, limit)
        case .serverLimit: return limit
        }
    }

    public var content: RouteContent? {
        switch self {
        case .empty: return nil
        case .upTo(_, let content), .serverLimit(let content): return content
        }
    }
}

/// A body's media type and the JSON Schema in `docs/schemas/` it follows (the OpenAPI
/// descriptions reference it).
public struct RouteContent: Sendable, Equatable {
    public let mediaType: String
    /// A file of `docs/schemas/` (`inspector-deliveries.schema.json`); nil: any bytes of the type.
    public let schema: String?
    /// As a request body: whether a request must have one (an edited replay's is optional).
    public let required: Bool

    public init(_ mediaType: String, schema: String?, required: Bool = true) {
        self.mediaType = mediaType
        self.schema = schema
        self.required = required
    }

    /// JSON following `schema`.
    public static func json(_ schema: String) -> RouteContent { RouteContent("application/json", schema: schema) }
}

/// An answer a route gives when it is served (the refusals every row can get — 400 for a
/// parameter, 401/403 for its guard, 404, 405, 413 — are derived from the row itself).
public struct RouteAnswer: Sendable {
    public let status: Int
    public let summary: String
    public let content: RouteContent?
    /// Requests this answer leads to (OpenAPI links: what schemathesis's stateful phase follows).
    public let links: [RouteLink]

    public init(_ status: Int, _ summary: String, _ content: RouteContent? = nil, links: [RouteLink] = []) {
        self.status = status
        self.summary = summary
        self.content = content
        self.links = links
    }
}

/// A request an answer leads to: the endpoint (its OpenAPI operationId is the endpoint's name)
/// and where its parameters come from (`$request.path.kind`, `$response.body#/deliveries/0/id`).
public struct RouteLink: Sendable {
    public let name: String
    public let operation: String
    public let parameters: [(name: String, expression: String)]

    public init(_ name: String, to endpoint: some Sendable, _ parameters: [(name: String, expression: String)]) {
        self.name = name
        operation = String(describing: endpoint)
        self.parameters = parameters
    }
}
