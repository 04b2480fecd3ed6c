import AppDNACore
import AppDNANet

/// `--inspect PORT`: the inspector page and the JSON API under it, on 127.0.0.1:PORT whatever
/// `--host` the listener has. Served by the one HTTP server (`HTTPServer`) on a thread of its
/// own beside the listener it inspects; the listener records into `log`, the page reads it.
/// Its endpoints are the rows of `InspectorRoutes`: a request reaches a handler only through
/// that table, with its numbers checked.
public final class InspectorServer: Sendable {
    /// What differs between the listeners the inspector shows.
    public struct Site: Sendable {
        /// `webhook` or `api`: the page's `appdna-inspector-kind`.
        public let kind: String
        /// `deliveries` or `requests`: the API's path and the list's key.
        public let collection: String
        /// About the listener, for the page's heading (`address`, `forward_to`).
        public let listener: JSONObject
        /// Fields of the detail view that depend on where the inspector runs (the command
        /// that re-sends a delivery), given the inspector's own URL.
        public var detailFields: @Sendable (_ entry: InspectorEntry, _ inspectorURL: String) -> JSONObject = { _, _ in [:] }
        /// The entry as one line of a record file, nil when it cannot be one; nil: no records.
        public var record: (@Sendable (InspectorEntry) -> [UInt8]?)? = nil
        /// Sends the entry on again, with the changes the request's body asks for (empty: none):
        /// 200 and the outcome, or an error status and why not. nil: nothing can be replayed.
        public var replay: (@Sendable (_ entry: InspectorEntry, _ edits: [UInt8]) -> (status: Int, result: JSONValue))? = nil
        /// The largest request body the inspector reads (an edited replay's).
        public var requestBytes = 64 << 10
        /// `api serve`'s bundle and overrides: the answer to one of their requests. nil: the
        /// listener serves no bundle (`webhook listen`), and those paths are 404.
        public var bundle: (@Sendable (BundleRequest) -> (status: Int, result: JSONValue))? = nil

        /// The inspected server's OpenAPI description (from its route table), served at
        /// /api/listener-openapi.json.
        public var listenerDescription: JSONValue = .null

        public init(kind: String, collection: String, listener: JSONObject) {
            self.kind = kind
            self.collection = collection
            self.listener = listener
        }
    }

    public let log: InspectorLog
    let site: Site
    let guardian: InspectorGuard
    let routes: RouteTable<InspectorEndpoint>
    /// This inspector's OpenAPI description, generated from `routes`.
    let description: JSONValue
    private let server: HTTPServer
    /// The thread serving, from `start` until `stop` joins it.
    private let thread = Locked<SpawnedThread?>(nil)

    /// Binds 127.0.0.1:`port` (0 picks a free port: `url` says which); the CLI words a failure
    /// with its own flag (the listener's port is not the one to change).
    init(port: Int, site: Site, log: InspectorLog) throws(HTTPError) {
        // The page asks a few things at a time (a poll, a detail, a replay): few workers.
        server = try HTTPServer(host: "127.0.0.1", port: port,
                                limits: HTTPServer.Limits(maxBodyBytes: site.requestBytes, headerTimeout: 10, idleTimeout: 30, maxConnections: 8))
        self.site = site
        self.log = log
        guardian = InspectorGuard(port: server.port)
        routes = InspectorRoutes.table(collection: site.collection, record: site.record != nil, replay: site.replay != nil, bundle: site.bundle != nil)
        description = ServerDescriptions.inspector(routes, kind: site.kind)
    }

    public var url: String { "http://127.0.0.1:\(server.port)/" }

    /// What the inspector is asked for: its port (0 picks a free one), how many entries it keeps
    /// and how many bytes they may hold (the CLI reads them from its flags).
    public struct Settings: Sendable {
        public let port: Int
        public let keep: Int
        public let maxBytes: Int

