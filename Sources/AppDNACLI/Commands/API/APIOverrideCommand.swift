import AppDNACore
import AppDNANet
import AppDNAServers

/// `appdna api override set|clear|list`: the overrides of a running `api serve`, through the
/// JSON API on its inspector port (the routes `OverrideAPI` answers). A change needs the
/// inspector's token, which the command reads from the page as the browser does.
enum APIOverrideCommand {
    static let discussion = """
    Sets, clears or lists the overrides of a running appdna api serve with an inspector, \
    through the inspector's JSON API (PUT and DELETE /api/overrides/KIND/KEY, GET \
    /api/overrides; docs/device-variants.md). An override is kept in the server's state file \
    (what its flags forced at start included) and changes the \
    served bundle at once: its bundle_version rises, and a server that writes the app's \
    bundled appdna-config.json writes it again (no SDK fetches a bundle over HTTP; \
    docs/device-variants.md). set checks the override against the served bundle: an \
    experiment or variant it does not have, a flag it does not have or a flow its onboarding \
    does not list is refused (exit 64), as is clearing an override that is not set.
    Prints the overrides in force (one per line, KIND:KEY=VALUE) and the served \
    bundle_version. clear --all clears every override in one request (one change). \
    identity experiment:KEY=VARIANT (with the device's context: --platform, \
    --country, --app-version, --trait, --installed-at) asks POST /api/identity for a user id \
    a device in that context assigns the variant, in the server's source bundle without the \
    overrides, and prints it with the identify line for each SDK: it forces the variant on any \
    SDK version (it changes nothing; it takes the page's token, as a search costs the server \
    CPU). \
    The server is --server, else APPDNA_SERVER, else the one api serve with an inspector running for \
    this user: each notes its inspector's address and process id in $XDG_RUNTIME_DIR/appdna \
    (else ~/.appdna/run) while it runs, and only a live process counts (docs/local-api.md). \
    Exit status: 0 done, 64 usage error or refused override, 69 the server \
    cannot be reached or answered unexpectedly, 70 internal error, 75 no answer within \
    --timeout, 77 the token was refused, 78 the HTTP client could not be set up (libcurl \
    missing or refusing its options).
    """

    static let examples = [
        ExampleSpec("appdna api override set experiment:onboarding-v2=streamlined --server http://127.0.0.1:8766",
                    "Show the streamlined onboarding on every device pointed at the server."),
        ExampleSpec("appdna api override clear experiment:onboarding-v2 --server http://127.0.0.1:8766",
                    "Back to the bundle's own weights."),
        ExampleSpec("appdna api override list --server http://127.0.0.1:8766 --json", "The overrides in force, as JSON."),
        ExampleSpec("appdna api override clear --all", "Clear every override of the api serve (with an inspector) running here."),
        ExampleSpec("appdna api override identity experiment:onboarding-v2=streamlined --platform ios --country US --server http://127.0.0.1:8766",
                    "A user id a device in that context assigns streamlined, and the identify line for each SDK."),
    ]

    /// Everything one run needs, read from the arguments once: the request (checked before
    /// any is sent: a usage error is reported as one, never as whatever a wrong server
    /// answered), the inspector it goes to, the client and its bound.
    struct Plan: Sendable {
        let call: Call
        let server: Server
        let client: HTTPClient
        let timeout: Double
        let json: Bool
    }

    /// The inspector the request goes to.
    enum Server: Sendable {
        /// --server or APPDNA_SERVER, checked by the plan.
        case named(base: String)
        /// Neither: the one `api serve --inspect` of this user running now, found by the run in
        /// the discovery directory (nil: none, as neither XDG_RUNTIME_DIR nor HOME is set).
        /// What runs now is no part of the command line: the run looks, and removes the files
        /// of servers that have ended.
        case discovered(directory: String?)
    }

