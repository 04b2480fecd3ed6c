import Foundation
import XCTest
import TestSupport

/// `appdna api serve` as users run it: a real process on a loopback port, talked to by curl
/// (raw requests) and by appdna itself (bundle fetch, --check, diff @remote, queue replay).
final class APIServeEndToEndTests: XCTestCase {
    static let key = "adn_test_serve0000000000000001"
    var scratch: ScratchDirectory!
    var curlPath = ""

    override func setUpWithError() throws {
        scratch = try ScratchDirectory("api-serve")
        addTeardownBlock { [scratch] in scratch?.remove() }
        curlPath = try requireTool("curl", because: "an independent HTTP client")
    }

    func bundle(version: Int, wrapped: Bool = false, name: String = "bundle.json") throws -> String {
        let experiments = #"{"exp_a":{"id":"exp_a","status":"running","salt":"s","variants":[{"id":"control","weight":0.5},{"id":"b","weight":0.5}]}}"#
        let text = wrapped
            ? #"{"bundle_version": \#(version), "sdk_min_version": "1.2.0", "generated_at": "2026-02-19T10:00:00Z", "content": {"experiments": \#(experiments), "in_app_messages": {}}}"#
            : #"{"bundle_version": \#(version), "experiments": \#(experiments)}"#
        return try scratch.file(name, Array((text + "\n").utf8))
    }

    struct Answer {
        let status: Int
        let headers: String
        let body: String
    }

    func curl(_ arguments: [String]) throws -> Answer {
        let bodyPath = scratch.path + "/curl-\(UUID().uuidString)"
        let headerPath = bodyPath + ".headers"
        let output = try ProcessRunner.run(curlPath, ["-s", "-o", bodyPath, "-D", headerPath, "-w", "%{http_code}", "--max-time", "20"] + arguments,
                                           environment: nil)
        return Answer(status: Int(output.stdout) ?? 0,
                      headers: (try? String(contentsOfFile: headerPath, encoding: .utf8)) ?? "",
                      body: (try? String(contentsOfFile: bodyPath, encoding: .utf8)) ?? "")
    }

    func get(_ server: APIServeProcess, _ path: String, key: String? = key) throws -> Answer {
        try curl((key.map { ["-H", "x-api-key: \($0)"] } ?? []) + [server.baseURL + path])
    }

    /// POSTs `json` to the ingest endpoint, compressed as `encoding` says (Python's zlib: raw
    /// DEFLATE with wbits -15 as the SDK sends, or zlib-wrapped as HTTP's "deflate" means).
    func postEvents(_ server: APIServeProcess, json: String, encoding: String = "raw") throws -> Answer {
        let plain = try scratch.file("batch-\(UUID().uuidString).json", Array(json.utf8))
        let body = plain + ".body"
        let wbits = encoding == "zlib" ? 15 : -15
        _ = try ProcessRunner.run("/usr/bin/env", ["python3", "-c",
            "import sys,zlib\nc=zlib.compressobj(6,zlib.DEFLATED,\(wbits))\nopen(sys.argv[2],'wb').write(c.compress(open(sys.argv[1],'rb').read())+c.flush())",
            plain, body], environment: nil)
        return try curl(["-X", "POST", "--data-binary", "@" + body, "-H", "x-api-key: \(Self.key)", "-H", "Content-Type: application/json",
                         "-H", "Content-Encoding: deflate", "-H", "x-sdk-platform: ios", "-H", "x-sdk-version: 1.0.78",
                         server.baseURL + "/api/v1/ingest/events"])
    }

    func appdna(_ arguments: [String], server: APIServeProcess, key: String = key) throws -> Binary.Result {
        try Binary.run(arguments, environment: ["APPDNA_SDK_KEY": key, "APPDNA_API_URL": server.baseURL])
    }

    // MARK: - Endpoints