        public init(port: Int, keep: Int, maxBytes: Int) {
            self.port = port
            self.keep = keep
            self.maxBytes = maxBytes
        }
    }

    /// Starts the inspector `settings` describe; its URL is `url`.
    public static func launch(_ settings: Settings, site: Site) throws(HTTPError) -> InspectorServer {
        let inspector = try InspectorServer(port: settings.port, site: site, log: InspectorLog(keep: settings.keep, maxBytes: settings.maxBytes))
        inspector.start()
        return inspector
    }

    /// Serves on a thread of its own until `stop`.
    public func start() {
        let serving = ThreadSpawner.spawn { [self] in
            server.serve(admit: { [self] request in admission(request) }, handle: { [self] request in answer(admitted: request) }, rejected: { _ in })
        }
        thread.withLock { $0 = serving }
    }

    /// Stops serving and waits for the requests under way (a replay) to finish.
    public func stop() {
        server.stop()
        let serving = thread.withLock { thread in defer { thread = nil }; return thread }
        serving?.join()
    }

    /// The answer to one request, as the server gives it: decided at the head, then served.
    public func respond(to request: HTTPServer.Request) -> HTTPServer.Response {
        if case .refuse(let response) = admission(request) { return response }
        return answer(admitted: request)
    }

    /// The decision at the head, before a byte of the body is read: the Host (every row), then
    /// the row's route, method, guard (the token and Origin of an action) and body limit.
    func admission(_ request: HTTPServer.Request) -> HTTPServer.Admission {
        if let refusal = guardian.hostRefusal(request) {
            var response = Self.error(403, refusal)
            response.headers += InspectorGuard.headers
            return .refuse(response)
        }
        let guards = RouteGuards(inspectorToken: { [guardian] head in guardian.actionRefusal(head) })
        switch routes.decide(request.head, guards: guards, serverLimit: server.limits.maxBodyBytes) {
        case .admit(_, let maxBodyBytes):
            return .admit(maxBodyBytes: maxBodyBytes)
        case .refuse(let refusal, _):
            var response = Self.refused(refusal)
            response.headers += InspectorGuard.headers
            return .refuse(response)
        }
    }

    /// The answer to a request its head admitted, with the guard's headers.
    private func answer(admitted request: HTTPServer.Request) -> HTTPServer.Response {
        var response = route(request)
        response.headers += InspectorGuard.headers
        return response
    }

