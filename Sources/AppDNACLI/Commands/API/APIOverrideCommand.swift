import AppDNACore
import AppDNANet

/// `appdna api override set|clear|list`: the overrides of a running `api serve`, through the
/// JSON API on its inspector port (the routes `OverrideAPI` answers). A change needs the
/// inspector's token, which the command reads from the page as the browser does.
enum APIOverrideCommand {
    static let discussion = """
    Sets, clears or lists the overrides of a running appdna api serve with an inspector, \
    through the inspector's JSON API (PUT and DELETE /api/overrides/KIND/KEY, GET \
    /api/overrides; docs/device-variants.md). An override is kept in the server's state file \
    (what its flags forced at start included) and changes the \
    served bundle at once: its bundle_version rises, so SDKs polling \
    /config-bundle/version fetch it. set checks the override against the served bundle: an \
    experiment or variant it does not have, a flag it does not have or a flow its onboarding \
    does not list is refused (exit 64), as is clearing an override that is not set.
    Prints the overrides in force (one per line, KIND:KEY=VALUE) and the served \
    bundle_version. Exit status: 0 done, 64 usage error or refused override, 69 the server \
    cannot be reached or answered unexpectedly, 77 the token was refused.
    """

    static let examples = [
        ExampleSpec("appdna api override set experiment:onboarding-v2=streamlined --server http://127.0.0.1:8766",
                    "Show the streamlined onboarding on every device pointed at the server."),
        ExampleSpec("appdna api override clear experiment:onboarding-v2 --server http://127.0.0.1:8766",
                    "Back to the bundle's own weights."),
        ExampleSpec("appdna api override list --server http://127.0.0.1:8766 --json", "The overrides in force, as JSON."),
    ]

    @Sendable static func run(_ invocation: Invocation) throws -> ExitStatus {
        let arguments = invocation.arguments
        guard let server = arguments[APIOverrideFlags.server] else {
            throw Failure(.usage, "api override needs the inspector of the running api serve: --server http://127.0.0.1:PORT (its --inspect PORT)")
        }
        let base = try inspectorBase(server)
        let client = try DeliveryClient.make(invocation)
        let timeout = arguments[APIOverrideFlags.timeout]
        func send(_ method: String, _ path: String, body: [UInt8]? = nil, token: String? = nil) throws -> HTTPResponse {
            var headers: [(name: String, value: String)] = []
            if let token { headers.append((InspectorGuard.tokenHeader, token)) }
            if body != nil { headers.append(("Content-Type", "application/json")) }
            return try client.send(HTTPRequest(method: method, url: base + path, headers: headers, body: body),
                                   deadline: Deadline(secondsFromNow: timeout, clock: client.clock))
        }
        let operand = arguments.operand(1)
        let answer: HTTPResponse
        switch arguments.operand(0) {
        case "list":
            if operand != nil { throw Failure(.usage, "api override list takes no OVERRIDE") }
            answer = try send("GET", "/api/overrides")
        case "set":
            guard let operand else { throw Failure(.usage, "api override set needs an OVERRIDE: experiment:KEY=VARIANT, flag:KEY=JSON, config:KEY=JSON or onboarding:FLOW") }
            let item = try BundleOverride(parsing: operand)
            let token = try pageToken(send("GET", "/"), server: base)
            answer = try send("PUT", path(item.kind, item.key), body: JSONWriter().write(["value": item.value]), token: token)
        default:
            guard let operand else { throw Failure(.usage, "api override clear needs KIND:KEY (experiment:KEY, flag:KEY, config:KEY or onboarding)") }
            let (kind, key) = try target(operand)
            let token = try pageToken(send("GET", "/"), server: base)
            answer = try send("DELETE", path(kind, key), token: token)
        }
        let document = try checked(answer)
        if arguments[APIOverrideFlags.json] {
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

    /// `http://127.0.0.1:PORT` or `http://localhost:PORT` (a trailing / dropped): the inspector
    /// listens on loopback only, and its token must not be sent anywhere else.
    static func inspectorBase(_ text: String) throws -> String {
        var base = text
        while base.hasSuffix("/") { base.removeLast() }
        for prefix in ["http://127.0.0.1:", "http://localhost:"] where base.hasPrefix(prefix) {
            if let port = Int(base.dropFirst(prefix.count)), (1...65535).contains(port) { return base }
        }
        throw Failure(.usage, "--server takes the inspector's address, http://127.0.0.1:PORT (api serve --inspect PORT), not '\(text)'")
    }

    /// `KIND:KEY` of `clear` (`onboarding` alone, or `onboarding:…`, is the flow).
    static func target(_ text: String) throws -> (BundleOverride.Kind, String) {
        if text == "onboarding" || text.hasPrefix("onboarding:") { return (.onboarding, BundleOverride.onboardingKey) }
        guard let colon = text.firstIndex(of: ":"), let kind = BundleOverride.Kind(rawValue: String(text[..<colon])),
              text.index(after: colon) < text.endIndex else {
            throw Failure(.usage, "api override clear takes KIND:KEY (experiment:KEY, flag:KEY, config:KEY) or onboarding, not '\(text)'")
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

    /// The token in the page's `<meta name="appdna-inspector-token" content="…">`.
    static func pageToken(_ page: HTTPResponse, server: String) throws -> String {
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
        case 400, 404: throw Failure(.usage, message)
        case 403: throw Failure(.permissionDenied, message)
        default:
            throw Failure(.unavailable, answer.status == 200 ? "the server has no overrides API (is it appdna api serve --inspect?)" : message)
        }
    }
}
