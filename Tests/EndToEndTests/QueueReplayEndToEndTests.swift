import Foundation
import XCTest
import LoopbackHTTPServer
import TestSupport

/// `appdna queue replay` run as a binary against a fake ingest API on 127.0.0.1 that inflates
/// every body and checks it is what the SDK sends.
final class QueueReplayEndToEndTests: XCTestCase {
    static let key = "adn_live_REPLAYsecretKEY0123456789zz3f9a"
    /// 2026-02-19T10:00:00Z
    static let now: Int64 = 1_771_495_200_000

    var directory: URL!
    var queuePath: String { directory.appendingPathComponent("pending_events.json").path }
    var stateDir: String { queuePath + ".appdna-replay" }

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-replay-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: - fixtures

    static func id(_ n: Int) -> String { TestEvents.id(n) }

    /// An SDK-shaped event; `ageMinutes` before `now`. Spacing and key order as stored on the device
    /// (deliberately not what a JSON serialiser would write), so splicing can be checked.
    static func event(_ n: Int, platform: String = "ios", sdk: String = "1.0.78", ageMinutes: Int = 60, name: String = "app_open") -> String {
        TestEvents.stored(n, ts: now - Int64(ageMinutes) * 60_000, name: name, platform: platform, sdk: sdk,
                          properties: #"{"price":1.50,"note":"caf\u00e9"}"#)
    }

    static func queue(_ range: ClosedRange<Int>) -> String {
        range.map { event($0) }.joined(separator: "\n") + "\n"
    }

    func writeQueue(_ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: queuePath))
    }

    func replay(_ server: IngestServer?, _ extra: [String], key: String? = QueueReplayEndToEndTests.key) throws -> Binary.Result {
        var environment: [String: String] = ["APPDNA_API_URL": server?.baseURL ?? "http://127.0.0.1:9"]
        if let key { environment["APPDNA_SDK_KEY"] = key }
        let result = try Binary.run(["queue", "replay", queuePath, "--now", String(Self.now)] + extra, environment: environment)
        XCTAssertFalse(result.text.contains(Self.key), "the key is on stdout")
        XCTAssertFalse(result.stderr.contains(Self.key), "the key is on stderr")
        XCTAssertFalse(result.stderr.contains("Fatal error"), result.stderr)
        return result
    }

    func json(_ result: Binary.Result) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], result.text + result.stderr)
    }

    func resultField(_ result: Binary.Result, _ name: String) throws -> Int {
        let root = try json(result)
        return try XCTUnwrap((root["result"] as? [String: Any])?[name] as? Int)
    }

    func deadLetters() -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: stateDir + "/dead-letter.ndjson", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    // MARK: - requests exactly as the SDK sends them

    func testSendsSDKIdenticalBatchesGroupedByPlatformAndVersion() throws {
        var lines: [String] = []
        for n in 1...25 { lines.append(Self.event(n)) }
        for n in 26...30 { lines.append(Self.event(n, platform: "android", sdk: "2.1.0")) }
        for n in 31...33 { lines.append(Self.event(n, sdk: "1.0.70")) }
        try writeQueue(lines.joined(separator: "\n") + "\n")
        let before = try Data(contentsOf: URL(fileURLWithPath: queuePath))
        let server = try IngestServer(key: Self.key)

        let result = try replay(server, ["--yes", "--batch-size", "10"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(server.problems, [])
        let batches = server.received
        XCTAssertEqual(batches.map(\.eventIDs.count).sorted(), [3, 5, 5, 10, 10])
        // Every event's text arrives exactly as stored, in queue order within its group.
        let sent = batches.flatMap(\.eventTexts)
        XCTAssertEqual(Set(sent), Set(lines))
        XCTAssertEqual(sent.count, lines.count)
        for batch in batches {
            XCTAssertEqual(batch.header("Content-Encoding"), "deflate")
            let expected = batch.eventTexts[0].contains("android") ? ("android", "2.1.0") : batch.eventTexts[0].contains("1.0.70") ? ("ios", "1.0.70") : ("ios", "1.0.78")
            XCTAssertEqual(batch.header("x-sdk-platform"), expected.0)
            XCTAssertEqual(batch.header("x-sdk-version"), expected.1)
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: queuePath)), before, "the input queue changed")
        XCTAssertTrue(result.text.contains("Delivered 33 of 33 events in 5 requests"), result.text)

        // A re-run finds everything in the journal and sends nothing.
        let again = try replay(server, ["--yes", "--json"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(server.received.count, 5)
        let plan = try XCTUnwrap(try json(again)["plan"] as? [String: Any])
        XCTAssertEqual((plan["skipped"] as? [String: Any])?["already-delivered"] as? Int, 33)
    }

    func testPlanSkipsCancelledStaleInvalidAndDuplicateEvents() throws {
        var lines = (1...6).map { Self.event($0) }
        lines.append(Self.event(7, ageMinutes: 8 * 24 * 60))                        // stale
        lines.append(#"{"event_id":"NOT-A-UUID","event_name":"x","ts_ms":1,"user":{"anon_id":"a"}}"#)   // invalid
        lines.append(Self.event(1))                                                   // duplicate id
        lines.append(#"{"appdna_removed":["\#(Self.id(2))"]}"#)                       // cancels 2
        lines.append("{\"event_id\": \"cut off")                                       // truncated tail
        try writeQueue(lines.joined(separator: "\n"))
        let server = try IngestServer(key: Self.key)

        let dry = try replay(server, ["--dry-run"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertEqual(server.received.count, 0, "--dry-run sent something")
        XCTAssertFalse(FileManager.default.fileExists(atPath: stateDir), "--dry-run created the state directory")
        for expected in ["to send       5 events in 1 batch of up to 20", "cancelled 1", "stale 1", "invalid 1", "duplicate 1",
                         "pending_events.json:8: event_id \"NOT-A-UUID\" is not a lowercase UUID"] {
            XCTAssertTrue(dry.text.contains(expected), "missing '\(expected)' in:\n\(dry.text)")
        }

        // Sent: 1, 3, 4, 5, 6. Status 1: the invalid event will never be delivered.
        let sent = try replay(server, ["--yes"])
        XCTAssertEqual(sent.status, 1, sent.stderr)
        XCTAssertEqual(Set(server.receivedIDs), Set([1, 3, 4, 5, 6].map(Self.id)))

        // --include-stale sends the stale one too.
        let stale = try replay(server, ["--yes", "--include-stale", "--json"])
        XCTAssertEqual(try resultField(stale, "delivered"), 1)
        XCTAssertEqual(server.receivedIDs.last, Self.id(7))
    }

    // MARK: - confirmation, dry run, key

    func testNonInteractiveWithoutYesSendsNothingAndExits64() throws {
        try writeQueue(Self.queue(1...3))
        let server = try IngestServer(key: Self.key)
        let result = try replay(server, [])
        XCTAssertEqual(result.status, 64, result.stderr)
        XCTAssertTrue(result.stderr.contains("nothing was sent"), result.stderr)
        XCTAssertTrue(result.stderr.contains("--yes"), result.stderr)
        XCTAssertEqual(server.received.count, 0)
        let noInput = try replay(server, ["--no-input"])
        XCTAssertEqual(noInput.status, 64)
        XCTAssertEqual(server.received.count, 0)
    }

    func testKeyFromFileNeverInArgvOrOutputAndMaskedInPlan() throws {
        try writeQueue(Self.queue(1...3))
        let server = try IngestServer(key: Self.key)
        let keyFile = directory.appendingPathComponent("key").path
        try Data((Self.key + "\n").utf8).write(to: URL(fileURLWithPath: keyFile))
        let arguments = ["--yes", "--key-file", keyFile, "--verbose"]
        XCTAssertFalse(arguments.joined().contains(Self.key))
        let result = try replay(server, arguments, key: nil)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.text.contains("adn_live_…3f9a"), result.text)
        XCTAssertEqual(server.received.first?.header("x-api-key"), Self.key)

        let noKey = try replay(server, ["--yes"], key: nil)
        XCTAssertEqual(noKey.status, 78, noKey.stderr)
    }

    func testWarnsWhenEventsComeFromAnotherEnvironmentThanTheKey() throws {
        let line = Self.event(1).replacingOccurrences(of: #""os":"17.0.1""#, with: #""os":"17.0.1","environment":"sandbox""#)
        try writeQueue(line + "\n")
        let result = try replay(nil, ["--dry-run"])
        XCTAssertTrue(result.stderr.contains("warning: 1 event says sandbox/test but the key adn_live_…3f9a is a production"), result.stderr)
    }

    // MARK: - answers

    func test429And408WaitForRetryAfterThenDeliver() throws {
        try writeQueue(Self.queue(1...4))
        let server = try IngestServer(key: Self.key) { index, _ in
            switch index {
            case 0: return LoopbackHTTPServer.Reply(status: 429, headers: [("Retry-After", "1")], json: "{}")
            case 1: return LoopbackHTTPServer.Reply(status: 408, headers: [("Retry-After", "1")], json: "{}")
            default: return LoopbackHTTPServer.Reply(status: 202, json: "{}")
            }
        }
        let result = try replay(server, ["--yes", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let batches = server.received
        XCTAssertEqual(batches.count, 3)
        XCTAssertGreaterThanOrEqual(batches[1].receivedAt - batches[0].receivedAt, 0.95, "Retry-After not honoured")
        XCTAssertGreaterThanOrEqual(batches[2].receivedAt - batches[1].receivedAt, 0.95, "Retry-After not honoured")
        XCTAssertEqual(try resultField(result, "retries"), 2)
        XCTAssertEqual(try resultField(result, "delivered"), 4)
    }

    func test429UntilRetriesRunOutStopsWith75AndResumes() throws {
        try writeQueue(Self.queue(1...4))
        let busy = try IngestServer(key: Self.key) { _, _ in LoopbackHTTPServer.Reply(status: 429, headers: [("Retry-After", "0")], json: "{}") }
        let result = try replay(busy, ["--yes", "--retries", "1", "--json"])
        XCTAssertEqual(result.status, 75, result.stderr)
        XCTAssertEqual(try resultField(result, "undelivered"), 4)
        XCTAssertEqual(busy.received.count, 2)
        let ok = try IngestServer(key: Self.key)
        XCTAssertEqual(try replay(ok, ["--yes"]).status, 0)
        XCTAssertEqual(Set(ok.receivedIDs).count, 4)
    }

    func test413SplitsTheBatchDownToOneEvent() throws {
        try writeQueue(Self.queue(1...8))
        let tooBig = Self.id(5)
        let server = try IngestServer(key: Self.key) { _, ids in
            // More than 2 events is too large; event 5 is too large even alone.
            ids.count > 2 || ids.contains(tooBig) ? LoopbackHTTPServer.Reply(status: 413, json: "{\"error\":\"too large\"}") : LoopbackHTTPServer.Reply(status: 200, json: "{}")
        }
        let result = try replay(server, ["--yes", "--batch-size", "8", "--json"])
        XCTAssertEqual(result.status, 1, result.stderr)
        let accepted = server.received.filter { $0.reply.status == 200 }.flatMap(\.eventIDs)
        XCTAssertEqual(Set(accepted), Set((1...8).filter { $0 != 5 }.map(Self.id)))
        XCTAssertTrue(server.received.contains { $0.eventIDs == [tooBig] }, "not split down to one event")
        XCTAssertEqual(try resultField(result, "dead_lettered"), 1)
        XCTAssertEqual(deadLetters().map { $0["event_id"] as? String }, [tooBig])
        XCTAssertEqual(deadLetters().first?["status"] as? Int, 413)
    }

    func test400GoesToTheDeadLetterFileWithStatusAndBody() throws {
        try writeQueue(Self.queue(1...6))
        let poison = Self.id(4)
        let server = try IngestServer(key: Self.key) { _, ids in
            ids.contains(poison) ? LoopbackHTTPServer.Reply(status: 400, json: "{\"error\":\"bad event\"}") : LoopbackHTTPServer.Reply(status: 200, json: "{}")
        }
        let result = try replay(server, ["--yes", "--batch-size", "3"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.text.contains("dead-lettered 3 (HTTP 400: 3)"), result.text)
        let letters = deadLetters()
        XCTAssertEqual(letters.compactMap { $0["event_id"] as? String }, [4, 5, 6].map(Self.id))
        XCTAssertEqual(letters.first?["status"] as? Int, 400)
        XCTAssertEqual(letters.first?["response"] as? String, "{\"error\":\"bad event\"}")
        XCTAssertEqual((letters.first?["event"] as? [String: Any])?["event_id"] as? String, Self.id(4))
        XCTAssertEqual(letters.first?["line"] as? Int, 4)

        // A re-run neither re-sends nor forgets them.
        let again = try replay(server, ["--yes", "--json"])
        XCTAssertEqual(again.status, 1)
        XCTAssertEqual(server.received.count, 2)
        let plan = try XCTUnwrap(try json(again)["plan"] as? [String: Any])
        XCTAssertEqual((plan["skipped"] as? [String: Any])?["dead-lettered-before"] as? Int, 3)
    }

    /// Issue 44: a resumed replay with nothing left to send used to print only "nothing to send"
    /// (and exit 1 when events had been dead-lettered): it names what is left and why.
    func testAResumedReplayWithNothingToSendSaysWhatIsLeftAndWhy() throws {
        var lines = (1...6).map { Self.event($0) }
        lines.append(Self.event(7, ageMinutes: 8 * 24 * 60))                        // stale
        try writeQueue(lines.joined(separator: "\n") + "\n")
        let poison = Self.id(4)
        let server = try IngestServer(key: Self.key) { _, ids in
            ids.contains(poison) ? LoopbackHTTPServer.Reply(status: 400, json: "{}") : LoopbackHTTPServer.Reply(status: 200, json: "{}")
        }
        XCTAssertEqual(try replay(server, ["--yes", "--batch-size", "3"]).status, 1)
        let expected = "nothing to send: of 7 events read, 1 older than --max-age (--include-stale sends them), "
            + "3 already delivered (journal: \(stateDir)/journal), 3 dead-lettered by an earlier run, not sent again (\(stateDir)/dead-letter.ndjson)"
        for extra in [[], ["--json"], ["--quiet"]] {
            let again = try replay(server, ["--yes"] + extra)
            XCTAssertEqual(again.status, 1, again.stderr)
            XCTAssertEqual(again.stderr, "appdna: " + expected + "\n", "\(extra)")
        }
        XCTAssertEqual(server.received.count, 2, "nothing sent again")

        // All delivered: a note (status 0), silenced by --quiet.
        try writeQueue(Self.queue(1...3))
        try FileManager.default.removeItem(atPath: stateDir)
        XCTAssertEqual(try replay(server, ["--yes"]).status, 0)
        let done = try replay(server, ["--yes"])
        XCTAssertEqual(done.status, 0, done.stderr)
        XCTAssertEqual(done.stderr, "nothing to send: of 3 events read, 3 already delivered (journal: \(stateDir)/journal)\n")
        XCTAssertEqual(try replay(server, ["--yes", "--quiet"]).stderr, "")
    }

    func test5xxBacksOffThenStopsWithTheRestUndelivered() throws {
        try writeQueue(Self.queue(1...6))
        let server = try IngestServer(key: Self.key) { index, _ in
            index == 0 ? LoopbackHTTPServer.Reply(status: 200, json: "{}") : LoopbackHTTPServer.Reply(status: 500, json: "{}")
        }
        let result = try replay(server, ["--yes", "--batch-size", "2", "--retries", "2", "--json"])
        XCTAssertEqual(result.status, 69, result.stderr)
        XCTAssertEqual(try resultField(result, "delivered"), 2)
        XCTAssertEqual(try resultField(result, "undelivered"), 4)
        let times = server.received.map(\.receivedAt)
        XCTAssertEqual(times.count, 4, "1 + 1 + 2 retries")
        XCTAssertEqual(times[2] - times[1], 1, accuracy: 0.35, "first backoff ~1 s ± 25 %")
        XCTAssertEqual(times[3] - times[2], 2, accuracy: 0.6, "second backoff ~2 s ± 25 %")
        XCTAssertTrue(deadLetters().isEmpty, "5xx must not dead-letter")

        let fixed = try IngestServer(key: Self.key)
        let resumed = try replay(fixed, ["--yes"])
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertEqual(Set(fixed.receivedIDs), Set((3...6).map(Self.id)))
    }

    func test503StopsWith75() throws {
        try writeQueue(Self.queue(1...2))
        let server = try IngestServer(key: Self.key) { _, _ in LoopbackHTTPServer.Reply(status: 503, json: "{}") }
        XCTAssertEqual(try replay(server, ["--yes", "--retries", "0"]).status, 75)
    }

    func test401StopsWith77() throws {
        try writeQueue(Self.queue(1...4))
        let server = try IngestServer(key: Self.key) { _, _ in LoopbackHTTPServer.Reply(status: 401, json: "{}") }
        let result = try replay(server, ["--yes", "--batch-size", "1"])
        XCTAssertEqual(result.status, 77, result.stderr)
        XCTAssertEqual(server.received.count, 1, "401 is not retried and stops the run")
        XCTAssertTrue(deadLetters().isEmpty)
    }

    func testDroppedConnectionIsRetried() throws {
        try writeQueue(Self.queue(1...3))
        let server = try IngestServer(key: Self.key) { index, _ in
            var reply = LoopbackHTTPServer.Reply(status: 200, json: "{}")
            reply.closeWithoutAnswer = index == 0
            return reply
        }
        let result = try replay(server, ["--yes", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try resultField(result, "delivered"), 3)
        XCTAssertEqual(server.received.count, 2)
    }

    func testSlowResponsePastTheTimeoutStopsWith75() throws {
        try writeQueue(Self.queue(1...3))
        let server = try IngestServer(key: Self.key) { _, _ in
            var reply = LoopbackHTTPServer.Reply(status: 200, json: "{}")
            reply.delay = 3
            return reply
        }
        // Answers come after 3 s: none delivered means the 1 s timeout cut them.
        let result = try replay(server, ["--yes", "--timeout", "1", "--json"])
        XCTAssertEqual(result.status, 75, result.stderr)
        XCTAssertEqual(try resultField(result, "undelivered"), 3)
    }

    func testNetworkErrorStopsWith69() throws {
        try writeQueue(Self.queue(1...2))
        let result = try replay(nil, ["--yes", "--retries", "0"])   // nothing listens on port 9
        XCTAssertEqual(result.status, 69, result.stderr)
    }

    // MARK: - lock, concurrency, rate

    func testLockStopsASecondReplayOfTheSameQueue() throws {
        try writeQueue(Self.queue(1...3))
        try FileManager.default.createDirectory(atPath: stateDir, withIntermediateDirectories: true)
        let fd = open(stateDir + "/lock", O_RDWR | O_CREAT, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        XCTAssertEqual(flock(fd, LOCK_EX | LOCK_NB), 0)
        _ = "4242\n".withCString { write(fd, $0, 5) }
        let server = try IngestServer(key: Self.key)
        let result = try replay(server, ["--yes"])
        XCTAssertEqual(result.status, 75, result.stderr)
        XCTAssertTrue(result.stderr.contains("another appdna queue replay (pid 4242)"), result.stderr)
        XCTAssertEqual(server.received.count, 0)
        flock(fd, LOCK_UN)
        XCTAssertEqual(try replay(server, ["--yes"]).status, 0)
    }

    func testConcurrencyAndRate() throws {
        try writeQueue(Self.queue(1...40))
        let server = try IngestServer(key: Self.key) { _, _ in
            var reply = LoopbackHTTPServer.Reply(status: 200, json: "{}")
            reply.delay = 0.2
            return reply
        }
        // That four are in flight at once is shown in-process, without timing
        // (ReplayEngineRunTests.testConcurrencyKeepsFourRequestsInFlight).
        let result = try replay(server, ["--yes", "--batch-size", "5", "--concurrency", "4"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(Set(server.receivedIDs).count, 40)

        try FileManager.default.removeItem(atPath: stateDir)
        let fast = try IngestServer(key: Self.key)
        let paced = Date()
        XCTAssertEqual(try replay(fast, ["--yes", "--batch-size", "5", "--concurrency", "4", "--rate", "40"]).status, 0)
        // 40 events at 40/s: the last batch may start after ~0.875 s. The binary really waits
        // (a lower bound a loaded machine cannot break); the spacing itself is checked on the
        // virtual clock (ReplayEngineRunTests.testRateSpacesTheBatchesOnTheClock).
        XCTAssertGreaterThan(Date().timeIntervalSince(paced), 0.8)
    }
}
