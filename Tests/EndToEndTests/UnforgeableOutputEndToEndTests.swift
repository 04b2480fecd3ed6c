import Foundation
import LoopbackHTTPServer
import TestSupport
import XCTest

/// Every command over one hostile bundle, one hostile queue and hostile deliveries and
/// requests, its output going into a pipe (a CI log) and onto a pseudo-terminal: nothing from
/// the data reaches the output raw — no control character but the tool's own line feeds (and
/// its own colours on the terminal), no DEL, C1 or bidi control, no line that starts as a CI
/// log command (`::error::…`, `##[…`, `##vso[…`) except the tool's own `--format github`
/// annotations — and the hostile text is still there, shown escaped.
final class UnforgeableOutputEndToEndTests: XCTestCase {
    /// A line feed that starts a GitHub workflow command, a screen clear, a window title (OSC),
    /// a CR that rewrites the line, the C1 CSI (U+009B), a bidi override and isolate, DEL and a
    /// tab: every way a name can act instead of show.
    static let hostile = "x\n::error title=forged::pwned\u{1B}[2J\u{1B}]0;title\u{07}\r\u{9B}31m\u{202E}gnp\u{2066}\u{7F}\tend"
    /// Names that would start a line as they are (an experiment listed at the start of a line).
    static let lineStarters = ["::warning::starts-a-line", "\u{A0}::notice::after-nbsp", "##vso[task.setvariable variable=x]1", "##[error]legacy"]
    static let fakeDelivery = "evt\n2026-01-01T00:00:00.000Z  payment.completed  evt_2  valid  -> forwarded: 200 in 1 ms"

    var directory: ScratchDirectory!
    var bundle = "", oldBundle = "", queue = "", body = "", dump = "", secret = ""
    var environment: [String: String] = [:]

