import Foundation
import TestSupport
import XCTest

/// Every byte an ingest batch makes `api serve` hold is taken from its budget before it is
/// allocated (issue 49), so a flood of batches that inflate far past what the process may hold
/// is answered, not fatal: under `ulimit -v 800000` (a budget of 200 MB), 24 clients at once
/// send a 30 KB batch that inflates to 11 MB (one event with 300,000 exposures: about 75 MB
/// with its parse, copies and audit). Each gets 200, or 503 with Retry-After, or 413; none
/// loses its connection; the server answers afterwards and recorded the event once. Before,
/// the inflated bytes, the parse and the audit were not counted, and the server aborted on a
/// failed allocation. The full-size figures (64 batches of 54 MB) are bench/ingest-memory.sh's.
final class IngestMemoryEndToEndTests: XCTestCase {
    func testAFloodOfInflatingBatchesIsAnsweredWithinTheBudgetAndTheServerLives() throws {
        let python = try requireTool("python3", because: "the batch is made and sent by Tests/Tools/ingest_memory.py")
        _ = try requireTool("curl", because: "the server is asked afterwards with curl")
        let scratch = try ScratchDirectory("ingest-memory")
        defer { scratch.remove() }
        let driver = repositoryRoot.appendingPathComponent("Tests/Tools/ingest_memory.py").path
        let batch = scratch.path + "/batch.bin"
        let made = try ProcessRunner.run(python, [driver, "make", batch, "300000"], environment: nil)
        XCTAssertEqual(made.status, 0, made.stderr)
        let bundle = try scratch.file("bundle.json", Array(#"{"bundle_version": 1, "experiments": {"experiments": {"exp-a": {"status": "running", "salt": "s", "variants": [{"id": "control", "weight": 0.5, "is_control": true}, {"id": "b", "weight": 0.5}]}}}}"#.utf8))
        let record = scratch.path + "/events.ndjson"

        let stderrPath = scratch.path + "/serve.err"
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/bin/sh")
        server.arguments = ["-c", "ulimit -v 800000 && exec \"$0\" \"$@\"", Binary.url.path,
                            "api", "serve", "--port", "0", "--bundle", bundle, "--record", record]
        server.environment = ["PATH": "/usr/bin:/bin"]
        server.standardInput = FileHandle.nullDevice
        server.standardOutput = FileHandle.nullDevice
        server.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        try server.run()
        defer { if server.isRunning { server.terminate() }; server.waitUntilExit() }
        var port: Int?
        let started = Date()
        while port == nil && Date().timeIntervalSince(started) < 20 && server.isRunning {
            let text = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
            port = text.firstMatch(of: /\ at http:\/\/127\.0\.0\.1:(\d+);/).flatMap { Int($0.1) }
            if port == nil { usleep(20_000) }
        }
        let listening = try XCTUnwrap(port, "api serve did not start: \((try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "")")

        let flood = try ProcessRunner.run(python, [driver, "flood", String(server.processIdentifier), String(listening), batch, "24"], environment: nil)
        XCTAssertEqual(flood.status, 0, flood.stderr)
        // "statuses {"200": 2, "503+Retry-After": 22} lost 0 alive 1 hwm_kib 183000"
        let match = try XCTUnwrap(flood.stdout.firstMatch(of: /statuses (\{.*\}) lost (\d+) alive (\d)/), flood.stdout)
        let statuses = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(match.1.utf8)) as? [String: Int])
        XCTAssertEqual(Set(statuses.keys).subtracting(["200", "413", "503+Retry-After"]), [],
                       "only 200, 413 and 503 with Retry-After: \(statuses); \((try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "")")
        XCTAssertEqual(statuses.values.reduce(0, +), 24, "every client answered: \(flood.stdout) \(flood.stderr)")
        XCTAssertEqual(match.2, "0", "no client lost its connection")
        XCTAssertEqual(match.3, "1", "the server is alive: \((try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "")")
        XCTAssertGreaterThan(statuses["200"] ?? 0, 0, "the budget holds one such batch at least")

        let after = try ProcessRunner.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "30", "-H", "x-api-key: adn_test_k",
                                                             "http://127.0.0.1:\(listening)/api/v1/sdk/config-bundle/version"], environment: nil)
        XCTAssertEqual(after.stdout, "200", "the server answers after the flood")
        let recorded = try Data(contentsOf: URL(fileURLWithPath: record))
        XCTAssertEqual(recorded.split(separator: 0x0A).count, 1, "the event was recorded once (the others were duplicates or refused)")
    }
}
