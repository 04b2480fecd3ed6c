import AppDNACore

/// A server's OpenAPI 3.1 description, generated from its route table: each row's path (typed
/// segments as path parameters), methods (`GET` with its `HEAD`), declared query parameters with
/// their types and ranges, request body (media type, the `docs/schemas/` file it follows),
/// answers, and guard (a security scheme). The refusals every row can get are derived from the
/// row: 400 (a malformed request or a parameter outside its range), its guard's status, 413
/// (a body over its limit). Committed under `docs/openapi/` and served by each inspector; a
/// test fails when a table and its committed description differ.
public struct OpenAPIDescription: Sendable {
    public let title: String
    public let summary: String
    /// How the server words a refusal (`{"error": …}` JSON, or plain text).
    public let refusal: RouteContent
    /// Where the `docs/schemas/` files are, relative to the description (`../schemas/`).
    public let schemaBase: String

    public init(title: String, summary: String, refusal: RouteContent, schemaBase: String = "../schemas/") {
        self.title = title
        self.summary = summary
        self.refusal = refusal
        self.schemaBase = schemaBase
    }

    /// The description of `table`.
    public func document<Endpoint>(_ table: RouteTable<Endpoint>) -> JSONValue {
        var order: [String] = []
        var items: [String: JSONObject] = [:]
        var schemes: [RouteGuard] = []
        for route in table.routes {
            let path = Self.path(route)
            if items[path] == nil { order.append(path) }
            var item = items[path] ?? JSONObject()
            for method in route.allowedMethods {
                item[method.lowercased()] = .object(operation(route, method: method))
            }
            items[path] = item
            if route.guardedBy != .open && !schemes.contains(route.guardedBy) { schemes.append(route.guardedBy) }
        }
        let paths = JSONObject(order.map { ($0, JSONValue.object(items[$0]!)) })
        var document: JSONObject = ["openapi": "3.1.0",
                                    "info": ["title": .string(title), "version": "1", "description": .string(summary)]]
        document["paths"] = .object(paths)
        var security = JSONObject()
        for guarded in RouteGuard.allCases where schemes.contains(guarded) {
            security[Self.schemeName(guarded)] = Self.scheme(guarded)
        }
        if !security.isEmpty { document["components"] = ["securitySchemes": .object(security)] }
        return .object(document)
    }