    @Sendable static func plan(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Plan {
        let call = try call(arguments)
        let server: Server
        if let named = arguments[APIOverrideFlags.server] {
            server = .named(base: try inspectorBase(named))
        } else if let named = invocation.io.environment[serverVariable], !named.isEmpty {
            server = .named(base: try inspectorBase(named, from: serverVariable))
        } else {
            server = .discovered(directory: InspectorDiscovery.directory(environment: invocation.io.environment))
        }
        return Plan(call: call, server: server, client: try DeliveryClient.make(invocation), timeout: arguments[APIOverrideFlags.timeout],
                    json: arguments[APIOverrideFlags.json])
    }

    static let run = CommandRun.planned(plan: plan, perform: perform)

    @Sendable static func perform(_ plan: Plan, _ invocation: Invocation) throws -> ExitStatus {
        let base: String
        switch plan.server {
        case .named(let named): base = named
        case .discovered(let directory): base = try discovered(in: directory, invocation)
        }
        let client = plan.client, timeout = plan.timeout
        func send(_ method: String, _ path: String, body: [UInt8]? = nil, token: String? = nil) throws -> HTTPResponse {
            var headers: [(name: String, value: String)] = []
            if let token { headers.append((InspectorGuard.tokenHeader, token)) }
            if body != nil { headers.append(("Content-Type", "application/json")) }
            return try client.send(HTTPRequest(method: method, url: base + path, headers: headers, body: body),
                                   deadline: Deadline(secondsFromNow: timeout, clock: client.clock))
        }
        do {
            return try change(invocation, call: plan.call, json: plan.json, base: base, transport: { try send($0, $1, body: $2, token: $3) })
        } catch let failure as Failure where failure.kind == .usage || failure.kind == .unavailable {
            // The API port of api serve has neither the page nor /api/overrides: say which port to use.
            if let probe = try? send("GET", "/api/v1/sdk/config-bundle/version"), isAPIPort(probe) { throw notTheInspector(base) }
            // webhook listen's inspector has a page of the same kind, but no overrides.
            if let page = try? send("GET", "/"), inspectorKind(page) == "webhook" { throw webhookInspector(base) }
            throw failure
        }
    }

    /// The request ACTION and OVERRIDE ask for, checked before any request is sent (a usage
    /// error is reported as one, never as whatever a wrong server answered).
    struct Call: Sendable {
        let method: String
        let path: String
        let body: [UInt8]?
        /// A change: the inspector's token is fetched from its page first.
        let needsToken: Bool
        let identity: Bool
    }

    static func call(_ arguments: ParsedArguments) throws -> Call {
        let operand = arguments.operand(1)
        if arguments[APIOverrideFlags.clearAll] && arguments.operand(0) != "clear" {
            throw Failure(.usage, "--all goes with clear (api override clear --all)")
        }
        if arguments.operand(0) != "identity" {
            // The device context is identity's alone: given to another action it would change nothing.
            try ModeFlags("api override \(arguments.operand(0) ?? "")", reads: [])
                .check(arguments, declared: APIOverrideFlags.context)
        }
        switch arguments.operand(0) {
        case "list":
            if operand != nil { throw Failure(.usage, "api override list takes no OVERRIDE") }
            return Call(method: "GET", path: "/api/overrides", body: nil, needsToken: false, identity: false)
        case "identity":
            guard let operand else { throw Failure(.usage, "api override identity needs experiment:KEY=VARIANT") }
            // The search costs the server CPU: it takes the page's token, as a change does.
            return Call(method: "POST", path: "/api/identity", body: try APIOverrideIdentity.body(operand, arguments), needsToken: true, identity: true)
        case "set":
            guard let operand else { throw Failure(.usage, "api override set needs an OVERRIDE: experiment:KEY=VARIANT, flag:KEY=JSON, config:KEY=JSON or onboarding:FLOW") }
            let item = try BundleOverride(parsing: operand)
            return Call(method: "PUT", path: path(item.kind, item.key), body: JSONWriter().write(["value": item.value]), needsToken: true, identity: false)
        case "clear" where arguments[APIOverrideFlags.clearAll]:
            if let operand { throw Failure(.usage, "api override clear --all clears every override: give no KIND:KEY ('\(operand)')") }
            return Call(method: "DELETE", path: "/api/overrides", body: nil, needsToken: true, identity: false)
        default:
            guard let operand else { throw Failure(.usage, "api override clear needs KIND:KEY (experiment:KEY, flag:KEY, config:KEY or onboarding), or --all") }
            let (kind, key) = try target(operand)
            return Call(method: "DELETE", path: path(kind, key), body: nil, needsToken: true, identity: false)
        }
    }

    /// The request `call` describes, and its answer printed.
    static func change(_ invocation: Invocation, call: Call, json: Bool, base: String,
                       transport: (String, String, [UInt8]?, String?) throws -> HTTPResponse) throws -> ExitStatus {
        let token = call.needsToken ? try pageToken(transport("GET", "/", nil, nil), server: base) : nil
        let answer = try transport(call.method, call.path, call.body, token)
        if call.identity {
            return try APIOverrideIdentity.report(answer, json: json, invocation)
        }
        let document = try checked(answer)
        if json {
            invocation.stdout.writeVerbatimLine(JSONWriter().writeString(document.root.value))
            return .success
        }
        let items = document.root["overrides"].map { Array($0.elements) } ?? []
        for element in items {
            // A stale override (kept, not applied: the served bundle has no such experiment, variant, flag or flow now) says so.
            guard let item = try? BundleOverride(json: element.value) else { continue }
            let stale = element["stale"]?.bool == true ? " (stale: \(element["stale_reason"]?.string ?? "not applied"))" : ""
            invocation.stdout.writeLine(item.text + stale)
        }
        let version = document.root["bundle_version"]?.numberText ?? "-"
        invocation.note(items.isEmpty ? "no overrides; serving bundle_version \(version)" : "serving bundle_version \(version)")
        return .success
    }

    /// `http://127.0.0.1:PORT`, `http://localhost:PORT` or `http://[::1]:PORT` (a trailing / dropped): the inspector
    /// listens on loopback only, and its token must not be sent anywhere else.
    static func inspectorBase(_ text: String, from: String = "--server") throws -> String {
        var base = text
        while base.hasSuffix("/") { base.removeLast() }
        // The discovery file's own check: a port of plain digits ('+18802' and '018802' are refused).
        if InspectorDiscovery.isLoopback(base) { return base }
        throw Failure(.usage, "\(from) takes the inspector's address, http://127.0.0.1:PORT (api serve --inspect PORT), not '\(shortened(text))'")
    }

    /// At most the first 100 characters of a value echoed in a message (an environment
    /// variable may hold anything), with how long it was.
    static func shortened(_ text: String) -> String {
        text.count <= 100 ? text : "\(text.prefix(100))… (\(text.utf8.count) bytes)"
    }

    /// `KIND:KEY` of `clear` (`onboarding` alone, or `onboarding:…`, is the flow).
    static func target(_ text: String) throws -> (BundleOverride.Kind, String) {
        if text == "onboarding" || text.hasPrefix("onboarding:") { return (.onboarding, BundleOverride.onboardingKey) }
        guard let colon = text.firstIndex(of: ":"), let kind = BundleOverride.Kind(rawValue: String(text[..<colon])),
              text.index(after: colon) < text.endIndex else {
            throw Failure(.usage, "api override clear takes KIND:KEY ("
                          + BundleOverride.Kind.listed(BundleOverride.Kind.allCases.map { $0 == .onboarding ? $0.rawValue : $0.rawValue + ":KEY" }) + "), not '\(text)'")
        }
        return (kind, String(text[text.index(after: colon)...]))
    }

    /// `/api/overrides/KIND/KEY`, the key percent-encoded (every byte but letters, digits and `-._~`).
    static func path(_ kind: BundleOverride.Kind, _ key: String) -> String {
        var encoded = ""
        for byte in key.utf8 {
            if (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || [0x2D, 0x2E, 0x5F, 0x7E].contains(byte) {
                encoded.append(Character(Unicode.Scalar(byte)))
            } else {
                encoded += "%" + Hex.encode([byte]).uppercased()
            }
        }
        return "/api/overrides/\(kind.rawValue)/\(encoded)"
    }

    /// The page's `<meta name="appdna-inspector-kind" content="…">`: "api" (api serve) or
    /// "webhook" (webhook listen); nil when the answer is no inspector page.
    static func inspectorKind(_ page: HTTPResponse) -> String? {
        guard page.status == 200 else { return nil }
        return metaContent(page.body, "appdna-inspector-kind")
    }

    static func metaContent(_ body: [UInt8], _ name: String) -> String? {
        let marker = Array("name=\"\(name)\" content=\"".utf8)
        guard let start = body.indices.first(where: { body[$0...].starts(with: marker) }).map({ $0 + marker.count }),
              let end = body[start...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        return String(decoding: body[start..<end], as: UTF8.self)
    }

    static func webhookInspector(_ server: String) -> Failure {
        Failure(.usage, "\(server) is the inspector of webhook listen, not of api serve: it has no overrides",
                hint: "point api override at the --inspect port of appdna api serve (--server http://127.0.0.1:PORT)")
    }

    /// The token in the page's `<meta name="appdna-inspector-token" content="…">`.
    static func pageToken(_ page: HTTPResponse, server: String) throws -> String {
        // webhook listen's page has a token too: no change is sent with it.
        if inspectorKind(page) == "webhook" { throw webhookInspector(server) }
        let marker = Array("name=\"appdna-inspector-token\" content=\"".utf8)
        let body = page.body
        let start = page.status == 200 ? body.indices.first { body[$0...].starts(with: marker) }.map { $0 + marker.count } : nil
        guard let start, let end = body[start...].firstIndex(of: UInt8(ascii: "\"")), end > start else {
            throw Failure(.unavailable, "\(server)/ is not an appdna inspector page (status \(page.status)): is --server the --inspect port of api serve?")
        }
        return String(decoding: body[start..<end], as: UTF8.self)
    }

    /// The answer's JSON, or the server's `{"error": …}` as a failure of the matching kind.
    static func checked(_ answer: HTTPResponse) throws -> JSONDocument {
        let document = try? JSONDocument(bytes: answer.body)
        if answer.status == 200, let document, document.root["overrides"] != nil { return document }
        let message = document?.root["error"]?.string ?? "answer \(answer.status) without an error message"
        switch answer.status {
        // 409: the override does not fit the served bundle (no such experiment or variant): refused, 64.
        case 400, 404, 409: throw Failure(.usage, message)
        case 403: throw Failure(.permissionDenied, message)
        default:
            throw Failure(.unavailable, answer.status == 200 ? "the server has no overrides API (is it appdna api serve --inspect?)" : message)
        }
    }

    /// The inspector of the one `api serve --inspect` of this user whose discovery file in
    /// `directory` names a live process, read through the command's files.
    static func discovered(in directory: String?, _ invocation: Invocation) throws -> String {
        let scan = directory.map { InspectorDiscovery.scan($0, files: invocation.io.files) }
        if let refused = scan?.refused { invocation.warn("not looking for api serve --inspect in \(refused)") }
        let running = scan?.servers ?? []
        guard running.count == 1, let only = running.first else {
            if running.isEmpty {
                throw Failure(.usage, "no api serve --inspect is running for this user\(directory.map { " (none noted in \($0))" } ?? "")",
                              hint: "start appdna api serve with --inspect PORT, or name its inspector with --server http://127.0.0.1:PORT or \(serverVariable)")
            }
            throw Failure(.usage, "\(running.count) api serve --inspect are running (inspectors \(running.map(\.inspector).joined(separator: ", ")))",
                          hint: "pick one with --server URL or \(serverVariable)=URL")
        }
        return try inspectorBase(only.inspector, from: "the discovery file of pid \(only.pid)")
    }

    static let serverVariable = "APPDNA_SERVER"

    /// Whether the answer to GET /api/v1/sdk/config-bundle/version comes from api serve's own
    /// API port (200 with a bundle_version, or 401 for the key): an inspector has no such path.
    static func isAPIPort(_ answer: HTTPResponse) -> Bool {
        answer.status == 401 || (answer.status == 200 && String(decoding: answer.body.prefix(512), as: UTF8.self).contains("bundle_version"))
    }

    static func notTheInspector(_ server: String) -> Failure {
        Failure(.usage, "\(server) is the API port of api serve, not its inspector: the overrides are changed through the inspector",
                hint: "start appdna api serve with --inspect PORT and point api override at that port (--server http://127.0.0.1:PORT)")
    }
}
