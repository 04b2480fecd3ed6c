import AppDNACore
import AppDNANet

/// `--inspect PORT`: the inspector page and the JSON API under it, on 127.0.0.1:PORT whatever
/// `--host` the listener has. Served by the one HTTP server (`HTTPServer`) on a thread of its
/// own beside the listener it inspects; the listener records into `log`, the page reads it.
///
///     GET  /                              the page (its token in a meta tag)
///     GET  /inspector.js, /inspector.css  the page's code and style
///     GET  /api/COLLECTION[?after=ID]     the entries kept, newest first (after ID: the newer ones)
///     GET  /api/COLLECTION/ID             one entry: headers, body, answer…
///     GET  /api/COLLECTION/ID/record      a delivery as `webhook listen --record` writes it (webhook only)
///     POST /api/COLLECTION/ID/replay      forward it to the handler again (webhook only; token)
///
/// COLLECTION is `deliveries` for `webhook listen`, `requests` for `api serve`.
final class InspectorServer: @unchecked Sendable {
    /// What differs between the listeners the inspector shows.
    struct Site: Sendable {
        /// `webhook` or `api`: the page's `appdna-inspector-kind`.
        let kind: String
        /// `deliveries` or `requests`: the API's path and the list's key.
        let collection: String
        /// About the listener, for the page's heading (`address`, `forward_to`).
        let listener: JSONObject
        /// Fields of the detail view that depend on where the inspector runs (the command
        /// that re-sends a delivery), given the inspector's own URL.
        var detailFields: @Sendable (_ entry: InspectorEntry, _ inspectorURL: String) -> JSONObject = { _, _ in [:] }
        /// The entry as one line of a record file, nil when it cannot be one; nil: no records.
        var record: (@Sendable (InspectorEntry) -> [UInt8]?)? = nil
        /// Sends the entry on again: 200 and the outcome, or an error status and why not.
        /// nil: nothing can be replayed.
        var replay: (@Sendable (InspectorEntry) -> (status: Int, result: JSONValue))? = nil
    }

    let log: InspectorLog
    let site: Site
    let guardian: InspectorGuard
    private let server: HTTPServer
    /// The thread serving, from `start` until `stop` joins it.
    private var thread: SpawnedThread?

    /// Binds 127.0.0.1:`port` (0 picks a free port: `url` says which).
    init(port: Int, site: Site, log: InspectorLog) throws {
        do {
            // The page asks a few things at a time (a poll, a detail, a replay): few workers.
            server = try HTTPServer(host: "127.0.0.1", port: port,
                                    limits: HTTPServer.Limits(maxBodyBytes: 64 << 10, headerTimeout: 10, idleTimeout: 30, maxConnections: 8))
        } catch {
            // Its own flag in the hint: the listener's --port is not the one to change.
            throw Failure(error.kind, "--inspect: \(error.message)",
                          hint: error.remedy == .otherPort ? "another program uses that port; pick another with --inspect (0 picks a free one)" : error.hint)
        }
        self.site = site
        self.log = log
        guardian = InspectorGuard(port: server.port)
    }

    var url: String { "http://127.0.0.1:\(server.port)/" }

    /// Starts the inspector that `--inspect PORT` asks for (nil without it), noting its URL;
    /// `noun` is what it lists ("deliveries").
    static func launch(_ arguments: ParsedArguments, inspect: Flag<Int?>, keep: Flag<Int>, site: Site, noun: String,
                       note: (String) -> Void) throws -> InspectorServer? {
        guard let port = arguments[inspect] else {
            if arguments.given(keep.spec) { throw Failure(.usage, "--inspect-keep goes with --inspect PORT") }
            return nil
        }
        let inspector = try InspectorServer(port: port, site: site, log: InspectorLog(keep: arguments[keep]))
        inspector.start()
        note("inspector at \(inspector.url) (the last \(arguments[keep]) \(noun))")
        return inspector
    }

    /// Serves on a thread of its own until `stop`.
    func start() {
        thread = ThreadSpawner.spawn { [self] in
            server.serve(handle: { [self] request in respond(to: request) }, rejected: { _ in })
        }
    }

    /// Stops serving and waits for the requests under way (a replay) to finish.
    func stop() {
        server.stop()
        thread?.join()
        thread = nil
    }

    /// The answer to one request, with the guard's headers.
    func respond(to request: HTTPServer.Request) -> HTTPServer.Response {
        var response = route(request)
        response.headers += InspectorGuard.headers
        return response
    }