    /// `/api/deliveries/{id}`; `.rest` is one `{path}` parameter.
    static func path<Endpoint>(_ route: Route<Endpoint>) -> String {
        let parts = route.path.map { segment -> String in
            switch segment {
            case .literal(let text): return text
            case .parameter(let spec): return "{\(spec.name)}"
            case .rest: return "{path}"
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    private func operation<Endpoint>(_ route: Route<Endpoint>, method: String) -> JSONObject {
        // One id per operation: a row of several methods (GET and POST) names each after the
        // first by its method; HEAD, which every GET row also answers, is the GET's id + Head.
        let firstMethod = route.methods.first ?? method
        let suffix = method == "HEAD" ? "Head" : method == firstMethod ? "" : method.prefix(1) + method.dropFirst().lowercased()
        var operation: JSONObject = ["operationId": .string("\(String(describing: route.endpoint))\(suffix)"),
                                     "summary": .string(route.summary)]
        var parameters: [JSONValue] = route.parameters.map(Self.parameter)
        if case .rest? = route.path.last {
            parameters.append(["name": "path", "in": "path", "required": true, "schema": ["type": "string"],
                               "description": "the rest of the path, whatever the sender's URL has (not read)"])
        }
        if !parameters.isEmpty { operation["parameters"] = .array(parameters) }
        if let content = route.body.content, method != "HEAD" {
            operation["requestBody"] = ["required": .bool(content.required), "content": self.content(content)]
        }
        operation["security"] = route.guardedBy == .open ? [] : [.object([Self.schemeName(route.guardedBy): []])]
        var responses = JSONObject()
        for answer in route.answers {
            var described = response(answer.summary, method == "HEAD" ? nil : answer.content)
            if !answer.links.isEmpty, method != "HEAD", case .object(var object) = described {
                object["links"] = .object(JSONObject(answer.links.map { link in
                    (link.name, ["operationId": .string(link.operation),
                                 "parameters": .object(JSONObject(link.parameters.map { ($0.name, JSONValue.string($0.expression)) }))])
                }))
                described = .object(object)
            }
            responses[String(answer.status)] = described
        }
        let refusalContent = method == "HEAD" ? nil : refusal
        for (status, words) in derivedRefusals(route) where responses[String(status)] == nil {
            responses[String(status)] = response(words, refusalContent)
        }
        operation["responses"] = .object(JSONObject(responses.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
        return operation
    }

    /// The refusals a row gets from what it declares.
    private func derivedRefusals<Endpoint>(_ route: Route<Endpoint>) -> [(Int, String)] {
        var refusals = [(400, route.parameters.isEmpty ? "a malformed request" : "a malformed request, or a parameter outside its range")]
        if let status = route.guardedBy.refusalStatus {
            refusals.append((status, "refused by the guard: \(Self.schemeSummary(route.guardedBy))"))
        }
        switch route.body {
        case .empty: refusals.append((413, "a body (this endpoint takes none)"))
        case .upTo(let bytes, _): refusals.append((413, "a body over \(NumberText.binarySize(bytes))"))
        case .serverLimit: refusals.append((413, "a body over the server's limit"))
        }
        return refusals
    }

    private func response(_ summary: String, _ content: RouteContent?) -> JSONValue {
        var object: JSONObject = ["description": .string(summary)]
        if let content { object["content"] = self.content(content) }
        return .object(object)
    }

    private func content(_ content: RouteContent) -> JSONValue {
        guard let schema = content.schema else { return .object([content.mediaType: [:]]) }
        return .object([content.mediaType: ["schema": ["$ref": .string(schemaBase + schema)]]])
    }

    static func parameter(_ spec: RouteParameterSpec) -> JSONValue {
        let schema: JSONValue
        switch spec.kind {
        case .integer(let range): schema = ["type": "integer", "minimum": .integer(range.lowerBound), "maximum": .integer(range.upperBound)]
        case .choice(let choices): schema = ["type": "string", "enum": .array(choices.map(JSONValue.string))]
        case .text(let maxCharacters):
            schema = ["type": "string", "minLength": 1, "maxLength": .integer(maxCharacters), "pattern": "^[^\\u0000-\\u001f\\u007f-\\u009f]*$"]
        }
        // One value it accepts, for schemathesis's examples phase (and readers).
        let example: JSONValue
        switch spec.kind {
        case .integer(let range): example = .integer(range.lowerBound)
        case .choice(let choices): example = .string(choices[0])
        case .text: example = "x"
        }
        return ["name": .string(spec.name), "in": spec.place == .path ? "path" : "query", "required": .bool(spec.place == .path),
                "description": .string("\(spec.summary): \(spec.accepts)"), "schema": schema, "example": example]
    }

    static func schemeName(_ guarded: RouteGuard) -> String {
        switch guarded {
        case .open: return "open"
        case .sdkAPIKey: return "sdkAPIKey"
        case .inspectorToken: return "inspectorToken"
        }
    }

    static func schemeSummary(_ guarded: RouteGuard) -> String {
        switch guarded {
        case .open: return "none"
        case .sdkAPIKey: return "x-api-key missing, repeated, or not the key the server was given (any non-empty key when it was given none)"
        case .inspectorToken: return "X-AppDNA-Inspector-Token missing, repeated or not this run's (the page's appdna-inspector-token meta tag), "
            + "or an Origin other than the inspector's own, or two"
        }
    }

    static func scheme(_ guarded: RouteGuard) -> JSONValue {
        ["type": "apiKey", "in": "header", "name": .string(guarded.header ?? ""),
         "description": .string("Refused with \(guarded.refusalStatus ?? 0): \(schemeSummary(guarded)).")]
    }
}