    func testBundleEndpointsServeEitherShapeAndFollowTheFile() throws {
        let path = try bundle(version: 41, wrapped: true)
        let server = try APIServeProcess(["--bundle", path])
        let version = try get(server, "/api/v1/sdk/config-bundle/version")
        XCTAssertEqual(version.status, 200)
        XCTAssertEqual(version.body, #"{"bundle_version":41,"sdk_min_version":"1.2.0","size_bytes":\#(try Data(contentsOf: URL(fileURLWithPath: path)).count),"generated_at":"2026-02-19T10:00:00Z"}"#)
        let whole = try get(server, "/api/v1/sdk/config-bundle")
        XCTAssertEqual(whole.status, 200)
        XCTAssertEqual(whole.body, try String(contentsOfFile: path, encoding: .utf8), "the file as written")
        XCTAssertTrue(whole.headers.lowercased().contains("content-type: application/json"))

        // The file changes (the SDK shape now): the next request sees it.
        _ = try bundle(version: 42)
        XCTAssertTrue(try get(server, "/api/v1/sdk/config-bundle/version").body.hasPrefix(#"{"bundle_version":42,"sdk_min_version":"1.0.0""#))
        // A broken edit is not served.
        try Data("{\"bundle_version\": ".utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(try get(server, "/api/v1/sdk/config-bundle").status, 500)
        XCTAssertEqual(try get(server, "/api/v1/other").status, 404)
        XCTAssertEqual(try curl(["-X", "POST", "-H", "x-api-key: k", server.baseURL + "/api/v1/sdk/config-bundle"]).status, 405)

        XCTAssertEqual(server.stop(), 0)
        XCTAssertEqual(server.requestLines.count, 6, server.requestLines.joined(separator: "\n"))
        XCTAssertTrue(server.requestLines[0].hasSuffix("GET /api/v1/sdk/config-bundle/version  200  bundle_version 41"), server.requestLines[0])
        // The POST to the bundle path is not a bundle request: refused by the route table, counted as other.
        XCTAssertTrue(server.stderr.contains("stopped: 6 requests (bundle 2, other 2, version 2"), server.stderr)
    }

    func testKeyCheck() throws {
        let keyFile = try scratch.file("key", Array((Self.key + "\n").utf8))
        let anyKey = try APIServeProcess(["--bundle", try bundle(version: 1)])
        XCTAssertEqual(try get(anyKey, "/api/v1/sdk/config-bundle/version", key: nil).status, 401)
        XCTAssertEqual(try get(anyKey, "/api/v1/sdk/config-bundle/version", key: "anything").status, 200)
        anyKey.stop()
        XCTAssertTrue(anyKey.stderr.contains("1 key refused"), anyKey.stderr)

        let oneKey = try APIServeProcess(["--bundle", try bundle(version: 1), "--key-file", keyFile])
        XCTAssertEqual(try get(oneKey, "/api/v1/sdk/config-bundle/version", key: "adn_test_other").status, 401)
        XCTAssertEqual(try get(oneKey, "/api/v1/sdk/config-bundle/version").status, 200)
        XCTAssertEqual(try appdna(["bundle", "fetch", "--check", "-o", try bundle(version: 1, name: "app.json")], server: oneKey, key: "adn_test_wrong0000000000000000").status, 77)
        oneKey.stop()

        let envKey = try APIServeProcess(["--bundle", try bundle(version: 1), "--key-from-env"], environment: ["APPDNA_SDK_KEY": Self.key])
        XCTAssertEqual(try get(envKey, "/api/v1/sdk/config-bundle/version", key: "adn_test_other").status, 401)
        XCTAssertEqual(try get(envKey, "/api/v1/sdk/config-bundle/version").status, 200)
        envKey.stop()
        XCTAssertFalse(envKey.stderr.contains(Self.key) || envKey.requestLines.joined().contains(Self.key), "the key is never printed")
    }

    func testIngestChecksTheDocumentedBodyAndRecordsNewEvents() throws {
        let record = scratch.path + "/events.ndjson"
        let server = try APIServeProcess(["--bundle", try bundle(version: 1), "--record", record])
        let events = (1...3).map { TestEvents.stored($0, ts: 1_771_400_000_000) }
        let batch = #"{"batch":[\#(events.joined(separator: ","))]}"#
        let first = try postEvents(server, json: batch)
        XCTAssertEqual(first.status, 200, first.body)
        XCTAssertEqual(first.body, #"{"accepted":3,"duplicates":0}"# + "\n")
        // The server keeps one copy per event_id.
        XCTAssertEqual(try postEvents(server, json: batch).body, #"{"accepted":0,"duplicates":3}"# + "\n")

        let zlib = try postEvents(server, json: batch, encoding: "zlib")
        XCTAssertEqual(zlib.status, 400)
        XCTAssertTrue(zlib.body.contains("zlib header"), zlib.body)
        let documented = try postEvents(server, json: #"{"events":[\#(events[0])]}"#)
        XCTAssertEqual(documented.status, 400)
        XCTAssertTrue(documented.body.contains("the SDK sends"), documented.body)
        let badEvent = try postEvents(server, json: #"{"batch":[{"event_id":"E8"}]}"#)
        XCTAssertEqual(badEvent.status, 400)
        XCTAssertTrue(badEvent.body.contains("batch[0]"), badEvent.body)
        XCTAssertEqual(server.stop(), 0)

        // What was recorded is the events exactly as sent, one per line: a queue file that
        // queue inspect (the reader the client uses) reads as the device's NDJSON queue.
        XCTAssertEqual(try String(contentsOfFile: record, encoding: .utf8), events.joined(separator: "\n") + "\n")
        let inspect = try Binary.run(["queue", "inspect", "--json", record])
        XCTAssertEqual(inspect.status, 0, inspect.stderr)
        let summary = try JSONSerialization.jsonObject(with: inspect.stdout) as? [String: Any]
        XCTAssertEqual((summary?["sources"] as? [[String: Any]])?.first?["live"] as? Int, 3, inspect.text)
        XCTAssertTrue(server.stderr.contains("3 events accepted (recorded in \(record)), 3 duplicates"), server.stderr)
    }

    // MARK: - Faults

    func testFailAndRetryAfter() throws {
        let server = try APIServeProcess(["--bundle", try bundle(version: 1), "--fail", "503:2", "--retry-after", "1s"])
        let first = try get(server, "/api/v1/sdk/config-bundle/version")
        XCTAssertEqual(first.status, 503)
        XCTAssertTrue(first.headers.contains("Retry-After: 1\r\n"), first.headers)
        XCTAssertEqual(try get(server, "/api/v1/sdk/config-bundle").status, 503)
        XCTAssertEqual(try get(server, "/api/v1/sdk/config-bundle").status, 200)
        server.stop()
        XCTAssertTrue(server.stderr.contains("2 faults injected"), server.stderr)

        // --fail-after: a service that goes down mid-run, and stays down.
        let later = try APIServeProcess(["--bundle", try bundle(version: 1), "--fail", "500", "--fail-after", "1"])
        XCTAssertEqual(try get(later, "/api/v1/sdk/config-bundle").status, 200)
        XCTAssertEqual(try get(later, "/api/v1/sdk/config-bundle").status, 500)
        XCTAssertEqual(try get(later, "/api/v1/sdk/config-bundle").status, 500)
        later.stop()

        XCTAssertEqual(try Binary.run(["api", "serve", "--bundle", try bundle(version: 1), "--fail", "busy"]).status, 64)
    }

    func testLatency() throws {
        let server = try APIServeProcess(["--bundle", try bundle(version: 1), "--latency", "400ms"])
        let started = Date()
        XCTAssertEqual(try get(server, "/api/v1/sdk/config-bundle").status, 200)
        // The answer cannot come before the latency asked for (a lower bound, not a speed figure).
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.4)
        server.stop()
    }

    func testStatus413OverMakesReplaySplitBatches() throws {
        let server = try APIServeProcess(["--bundle", try bundle(version: 1), "--status-413-over", "300B"])
        let queue = try scratch.file("pending_events.json", Array((1...40).map { TestEvents.stored($0, ts: 1_771_400_000_000) + "\n" }.joined().utf8))
        let replay = try appdna(["queue", "replay", queue, "--now", "2026-02-19T10:00:00Z", "--yes"], server: server)
        XCTAssertEqual(replay.status, 0, replay.stderr + replay.text)
        XCTAssertTrue((replay.text + replay.stderr).contains("batches split after 413"), replay.text)
        XCTAssertFalse((replay.text + replay.stderr).contains("0 batches split after 413"), replay.text)
        server.stop()
        XCTAssertTrue(server.requestLines.contains { $0.contains("  413  ") }, server.requestLines.joined(separator: "\n"))
        XCTAssertTrue(server.stderr.contains("40 events accepted"), server.stderr)
    }

    // MARK: - The client's commands against it

    func testFetchCheckDiffRemoteAndReplay() throws {
        let served = try bundle(version: 42, wrapped: true)
        let server = try APIServeProcess(["--bundle", served, "--fail", "503:1"])
        let output = scratch.path + "/appdna-config.json"
        let fetch = try appdna(["bundle", "fetch", "-o", output], server: server)
        XCTAssertEqual(fetch.status, 0, fetch.stderr)
        XCTAssertTrue(try String(contentsOfFile: output, encoding: .utf8).contains("\"messages\""), "written in the SDK's shape")
        let check = try appdna(["bundle", "fetch", "--check", "-o", output], server: server)
        XCTAssertEqual(check.text, "up to date (bundle_version 42)\n")
        let same = try appdna(["bundle", "diff", "--stat", output, "@remote"], server: server)
        XCTAssertEqual(same.status, 0, same.stderr + same.text)

        _ = try bundle(version: 43, wrapped: true)
        let behind = try appdna(["bundle", "fetch", "--check", "-o", output], server: server)
        XCTAssertEqual(behind.status, 1)
        XCTAssertEqual(behind.text, "behind: file bundle_version 42, live bundle_version 43\n")

        let queue = try scratch.file("pending_events.json", Array((1...5).map { TestEvents.stored($0, ts: 1_771_400_000_000) + "\n" }.joined().utf8))
        let replay = try appdna(["queue", "replay", queue, "--now", "2026-02-19T10:00:00Z", "--yes"], server: server)
        XCTAssertEqual(replay.status, 0, replay.stderr + replay.text)
        server.stop()
        XCTAssertTrue(server.stderr.contains("5 events accepted"), server.stderr)
        XCTAssertTrue(server.requestLines.contains { $0.contains("POST /api/v1/ingest/events  200  5 events, 0 duplicates ios 1.0.78") },
                      server.requestLines.joined(separator: "\n"))
    }
}