    private func route(_ request: HTTPServer.Request) -> HTTPServer.Response {
        if let refusal = guardian.hostRefusal(request) { return Self.error(403, refusal) }
        let parts = request.head.target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts[0])
        let query = parts.count > 1 ? String(parts[1]) : ""
        let method = request.head.method
        switch path {
        case "/":
            guard method == "GET" else { return Self.wrongMethod("GET") }
            // Both are this program's own words (hex digits, `webhook` or `api`), never data.
            let page = Self.filled(InspectorPage.index, ["{{token}}": guardian.token, "{{kind}}": site.kind])
            return Self.file(page, "text/html; charset=utf-8")
        case "/inspector.js":
            return method == "GET" ? Self.file(InspectorPage.script, "text/javascript; charset=utf-8") : Self.wrongMethod("GET")
        case "/inspector.css":
            return method == "GET" ? Self.file(InspectorPage.style, "text/css; charset=utf-8") : Self.wrongMethod("GET")
        case "/favicon.ico":
            return HTTPServer.Response(status: 204)
        case "/api/\(site.collection)":
            guard method == "GET" else { return Self.wrongMethod("GET") }
            guard let after = Self.after(query) else { return Self.error(400, "after= takes an entry id (a whole number)") }
            return list(after: after)
        default:
            break
        }
        // "/api/COLLECTION/ID[/ACTION]"
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard (4...5).contains(segments.count), segments[0].isEmpty, segments[1] == "api", segments[2] == site.collection,
              let id = Int(segments[3]) else {
            return Self.error(404, "no such page: \(path)")
        }
        return entryRoute(request, id: id, action: segments.count == 5 ? segments[4] : nil)
    }

    private func entryRoute(_ request: HTTPServer.Request, id: Int, action: String?) -> HTTPServer.Response {
        let method = request.head.method
        switch action {
        case nil:
            guard method == "GET" else { return Self.wrongMethod("GET") }
            guard let entry = log.entry(id) else { return gone(id) }
            return Self.json(200, .object(entry.detailJSON(extra: site.detailFields(entry, url))))
        case "record"?:
            guard let record = site.record else { return Self.error(404, "\(site.collection) have no record form") }
            guard method == "GET" else { return Self.wrongMethod("GET") }
            guard let entry = log.entry(id) else { return gone(id) }
            guard let line = record(entry) else {
                return Self.error(409, "entry \(id)'s body is larger than the \(NumberText.binarySize(InspectorLog.bodyBytes)) the inspector keeps")
            }
            return HTTPServer.Response(status: 200, headers: [("Content-Type", "application/x-ndjson"),
                                                              ("Content-Disposition", "attachment; filename=\"delivery-\(id).ndjson\"")],
                                       body: line)
        case "replay"?:
            guard let replay = site.replay else { return Self.error(404, "\(site.collection) cannot be replayed") }
            guard method == "POST" else { return Self.wrongMethod("POST") }
            if let refusal = guardian.actionRefusal(request) { return Self.error(403, refusal) }
            guard let entry = log.entry(id) else { return gone(id) }
            let outcome = replay(entry)
            guard outcome.status == 200 else { return Self.json(outcome.status, outcome.result) }
            log.addReplay(outcome.result, to: id)
            return Self.json(200, ["id": .integer(id), "replay": outcome.result])
        default:
            return Self.error(404, "no such page: \(request.head.target)")
        }
    }

    /// `{"listener": {…}, "keep": N, "received": N, "COLLECTION": [newest first]}`.
    private func list(after: Int) -> HTTPServer.Response {
        let entries = log.entries(after: after)
        var object: JSONObject = ["listener": .object(site.listener), "keep": .integer(log.keep)]
        object["received"] = .integer(max(log.count, entries.first?.id ?? 0))
        object[site.collection] = .array(entries.map { .object($0.summaryJSON) })
        return Self.json(200, .object(object))
    }

    private func gone(_ id: Int) -> HTTPServer.Response {
        Self.error(404, "no entry \(id): the inspector keeps the last \(log.keep) (--inspect-keep), and ids start at 1")
    }

    /// `after=ID` of the list's query; 0 when absent, nil when not a whole number.
    static func after(_ query: String) -> Int? {
        var after = 0
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts[0] == "after" else { continue }
            guard parts.count == 2, let value = Int(parts[1]), value >= 0 else { return nil }
            after = value
        }
        return after
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

    static func wrongMethod(_ allowed: String) -> HTTPServer.Response {
        var response = error(405, "this takes \(allowed)")
        response.headers.append(("Allow", allowed))
        return response
    }
}