    override func setUpWithError() throws {
        directory = try ScratchDirectory("unforgeable")
        let h = Self.hostile
        var experiments: [String: Any] = [:]
        for (index, name) in ([h] + Self.lineStarters).enumerated() {
            experiments[name] = ["status": "running", "salt": index == 0 ? h : "s\(index)",
                                 "platforms": ["ios", h],
                                 "targeting": ["countries": ["US", h], "user_traits": [["trait": h, "operator": "eq", "value": h]]],
                                 "variants": [["id": h, "weight": 0.5], ["id": name, "weight": 0.5]]]
        }
        let content: [String: Any] = ["bundle_version": 3, "experiments": experiments,
                                      "remote_config": [h: h, "::warning::key": 1], "feature_flags": [h: true],
                                      "paywalls": [h: ["id": h]], "onboarding": ["active_flow_id": h, "flows": [:]]]
        bundle = try file("bundle.json", JSONSerialization.data(withJSONObject: content, options: [.sortedKeys]))
        var old = content
        old["bundle_version"] = 2
        var oldExperiments = experiments
        for name in oldExperiments.keys { oldExperiments[name] = ["status": "draft", "salt": "old", "variants": [["id": "a", "weight": 1]]] }
        oldExperiments[h + "-removed"] = ["status": "running", "salt": h, "variants": [["id": h, "weight": 1]]]
        old["experiments"] = oldExperiments
        old["remote_config"] = [h: "before", "cafe\u{301}": 1]
        old["feature_flags"] = [h: false, "cafe\u{301}": true]
        oldBundle = try file("old.json", JSONSerialization.data(withJSONObject: old, options: [.sortedKeys]))

        var lines: [String] = []
        for (index, name) in ([h] + Self.lineStarters).enumerated() {
            let event: [String: Any] = [
                "schema_version": 1, "event_id": index == 0 ? h : TestEvents.id(index + 1), "event_name": name,
                "ts_ms": 1_767_312_001_000 + index * 1000,
                "user": ["anon_id": h, "user_id": name],
                "device": ["platform": h, "sdk_version": h, "os": h, "app_version": h, "bundle_version": 3, "locale": h, "country": h],
                "context": ["session_id": h, "client_seq": index + 1, "screen": h,
                            "experiment_exposures": [["exp": name, "variant": h], ["exp": h, "variant": name]]],
                "properties": [h: h], "privacy": ["consent": ["analytics": true]],
            ]
            lines.append(String(decoding: try JSONSerialization.data(withJSONObject: event, options: [.sortedKeys]), as: UTF8.self))
        }
        // A malformed line holding raw control and bidi bytes.
        lines.append("{\"event_name\": \"\u{1B}[2J\u{9B}\u{202E}\r\u{7F}")
        queue = try file("pending_events.json", Data((lines.joined(separator: "\n") + "\n").utf8))

        secret = try file("secret.txt", Data("whsec_unforgeable".utf8))
        let bodyObject: [String: Any] = ["id": Self.fakeDelivery, "type": h, "created_at": "2026-02-19T10:00:00Z", "data": ["user_id": h]]
        body = try file("body.json", JSONSerialization.data(withJSONObject: bodyObject, options: [.sortedKeys]))
        dump = try file("delivery.http", Data(("POST /hook\u{1B}[2J HTTP/1.1\r\nHost: x\r\nX-AppDNA-Event: \(h.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\r", with: " "))\r\n"
            + "X-AppDNA-Signature: sha256=\(String(repeating: "ab", count: 32))\r\n\r\n").utf8) + (try Data(contentsOf: URL(fileURLWithPath: body))))
        environment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": directory.path]
    }

    override func tearDown() {
        directory?.remove()
    }

    func file(_ name: String, _ data: Data) throws -> String {
        try directory.file(name, Array(data))
    }

    /// Every command that reads the bundle or the queue, with each of its output formats.
    var commands: [(arguments: [String], stdin: [UInt8]?, kind: OutputKind)] {
        let h = Self.hostile
        let ids = Array("u1\nu2\n\(h.replacingOccurrences(of: "\n", with: " "))\n".utf8)
        var list: [(arguments: [String], stdin: [UInt8]?, kind: OutputKind)] = [
            (["bucket", "user-1", "--bundle", bundle], nil, .text),
            (["bucket", "user-1", "--bundle", bundle, "--json"], nil, .text),
            (["bucket", "user-1", h, "--bundle", bundle, "--explain", "--trait", "\(h)=\(h)", "--country", "US", "--platform", "ios"], nil, .text),
            (["bucket", "user-1", h, "--bundle", bundle, "--json", "--explain"], nil, .text),
            (["bucket", "user-1", "nope", "--bundle", bundle], nil, .text),
            (["bucket", "user-1", "::error::argv", "--variants", "a=0.5,\(h)=0.5"], nil, .text),
            (["bucket", "--find", h, h, "--bundle", bundle, "--count", "2"], nil, .text),
            (["bucket", "-", h, "--bundle", bundle, "--summary"], ids, .text),
            (["bucket", "-", "--bundle", bundle], ids, .tabSeparated),
            (["bucket", "-", h, "--bundle", bundle], ids, .tabSeparated),
            (["bucket", "--vectors", "--count", "2"], nil, .text),
            (["bundle", "validate", bundle], nil, .text),
            (["bundle", "validate", bundle, "--format", "github"], nil, .annotations),
            (["bundle", "validate", bundle, "--json"], nil, .text),
            (["bundle", "diff", oldBundle, bundle], nil, .text),
            (["bundle", "diff", oldBundle, bundle, "--stat"], nil, .text),
            (["bundle", "diff", oldBundle, bundle, "--format", "markdown"], nil, .text),
            (["bundle", "diff", oldBundle, bundle, "--format", "patch"], nil, .text),
            (["bundle", "diff", oldBundle, bundle, "--json"], nil, .text),
            (["bundle", "diff", h, bundle], nil, .text),
            (["bundle", "codegen", bundle], nil, .text),
            (["bundle", "codegen", bundle, "--language", "kotlin"], nil, .text),
            (["queue", "inspect", queue], nil, .text),
            (["queue", "inspect", queue, "--events"], nil, .tabSeparated),
            (["queue", "inspect", queue, "--events", "--json"], nil, .text),
            (["queue", "inspect", queue, "--json"], nil, .text),
            (["queue", "inspect", queue, "--bundle", bundle], nil, .text),
            (["queue", "inspect", queue, "--bundle", bundle, "--json"], nil, .text),
            (["queue", "inspect", queue, "--name", h, "--user", h], nil, .tabSeparated),
            (["queue", "replay", queue, "--dry-run"], nil, .text),
            (["webhook", "verify", body, "--header", "X-AppDNA-Signature: sha256=\(String(repeating: "ab", count: 32))", "--secret-file", secret, "--explain"], nil, .text),
            (["webhook", "verify", "--request", dump, "--secret-file", secret, "--explain"], nil, .text),
            (["webhook", "verify", "--request", dump, "--secret-file", secret, "--json"], nil, .text),
            (["webhook", "trigger", "payment.completed", "--print", "--secret-file", secret, "--id", h], nil, .text),
            (["webhook", "trigger", h, "--print", "--secret-file", secret, "--body", body], nil, .text),
        ]
        list.append((["bucket", "-", h, "--bundle", bundle, "--format", "csv"], ids, .text))
        list.append((["bucket", "-", h, "--bundle", bundle, "--format", "ndjson"], ids, .text))
        return list
    }

    func testNoCommandLetsDataActOnAPipeOrATerminal() throws {
        var seen = ""
        for target in [CapturedOutputProcess.Target.pipe, .terminal] {
            for command in commands {
                let output = try CapturedOutputProcess.run(command.arguments, target: target, stdin: command.stdin, environment: environment)
                XCTAssertFalse(output.isEmpty, "\(command.arguments.joined(separator: " ")) wrote nothing")
                assertUnforgeable(output, "\(target): \(command.arguments.joined(separator: " "))",
                                  colour: target == .terminal, kind: command.kind)
                seen += String(decoding: output, as: UTF8.self)
            }
        }
        // Not vacuous: the hostile text was shown, escaped.
        for shown in ["\\n::error title=forged::pwned\\x1B[2J\\x1B]0;title\\x07\\r\\u009B31m\\u202Egnp\\u2066\\x7F\\tend", "\\x3A:warning::starts-a-line",
                      "\\x23#vso[task.setvariable", "\\x23#[error]legacy"] {
            XCTAssertTrue(seen.contains(shown), "never shown: \(shown)")
        }
    }

    /// A server whose answers and a live bundle are hostile: `webhook trigger` (a delivery and
    /// a replay of a recorded one), `bundle fetch` and `bundle diff @remote`.
    func testAnswersFromAHostileServerAreShownNotObeyed() throws {
        let h = Self.hostile
        let content = try String(decoding: Data(contentsOf: URL(fileURLWithPath: bundle)), as: UTF8.self)
        let apiBundle = "{\"bundle_version\": 43, \"content\": \(content)}"
        let server = try LoopbackHTTPServer { request, _ in
            if request.path == "/api/v1/sdk/config-bundle/version" { return .init(json: #"{"bundle_version": 43}"#) }
            if request.path == "/api/v1/sdk/config-bundle" { return .init(json: apiBundle) }
            return .init(status: 500, headers: [("Content-Type", "text/plain")], body: Array("oops\n::error::from-the-server\u{1B}[2J\r\u{9B}\u{202E}\n\u{A0}::notice::x\n".utf8))
        }
        defer { server.stop() }
        let record = try file("record.ndjson", Data())
        try FileManager.default.removeItem(atPath: record)
        // A recorded delivery to replay: webhook listen records the hostile one.
        let listener = try CapturedOutputProcess(["webhook", "listen", "--port", "0", "--secret-file", secret, "--record", record],
                                                 target: .pipe, environment: environment)
        let port = try XCTUnwrap(listener.waitFor(#"127\.0\.0\.1:\d+"#)).split(separator: ":").last.map { Int($0)! }!
        _ = try LoopbackHTTPServer.sendRaw(port: port, Array(try signedDelivery()))
        _ = listener.stop()

        var env = environment
        env["APPDNA_SDK_KEY"] = "adn_live_E2EsecretKEY0123456789zz3f9a"
        env["APPDNA_API_URL"] = server.baseURL
        let output = directory.path + "/fetched.json"
        let runs: [[String]] = [
            ["webhook", "trigger", "payment.completed", "--to", server.baseURL + "/hook", "--id", h, "--secret-file", secret],
            ["webhook", "trigger", "--replay", record, "--to", server.baseURL + "/hook"],
            ["webhook", "trigger", "--replay", record, "--to", server.baseURL + "/hook", "--json"],
            ["bundle", "fetch", "-o", output, "--force"],
            ["bundle", "diff", bundle, "@remote"],
            ["bundle", "validate", "@remote"],
        ]
        var seen = ""
        for target in [CapturedOutputProcess.Target.pipe, .terminal] {
            for arguments in runs {
                let written = try CapturedOutputProcess.run(arguments, target: target, environment: env)
                XCTAssertFalse(written.isEmpty, "\(arguments) wrote nothing")
                assertUnforgeable(written, "\(target): \(arguments.joined(separator: " "))", colour: target == .terminal, kind: .text)
                seen += String(decoding: written, as: UTF8.self)
            }
        }
        XCTAssertTrue(seen.contains("oops"), seen)
        XCTAssertTrue(seen.contains("\\x3A:error::from-the-server\\x1B[2J\\r\\u009B\\u202E"), seen)
    }

    /// `webhook listen` and `api serve` logs: a delivery whose id holds a line feed prints one
    /// line, not a second, fake "valid … forwarded: 200" one; requests with controls in the
    /// target, the headers and the events are logged escaped.
    func testServerLogsCannotBeForged() throws {
        for target in [CapturedOutputProcess.Target.pipe, .terminal] {
            let listener = try CapturedOutputProcess(["webhook", "listen", "--port", "0", "--secret-file", secret],
                                                     target: target, environment: environment)
            let port = try XCTUnwrap(listener.waitFor(#"127\.0\.0\.1:\d+"#)).split(separator: ":").last.map { Int($0)! }!
            _ = try LoopbackHTTPServer.sendRaw(port: port, Array(try signedDelivery()))
            _ = try LoopbackHTTPServer.sendRaw(port: port, Array("POST /hook\u{1B}]0;t\u{07}\u{9B}\u{202E} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}".utf8))
            _ = try LoopbackHTTPServer.sendRaw(port: port, Array("P\u{1B}[2JST /hook HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            XCTAssertNotNil(listener.waitFor("valid"))
            let listened = listener.stop()
            assertUnforgeable(listened, "\(target): webhook listen", colour: target == .terminal, kind: .text)
            let text = String(decoding: listened, as: UTF8.self)
            XCTAssertFalse(text.split(separator: "\n").contains { $0.hasPrefix("2026-01-01T00:00:00.000Z") }, "a forged line: \(text)")
            XCTAssertTrue(text.contains("evt\\n2026-01-01T00:00:00.000Z  payment.completed  evt_2  valid"), text)

            let server = try CapturedOutputProcess(["api", "serve", "--port", "0", "--bundle", bundle], target: target, environment: environment)
            let apiPort = try XCTUnwrap(server.waitFor(#"127\.0\.0\.1:\d+"#)).split(separator: ":").last.map { Int($0)! }!
            let events = try String(decoding: Data(contentsOf: URL(fileURLWithPath: queue)), as: UTF8.self).split(separator: "\n").dropLast()
            let batch = "{\"batch\": [\(events.joined(separator: ","))]}"
            _ = try LoopbackHTTPServer.sendRaw(port: apiPort, Array("POST /api/v1/ingest/events HTTP/1.1\r\nHost: x\r\nX-API-Key: adn_live_x\r\nContent-Type: application/json\r\nContent-Length: \(batch.utf8.count)\r\n\r\n\(batch)".utf8))
            _ = try LoopbackHTTPServer.sendRaw(port: apiPort, Array("GET /api/v1/\u{1B}[2J\u{9B}\u{202E}?\(Self.hostile.replacingOccurrences(of: "\n", with: "").replacingOccurrences(of: "\r", with: "").replacingOccurrences(of: " ", with: "")) HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            _ = try LoopbackHTTPServer.sendRaw(port: apiPort, Array("G\u{1B}]0;x\u{07}ET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            let served = server.stop()
            assertUnforgeable(served, "\(target): api serve", colour: target == .terminal, kind: .text)
            // The hostile target is refused by the strict request reader (400, its control
            // character named); the hostile event ids are logged, escaped, in the ingest verdict.
            let servedText = String(decoding: served, as: UTF8.self)
            XCTAssertTrue(servedText.contains("the request target holds the control character 0x1B"), servedText)
            XCTAssertTrue(servedText.contains(#"\u001b[2J"#), servedText)
        }
    }

    /// The hostile body, signed with the secret: a valid delivery.
    func signedDelivery() throws -> [UInt8] {
        let signed = try Binary.run(["webhook", "sign", body, "--secret-file", secret], environment: environment)
        XCTAssertEqual(signed.status, 0, signed.stderr)
        let signature = signed.text.trimmingCharacters(in: .whitespacesAndNewlines)
        let payload = try Data(contentsOf: URL(fileURLWithPath: body))
        let head = "POST /hook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-AppDNA-Event: payment.completed\r\n"
            + "X-AppDNA-Signature: \(signature)\r\nContent-Length: \(payload.count)\r\n\r\n"
        return Array(head.utf8) + Array(payload)
    }

    /// What an output may hold of its own beyond text.
    enum OutputKind {
        case text
        /// Tab-separated rows (batch TSV, `queue inspect --events`): the tabs between cells.
        case tabSeparated
        /// `--format github`: the tool's own workflow commands.
        case annotations
    }

    /// No raw control character but LF (and, with `colour`, SGR colour sequences; in rows, the
    /// tabs between cells), no DEL, C1, bidi control or line separator, and no line that a CI
    /// runner would read as a command.
    func assertUnforgeable(_ bytes: [UInt8], _ label: String, colour: Bool, kind: OutputKind,
                           file: StaticString = #filePath, line: UInt = #line) {
        var text = String(decoding: bytes, as: UTF8.self)
        if colour { text = text.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression) }
        let forbidden = text.unicodeScalars.filter { scalar in
            switch scalar.value {
            case 0x0A: return false
            case 0x09: return kind != .tabSeparated
            case 0..<0x20, 0x7F, 0x80...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029: return true
            default: return false
            }
        }
        XCTAssertTrue(forbidden.isEmpty, "\(label): raw \(forbidden.map { String(format: "U+%04X", $0.value) }) in\n\(text)", file: file, line: line)
        for row in text.split(separator: "\n") {
            let start = row.drop { $0.isWhitespace }
            guard start.hasPrefix("::") || start.hasPrefix("##[") || start.hasPrefix("##vso[") else { continue }
            if kind == .annotations, row.range(of: #"^::(error|warning) file=[^:]*,line=\d+,col=\d+,title=appdna [A-Z]\d+::"#, options: .regularExpression) != nil { continue }
            XCTFail("\(label): a line a CI runner obeys: \(row)", file: file, line: line)
        }
    }
}