    /// A request admitted at its head (its guard passed): the row's handler.
    private func route(_ request: HTTPServer.Request) -> HTTPServer.Response {
        let match: RouteMatch<InspectorEndpoint>
        switch routes.resolve(method: request.head.method, target: request.head.target) {
        case .success(let found): match = found
        case .failure(let refusal): return Self.refused(refusal)
        }
        switch match.endpoint {
        case .page:
            // Both are this program's own words (hex digits, `webhook` or `api`), never data.
            let page = Self.filled(InspectorPage.index, ["{{token}}": guardian.token, "{{kind}}": site.kind])
            return Self.file(page, "text/html; charset=utf-8")
        case .script:
            return Self.file(InspectorPage.script, "text/javascript; charset=utf-8")
        case .style:
            return Self.file(InspectorPage.style, "text/css; charset=utf-8")
        case .favicon:
            return HTTPServer.Response(status: 204)
        case .description:
            return Self.json(200, description)
        case .listenerDescription:
            return Self.json(200, site.listenerDescription)
        case .list:
            return list(after: match[InspectorRoutes.after], before: match[InspectorRoutes.before], limit: match[InspectorRoutes.limit])
        case .entry:
            let id = match[InspectorRoutes.id]
            guard let entry = log.entry(id) else { return gone(id) }
            return Self.json(200, .object(entry.detailJSON(extra: site.detailFields(entry, url))))
        case .record:
            let id = match[InspectorRoutes.id]
            guard let record = site.record, let entry = log.entry(id) else { return gone(id) }
            guard let line = record(entry) else {
                return Self.error(409, "entry \(id)'s body is larger than the \(NumberText.binarySize(InspectorLog.bodyBytes)) the inspector keeps")
            }
            return HTTPServer.Response(status: 200, headers: [("Content-Type", "application/x-ndjson"),
                                                              ("Content-Disposition", "attachment; filename=\"delivery-\(id).ndjson\"")],
                                       body: line)
        case .replay:
            let id = match[InspectorRoutes.id]
            guard let replay = site.replay, let entry = log.entry(id) else { return gone(id) }
            let outcome = replay(entry, request.body)
            guard outcome.status == 200 else { return Self.json(outcome.status, outcome.result) }
            log.addReplay(outcome.result, to: id)
            return Self.json(200, ["id": .integer(id), "replay": outcome.result])
        case .bundle, .refetch, .overrides, .setOverride, .clearOverride, .clearOverrides, .identity:
            guard let bundle = site.bundle else { return Self.error(404, "no bundle here") }
            let asked: BundleRequest
            switch match.endpoint {
            case .bundle: asked = .show
            case .overrides: asked = .list
            case .refetch: asked = .refetch
            case .identity: asked = .identity(body: request.body)
            case .setOverride: asked = .set(kind: match[InspectorRoutes.kind], key: match[InspectorRoutes.key], body: request.body)
            case .clearOverrides: asked = .clearAll
            default: asked = .clear(kind: match[InspectorRoutes.kind], key: match[InspectorRoutes.key])
            }
            // Changing what devices are served is an action: its rows take the token, as a replay's does.
            let outcome = bundle(asked)
            return Self.json(outcome.status, outcome.result)
        }
    }

    /// `{"listener": {…}, "keep": N, "received": N, "COLLECTION": [newest first], "next_before": ID|null}`:
    /// `next_before` is what to pass as `before` for the page of older entries, null when none are kept.
    private func list(after: Int, before: Int, limit: Int) -> HTTPServer.Response {
        let page = log.page(after: after, before: before, limit: limit)
        var object: JSONObject = ["listener": .object(site.listener), "keep": .integer(log.keep)]
        object["received"] = .integer(log.count)
        object[site.collection] = .array(page.entries.map { .object($0.listJSON) })
        object["next_before"] = page.older ? page.entries.last.map { .integer($0.id) } ?? .null : .null
        return Self.json(200, .object(object))
    }

    private func gone(_ id: Int) -> HTTPServer.Response {
        Self.error(404, "no entry \(id): the inspector keeps the last \(log.keep), and ids start at 1")
    }

    /// `template` with each `{{name}}` of `values` replaced.
    static func filled(_ template: String, _ values: [String: String]) -> String {
        var out: [UInt8] = []
        let bytes = Array(template.utf8)
        var index = 0
        scanning: while index < bytes.count {
            if bytes[index] == UInt8(ascii: "{") {
                for (name, value) in values where bytes[index...].starts(with: name.utf8) {
                    out += value.utf8
                    index += name.utf8.count
                    continue scanning
                }
            }
            out.append(bytes[index])
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func file(_ text: String, _ contentType: String) -> HTTPServer.Response {
        HTTPServer.Response(status: 200, headers: [("Content-Type", contentType)], body: Array(text.utf8))
    }

    static func json(_ status: Int, _ value: JSONValue) -> HTTPServer.Response {
        HTTPServer.Response(status: status, headers: [("Content-Type", "application/json; charset=utf-8")],
                            body: JSONWriter(indent: 2).write(value) + [0x0A])
    }

    static func error(_ status: Int, _ message: String) -> HTTPServer.Response {
        json(status, ["error": .string(message)])
    }

    /// The route table's refusal (400 naming the parameter, 404, 405 with `Allow`) as JSON.
    static func refused(_ refusal: RouteRefusal) -> HTTPServer.Response {
        var response = error(refusal.status, refusal.message)
        response.headers += refusal.headers
        return response
    }
}
