import Foundation
import LoopbackHTTPServer
import TestSupport
import XCTest

/// The inspector's JSON API and its guard, with curl against the built binary: the token and
/// Origin rules for a replay, the Host rule, the headers of every answer, loopback only, the
/// resend command, the bound on what is kept, and `api serve --inspect`.
final class InspectorAPIEndToEndTests: XCTestCase {
    var directory: URL!
    var secretPath = ""
    var handler: LoopbackHTTPServer!
    var processes: [InspectedProcess] = []

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-inspector-api-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        secretPath = directory.appendingPathComponent("secret.txt").path
        try Data("whsec_inspector_api_\(UUID().uuidString)\n".utf8).write(to: URL(fileURLWithPath: secretPath))
        handler = try LoopbackHTTPServer { _, _ in .init(status: 202, headers: [("Content-Type", "text/plain")], body: Array("handled".utf8)) }
    }

    override func tearDownWithError() throws {
        for process in processes { process.stop() }
        handler?.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    func startListener(_ extra: [String] = []) throws -> InspectedProcess {
        let listener = try InspectedProcess(["webhook", "listen", "--secret-file", secretPath, "--forward-to", handler.baseURL + "/hooks"] + extra,
                                            in: directory)
        processes.append(listener)
        return listener
    }

    func send(_ body: String, to listener: InspectedProcess) throws {
        try sendDelivery(Data(body.utf8), to: listener.listener + "/webhooks", secretPath: secretPath, in: directory)
    }

    static let demoBody = #"{"id":"evt_api","type":"subscription.renewed","created_at":"2026-02-19T10:00:00Z","data":{"user_id":"u1"}}"#

    /// `{"batch": [events numbered …]}` compressed as the SDK sends it (raw DEFLATE), in a file.
    static func deflatedBatch(_ numbers: [Int], in directory: URL) throws -> String {
        let json = #"{"batch":["# + numbers.map { TestEvents.stored($0, ts: 1_760_000_000_000 + Int64($0)) }.joined(separator: ",") + "]}"
        let plain = directory.appendingPathComponent("batch-\(UUID().uuidString).json").path
        try Data(json.utf8).write(to: URL(fileURLWithPath: plain))
        let compressed = plain + ".deflate"
        let python = try ProcessRunner.run("/usr/bin/env", ["python3", "-c", """
            import sys, zlib
            packer = zlib.compressobj(9, zlib.DEFLATED, -15)
            open(sys.argv[2], 'wb').write(packer.compress(open(sys.argv[1], 'rb').read()) + packer.flush())
            """, plain, compressed], environment: nil)
        XCTAssertEqual(python.status, 0, python.stderr)
        return compressed
    }

    // MARK: - Who may replay

    func testReplayNeedsTheTokenAndRefusesAForeignOrigin() throws {
        let listener = try startListener()
        try send(Self.demoBody, to: listener)
        XCTAssertEqual(handler.requests.count, 1)
        let token = try inspectorToken(listener.inspector, in: directory)
        XCTAssertEqual(token.count, 32)
        XCTAssertTrue(token.allSatisfy(\.isHexDigit), token)
        let replay = listener.inspector + "/api/deliveries/1/replay"

        let none = try curl(replay, ["-X", "POST"], in: directory)
        XCTAssertEqual(none.status, 403)
        XCTAssertTrue((none.json["error"] as? String ?? "").contains("X-AppDNA-Inspector-Token is missing"), none.text)
        let wrong = try curl(replay, ["-X", "POST", "-H", "X-AppDNA-Inspector-Token: " + String(token.reversed())], in: directory)
        XCTAssertEqual(wrong.status, 403)
        XCTAssertEqual(wrong.json["error"] as? String, "X-AppDNA-Inspector-Token is not this run's token")
        for origin in ["http://evil.example", "null", "http://127.0.0.1:\(listener.listenerPort)", "https://127.0.0.1:\(listener.inspectorPort)"] {
            let foreign = try curl(replay, ["-X", "POST", "-H", "X-AppDNA-Inspector-Token: \(token)", "-H", "Origin: \(origin)"], in: directory)
            XCTAssertEqual(foreign.status, 403, origin)
            XCTAssertTrue((foreign.json["error"] as? String ?? "").hasPrefix("a page from another origin"), foreign.text)
        }
        // A GET cannot replay either.
        XCTAssertEqual(try curl(replay, ["-H", "X-AppDNA-Inspector-Token: \(token)"], in: directory).status, 405)
        XCTAssertEqual(handler.requests.count, 1, "no refused replay reached the handler")

        // The token, from the page's own origin or with none (curl): replayed.
        let same = try curl(replay, ["-X", "POST", "-H", "X-AppDNA-Inspector-Token: \(token)", "-H", "Origin: \(listener.inspector)"], in: directory)
        XCTAssertEqual(same.status, 200, same.text)
        let replayed = try XCTUnwrap(same.json["replay"] as? [String: Any])
        XCTAssertEqual(replayed["status"] as? Int, 202)
        XCTAssertEqual((replayed["answer"] as? [String: Any])?["text"] as? String, "handled")
        XCTAssertEqual(try curl(replay, ["-X", "POST", "-H", "X-AppDNA-Inspector-Token: \(token)"], in: directory).status, 200)
        XCTAssertEqual(handler.requests.count, 3)
        XCTAssertEqual(handler.requests[2].body, Array(Self.demoBody.utf8))
        XCTAssertEqual(handler.requests[2].header("X-AppDNA-Signature"), handler.requests[0].header("X-AppDNA-Signature"))
        let detail = try curl(listener.inspector + "/api/deliveries/1", in: directory).json
        XCTAssertEqual(detail["replays"] as? Int, 2)
        XCTAssertEqual((detail["replay_results"] as? [Any])?.count, 2)

        // A delivery the inspector no longer has, or never had.
        XCTAssertEqual(try curl(listener.inspector + "/api/deliveries/7/replay", ["-X", "POST", "-H", "X-AppDNA-Inspector-Token: \(token)"],
                                in: directory).status, 404)
    }

    func testOnlyRequestsNamingTheInspectorItselfAreAnswered() throws {
        let listener = try startListener()
        try send(Self.demoBody, to: listener)
        let port = listener.inspectorPort
        for host in ["127.0.0.1:\(port)", "localhost:\(port)", "LOCALHOST:\(port)"] {
            XCTAssertEqual(try curl(listener.inspector + "/api/deliveries", ["-H", "Host: \(host)"], in: directory).status, 200, host)
        }
        // A name rebound to 127.0.0.1 (DNS rebinding), another port, or none at all.
        for host in ["attacker.example:\(port)", "attacker.example", "127.0.0.1:\(port + 1)", ""] {
            for path in ["/", "/api/deliveries", "/api/deliveries/1", "/api/deliveries/1/record"] {
                let answer = try curl(listener.inspector + path, ["-H", "Host: \(host)"], in: directory)
                // An empty Host is not a host[:port] at all: the server refuses it (400) before the guard does (403).
                XCTAssertEqual(answer.status, host.isEmpty ? 400 : 403, "\(host) \(path)")
                XCTAssertFalse(answer.text.contains("evt_api"), "\(host) \(path)")
            }
        }
    }

    func testEveryAnswerForbidsInlineScriptAndOutsideResources() throws {
        let listener = try startListener()
        try send(Self.demoBody, to: listener)
        var served: [String: String] = [:]
        for path in ["/", "/inspector.js", "/inspector.css", "/api/deliveries", "/api/deliveries/1", "/api/deliveries/99", "/nothing"] {
            let answer = try curl(listener.inspector + path, in: directory)
            let policy = answer.headers["content-security-policy"] ?? ""
            XCTAssertTrue(policy.hasPrefix("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self';"), "\(path): \(policy)")
            XCTAssertTrue(policy.contains("frame-ancestors 'none'"), policy)
            XCTAssertEqual(answer.headers["x-content-type-options"], "nosniff", path)
            XCTAssertEqual(answer.headers["x-frame-options"], "DENY", path)
            XCTAssertEqual(answer.headers["cache-control"], "no-store", path)
            served[path] = answer.text
        }
        XCTAssertEqual(try curl(listener.inspector + "/inspector.js", in: directory).headers["content-type"], "text/javascript; charset=utf-8")
        XCTAssertEqual(try curl(listener.inspector + "/api/deliveries", in: directory).headers["content-type"], "application/json; charset=utf-8")
        // The page: one script, from a file; no inline handler; nothing from elsewhere (offline).
        let page = try XCTUnwrap(served["/"])
        XCTAssertEqual(page.components(separatedBy: "<script").count - 1, 1)
        XCTAssertTrue(page.contains(#"<script src="/inspector.js" defer></script>"#))
        XCTAssertNil(page.range(of: #"\son[a-z]+\s*="#, options: .regularExpression), "an inline event handler")
        XCTAssertNil(page.range(of: "style=", options: .caseInsensitive))
        for (path, text) in served where ["/", "/inspector.js", "/inspector.css"].contains(path) {
            XCTAssertNil(text.range(of: #"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}/"#, options: [.regularExpression, .caseInsensitive]), "\(path) loads from elsewhere")
            XCTAssertFalse(text.contains("@import"), path)
        }
        // The script never hands data to the HTML parser.
        let script = try XCTUnwrap(served["/inspector.js"])
        for sink in [#"\.innerHTML\b"#, #"\.outerHTML\b"#, #"insertAdjacentHTML\("#, #"document\.write"#, #"\beval\("#, #"new Function\("#] {
            XCTAssertNil(script.range(of: sink, options: .regularExpression), sink)
        }
    }

    // MARK: - Loopback only

    func testTheInspectorStaysOnLoopbackWhenTheListenerListensEverywhere() throws {
        #if os(macOS)
        throw XCTSkip("macOS routes only 127.0.0.1 to loopback unless told otherwise")
        #else
        // 127.0.0.2 reaches a socket bound to 0.0.0.0 (the listener) but not one bound to
        // 127.0.0.1 (the inspector): Linux routes all of 127.0.0.0/8 to loopback.
        let listener = try startListener(["--host", "0.0.0.0"])
        XCTAssertTrue(listener.stderr.contains("listening on http://0.0.0.0:\(listener.listenerPort)"), listener.stderr)
        let curlPath = try requireTool("curl", because: "the inspector's API is tested with curl")
        let toListener = try ProcessRunner.run(curlPath, ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10",
                                                          "-X", "POST", "http://127.0.0.2:\(listener.listenerPort)/webhooks"], environment: [:])
        XCTAssertEqual(toListener.stdout, "401", "the listener answers on every interface")
        let toInspector = try ProcessRunner.run(curlPath, ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10",
                                                           "http://127.0.0.2:\(listener.inspectorPort)/"], environment: [:])
        XCTAssertEqual(toInspector.status, 7, "connection refused: \(toInspector.stdout) \(toInspector.stderr)")
        XCTAssertEqual(try curl(listener.inspector + "/", in: directory).status, 200)
        let list = try curl(listener.inspector + "/api/deliveries", in: directory).json
        XCTAssertEqual((list["listener"] as? [String: Any])?["address"] as? String, "http://0.0.0.0:\(listener.listenerPort)")
        #endif
    }

    // MARK: - The resend command and the record

    func testTheResendCommandSendsTheDeliveryAgainByteForByte() throws {
        let listener = try startListener()
        let body = "{\"id\":\"evt_resend\", \"type\":\"x\",\"created_at\":\"2026-02-19T10:00:00Z\",\"data\":{\"q\":\"it's\"}}\n"
        try send(body, to: listener)
        let detail = try curl(listener.inspector + "/api/deliveries/1", in: directory).json
        let command = try XCTUnwrap(detail["resend_command"] as? String)
        // The command as printed, by a shell, with this build's appdna and curl on PATH.
        let bin = Binary.url.deletingLastPathComponent().path
        let shell = try ProcessRunner.run("/bin/sh", ["-c", command], environment: ["PATH": "\(bin):/usr/bin:/bin"],
                                          currentDirectory: directory.path)
        XCTAssertEqual(shell.status, 0, shell.stdout + shell.stderr)
        let record = try String(contentsOf: directory.appendingPathComponent("delivery-1.ndjson"), encoding: .utf8)
        XCTAssertTrue(record.hasPrefix(#"{"received_at":""#), record)
        XCTAssertTrue(record.hasSuffix("\"valid\":true}\n"), record)

        // The listener got it again (checked again, valid), and the handler got the same bytes.
        let list = try curl(listener.inspector + "/api/deliveries", in: directory).json
        let deliveries = try XCTUnwrap(list["deliveries"] as? [[String: Any]])
        XCTAssertEqual(deliveries.map { $0["id"] as? Int }, [2, 1])
        XCTAssertEqual(deliveries[0]["valid"] as? Bool, true)
        XCTAssertEqual(handler.requests.count, 2)
        XCTAssertEqual(handler.requests[1].body, Array(body.utf8))
        XCTAssertEqual(handler.requests[1].header("X-AppDNA-Signature"), handler.requests[0].header("X-AppDNA-Signature"))
    }

    func testABodyLargerThanWhatIsKeptIsShownCutAndNotReplayed() throws {
        let listener = try startListener()
        let filler = String(repeating: "é", count: 40_000)  // 80,000 bytes of two-byte characters
        let body = #"{"id":"evt_big","type":"x","created_at":"2026-02-19T10:00:00Z","data":{"filler":"\#(filler)"}}"#
        try send(body, to: listener)
        let detail = try curl(listener.inspector + "/api/deliveries/1", in: directory).json
        let shown = try XCTUnwrap(detail["body"] as? [String: Any])
        XCTAssertEqual(shown["length"] as? Int, body.utf8.count)
        XCTAssertEqual(shown["kept"] as? Int, 65_536)
        XCTAssertEqual(shown["encoding"] as? String, "text")
        XCTAssertEqual((shown["text"] as? String)?.utf8.count, 65_535, "the text ends at the last whole character")
        XCTAssertEqual(detail["replayable"] as? Bool, false)
        XCTAssertTrue((detail["not_replayable"] as? String ?? "").contains("larger than the 64 KiB the inspector keeps"))
        XCTAssertTrue(detail["resend_command"] is NSNull)
        let token = try inspectorToken(listener.inspector, in: directory)
        XCTAssertEqual(try curl(listener.inspector + "/api/deliveries/1/replay", ["-X", "POST", "-H", "X-AppDNA-Inspector-Token: \(token)"],
                                in: directory).status, 409)
        XCTAssertEqual(try curl(listener.inspector + "/api/deliveries/1/record", in: directory).status, 409)
        XCTAssertEqual(handler.requests.count, 1)
    }

    // MARK: - Bounded

    /// 10,000 deliveries on one keep-alive connection (Tests/Tools/send_deliveries.py, signed by
    /// Python's hmac); the inspector lists the last 100 of them and has forgotten the rest.
    func testTheInspectorKeepsOnlyTheLastNOfTenThousandDeliveries() throws {
        let listener = try InspectedProcess(["webhook", "listen", "--secret-file", secretPath, "--inspect-keep", "100"], in: directory)
        processes.append(listener)
        let sender = try ProcessRunner.run("/usr/bin/env", ["python3", repositoryRoot.appendingPathComponent("Tests/Tools/send_deliveries.py").path,
                                                            String(listener.listenerPort), secretPath, "10000"], environment: nil)
        XCTAssertEqual(sender.status, 0, sender.stderr)
        XCTAssertEqual(sender.stdout, "10000 answered 200\n")

        let list = try curl(listener.inspector + "/api/deliveries", in: directory).json
        XCTAssertEqual(list["keep"] as? Int, 100)
        XCTAssertEqual(list["received"] as? Int, 10_000)
        let deliveries = try XCTUnwrap(list["deliveries"] as? [[String: Any]])
        XCTAssertEqual(deliveries.map { $0["id"] as? Int }, Array((9_901...10_000).reversed()))
        XCTAssertEqual(deliveries.first?["event_id"] as? String, "evt_10000")
        XCTAssertEqual(deliveries.last?["event_id"] as? String, "evt_9901")
        XCTAssertEqual(try curl(listener.inspector + "/api/deliveries/9900", in: directory).status, 404)
        XCTAssertEqual(try curl(listener.inspector + "/api/deliveries/9901", in: directory).status, 200)
        let newer = try curl(listener.inspector + "/api/deliveries?after=9995", in: directory).json
        XCTAssertEqual((newer["deliveries"] as? [[String: Any]])?.map { $0["id"] as? Int }, [10_000, 9_999, 9_998, 9_997, 9_996])
        XCTAssertEqual(try curl(listener.inspector + "/api/deliveries?after=x", in: directory).status, 400)
        XCTAssertEqual(listener.stdout.split(separator: "\n").count, 10_000, "every delivery was still logged")
    }


    // MARK: - api serve

    func testAPIServeKeepsEachRequestItsFaultAndTheEventsOfABatch() throws {
        let bundle = repositoryRoot.appendingPathComponent("examples/experiments/appdna-config.json").path
        let server = try InspectedProcess(["api", "serve", "--bundle", bundle, "--fail", "503:1", "--fail-after", "1"], in: directory)
        processes.append(server)
        let key = ["-H", "x-api-key: adn_test_inspector_key"]
        XCTAssertEqual(try curl(server.listener + "/api/v1/sdk/config-bundle", key, in: directory).status, 200)
        XCTAssertEqual(try curl(server.listener + "/api/v1/sdk/config-bundle/version", key, in: directory).status, 503)
        let batch = try Self.deflatedBatch([1, 2, 1], in: directory)
        XCTAssertEqual(try curl(server.listener + "/api/v1/ingest/events", key + ["-H", "Content-Encoding: deflate", "--data-binary", "@" + batch],
                                in: directory).text, #"{"accepted":2,"duplicates":1}"# + "\n")

        let list = try curl(server.inspector + "/api/requests", in: directory).json
        XCTAssertEqual((list["listener"] as? [String: Any])?["address"] as? String, "http://127.0.0.1:\(server.listenerPort)")
        let requests = try XCTUnwrap(list["requests"] as? [[String: Any]])
        XCTAssertEqual(requests.map { $0["endpoint"] as? String }, ["events", "version", "bundle"])
        XCTAssertEqual(requests.map { $0["status"] as? Int }, [200, 503, 200])
        XCTAssertEqual(requests.map { $0["fault"] as? String }, [nil, "injected by --fail", nil])
        XCTAssertEqual(requests[0]["events"] as? Int, 2)
        XCTAssertEqual(requests[0]["duplicates"] as? Int, 1)

        let detail = try curl(server.inspector + "/api/requests/3", in: directory).json
        XCTAssertEqual(detail["batch_count"] as? Int, 3)
        let events = try XCTUnwrap(detail["batch"] as? [[String: Any]])
        XCTAssertEqual(events.map { $0["event_id"] as? String }, [TestEvents.id(1), TestEvents.id(2), TestEvents.id(1)])
        XCTAssertEqual(events.map { $0["duplicate"] as? Bool }, [false, false, true])
        XCTAssertEqual(events.map { $0["event_name"] as? String }, ["app_open", "app_open", "app_open"])
        XCTAssertTrue((events[0]["pretty"] as? String ?? "").contains("\n  \"event_id\": \"\(TestEvents.id(1))\",\n"))
        let body = try XCTUnwrap(detail["body"] as? [String: Any])
        XCTAssertEqual(body["encoding"] as? String, "deflate")
        XCTAssertEqual(body["length"] as? Int, try Data(contentsOf: URL(fileURLWithPath: batch)).count)
        // The key is a credential: its header is listed, its value is not, anywhere.
        let headers = try XCTUnwrap(detail["headers"] as? [[Any]])
        XCTAssertTrue(headers.contains { $0.first as? String == "x-api-key" && $0.last is NSNull })
        for path in ["/api/requests", "/api/requests/1", "/api/requests/2", "/api/requests/3"] {
            XCTAssertFalse(try curl(server.inspector + path, in: directory).text.contains("adn_test_inspector_key"), path)
        }
        // Nothing to replay on api serve.
        let token = try inspectorToken(server.inspector, in: directory)
        XCTAssertEqual(try curl(server.inspector + "/api/requests/3/replay", ["-X", "POST", "-H", "X-AppDNA-Inspector-Token: \(token)"],
                                in: directory).status, 404)
        XCTAssertEqual(server.stop(), 0)
    }

    func testInspectKeepWithoutInspectIsAUsageError() throws {
        let result = try Binary.run(["webhook", "listen", "--port", "0", "--inspect-keep", "10", "--secret-file", secretPath])
        XCTAssertEqual(result.status, 64)
        XCTAssertTrue(result.stderr.contains("--inspect-keep goes with --inspect PORT"), result.stderr)
        let range = try Binary.run(["webhook", "listen", "--port", "0", "--inspect", "0", "--inspect-keep", "0", "--secret-file", secretPath])
        XCTAssertEqual(range.status, 64, range.stderr)
    }

    /// The listener's plan reads every flag before it opens anything: a usage error leaves no
    /// record file behind.
    func testAUsageErrorOpensNoRecordFile() throws {
        let scratch = try ScratchDirectory("listen-usage")
        defer { scratch.remove() }
        let record = scratch.url.appendingPathComponent("deliveries.ndjson").path
        let result = try Binary.run(["webhook", "listen", "--port", "0", "--inspect-max-bytes", "2MiB", "--record", record, "--secret-file", secretPath])
        XCTAssertEqual(result.status, 64, result.stderr)
        XCTAssertTrue(result.stderr.contains("--inspect-max-bytes goes with --inspect PORT"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: record), "the record file is opened only once the plan is whole")
    }

    func testAnInspectorPortInUseIsSaidWithItsOwnFlag() throws {
        let listener = try startListener()
        let taken = try Binary.run(["webhook", "listen", "--port", "0", "--inspect", String(listener.inspectorPort), "--secret-file", secretPath])
        XCTAssertEqual(taken.status, 69, taken.stderr)
        XCTAssertTrue(taken.stderr.contains("--inspect: cannot listen on 127.0.0.1:\(listener.inspectorPort)"), taken.stderr)
        XCTAssertTrue(taken.stderr.contains("pick another with --inspect (0 picks a free one)"), taken.stderr)
        let api = try Binary.run(["api", "serve", "--bundle", repositoryRoot.appendingPathComponent("examples/experiments/appdna-config.json").path,
                                  "--port", "0", "--inspect", String(listener.inspectorPort)])
        XCTAssertEqual(api.status, 69, api.stderr)
    }
}
