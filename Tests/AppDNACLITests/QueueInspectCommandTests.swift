import AppDNACore
import Foundation
import XCTest
@testable import AppDNACLI

/// `appdna queue inspect`, in-process, on queues the tests write.
final class QueueInspectCommandTests: XCTestCase {
    var directory: URL!
    static let anon = "11111111-1111-4111-8111-111111111111"

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-queue-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: directory) }

    static func id(_ n: Int) -> String { String(format: "%08x-0000-4000-8000-%012x", n, n) }

    static func event(_ n: Int, name: String = "app_open", ts: String? = nil, consent: Bool = true,
                      properties: String = "{}", eventID: String? = nil) -> String {
        "{\"schema_version\":1,\"event_id\":\"\(eventID ?? id(n))\",\"event_name\":\"\(name)\",\"ts_ms\":\(ts ?? String(1_771_495_200_000 + Int64(n) * 60_000)),"
            + "\"user\":{\"anon_id\":\"\(anon)\"},\"device\":{\"platform\":\"ios\",\"sdk_version\":\"1.0.78\"},"
            + "\"context\":{\"session_id\":\"s1\",\"client_seq\":\(n)},\"properties\":\(properties),\"privacy\":{\"consent\":{\"analytics\":\(consent)}}}"
    }

    /// The README's worked example: legacy first line, a tombstone, garbage, a stale event,
    /// drops, a duplicate id, consent false, a rejected event and a cut-off last line.
    func writeExample() throws -> String {
        let lines = [
            "[" + Self.event(1) + "," + Self.event(2) + "]",
            Self.event(3, ts: "1770717600000"),
            "{\"appdna_removed\":[\"\(Self.id(1))\"]}",
            "not json",
            Self.event(5, name: "purchase_completed", consent: false),
            Self.event(6, name: "_sdk_events_dropped", properties: "{\"count\":12}"),
            Self.event(6, name: "_sdk_events_dropped", properties: "{\"count\":12}"),
            Self.event(8, ts: "1.5", eventID: "E8"),
        ]
        let path = directory.appendingPathComponent("pending_events.json").path
        try Data((lines.joined(separator: "\n") + "\n" + Self.event(9).prefix(30)).utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func run(_ arguments: [String], path: String) -> CapturedRun {
        let result = runCLI(arguments)
        return CapturedRun(status: result.status, stdout: result.stdout.replacingOccurrences(of: path, with: "Q"),
                           stderr: result.stderr.replacingOccurrences(of: path, with: "Q"))
    }

    func testSummaryText() throws {
        let path = try writeExample()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let result = run(["queue", "inspect", path, "--now", "2026-02-20T10:00:00Z"], path: path)
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.stderr, "")
        XCTAssertEqual(result.stdout, """
        queue         Q
        format        ios-ndjson (legacy array on line 1, 1 tombstone line)
        events        6 live, 1 cancelled, 1 malformed, 1 truncated
        size          6 of 10000 events, 1971 of 5242880 bytes (5 MB)
        problems      Q:4: malformed: column 2: expected 'null', found 'o'
                      Q:9: truncated: the last line is cut off (30 bytes, no final newline): an append interrupted on the device; skipped

        live events   6 in 1 queue
        names         app_open 3, _sdk_events_dropped 2, purchase_completed 1
        time          2026-02-10T10:00:00Z to 2026-02-19T10:06:00Z (now 2026-02-20T10:00:00Z)
        age           oldest 10d 0h, newest 23h 54m; 1 past the 7-day horizon (the SDK would not send them; the server may no longer deduplicate them)
                      1 without an integer ts_ms
        users         1 anonymous (anon_id), 0 identified (user_id); 1 session
        platforms     ios 6
        sdk versions  ios 1.0.78 6
        client_seq    2 missing in 2 gaps on 1 device (events lost on the device); 1 repeated
                      anon_id 11111111-1111-4111-8111-111111111111: 4 missing (1)
                      anon_id 11111111-1111-4111-8111-111111111111: 7 missing (1)
        sdk drops     2 _sdk_events_dropped events reporting 24 dropped events
        duplicates    1 event_id on more than one live event (1 extra event; the server keeps one per id)
                      00000006-0000-4000-8000-000000000006: Q:6, Q:7
        consent       1 event with analytics consent false
        rejected      1 event the server would reject (not-lowercase-uuid 1, wrong-type 1)
                      Q:8: event_id "E8" is not a lowercase UUID; ts_ms is 1.5, not an integer

        """)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["pending_events.json"])
    }

    func testSummaryJSON() throws {
        let path = try writeExample()
        let result = run(["queue", "inspect", path, "--now", "2026-02-20T10:00:00Z", "--json"], path: path)
        XCTAssertEqual(result.status, 0)
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        XCTAssertEqual(object["live"] as? Int, 6)
        XCTAssertEqual(object["cancelled"] as? Int, 1)
        XCTAssertEqual(object["malformed"] as? Int, 1)
        XCTAssertEqual(object["truncated"] as? Int, 1)
        let source = (object["sources"] as! [[String: Any]])[0]
        XCTAssertEqual(source["format"] as? String, "ios-ndjson")
        XCTAssertEqual(source["legacy_array_line"] as? Int, 1)
        XCTAssertEqual((source["problems"] as! [[String: Any]]).map { $0["line"] as! Int }, [4, 9])
        XCTAssertEqual((object["time"] as! [String: Any])["past_horizon"] as? Int, 1)
        XCTAssertEqual((object["client_seq"] as! [String: Any])["missing"] as? Int, 2)
        XCTAssertEqual((object["sdk_events_dropped"] as! [String: Any])["dropped"] as? Int, 24)
        XCTAssertEqual((object["duplicates"] as! [String: Any])["event_ids"] as? Int, 1)
        XCTAssertEqual(object["consent_false"] as? Int, 1)
        let rejected = object["rejected"] as! [String: Any]
        XCTAssertEqual(rejected["count"] as? Int, 1)
        let reasons = (rejected["events"] as! [[String: Any]])[0]["reasons"] as! [[String: Any]]
        XCTAssertEqual(reasons.map { $0["pointer"] as! String }, ["/event_id", "/ts_ms"])
        XCTAssertEqual((object["events_by_name"] as! [[String: Any]]).map { $0["name"] as! String },
                       ["app_open", "_sdk_events_dropped", "purchase_completed"])
    }

    func testEventsListWithFilters() throws {
        let path = try writeExample()
        var result = run(["queue", "inspect", "--events", path], path: path)
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.stdout.split(separator: "\n").map { $0.split(separator: "\t")[4] },
                       ["Q:1", "Q:2", "Q:5", "Q:6", "Q:7", "Q:8"], "live events only, in queue order")
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 2, "the malformed and truncated lines are warned about")
        result = run(["queue", "inspect", path, "--name", "purchase_completed"], path: path)
        XCTAssertEqual(result.stdout, "2026-02-19T10:05:00Z\tpurchase_completed\t\(Self.id(5))\t\(Self.anon)\tQ:5\n")
        result = run(["queue", "inspect", path, "--events", "--since", "2026-02-19T10:04:00Z", "--until", "1771495560000", "--json"], path: path)
        let lines = result.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 3)
        let first = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as! [String: Any]
        XCTAssertEqual(first["line"] as? Int, 5)
        XCTAssertEqual(first["event_name"] as? String, "purchase_completed")
        XCTAssertEqual((first["event"] as! [String: Any])["event_id"] as? String, Self.id(5))
        result = run(["queue", "inspect", path, "--user", "nobody"], path: path)
        XCTAssertEqual(result.stdout, "")
        result = run(["queue", "inspect", path, "--since", "yesterday"], path: path)
        XCTAssertEqual(result.status, 64)
    }

    func testErrors() throws {
        var result = runCLI(["queue", "inspect", directory.path + "/missing.json"])
        XCTAssertEqual(result.status, 66)
        XCTAssertTrue(result.stderr.hasPrefix("appdna: \(directory.path)/missing.json: no such file or directory"), result.stderr)
        let text = directory.appendingPathComponent("notes.txt")
        try Data("hello\n".utf8).write(to: text)
        result = runCLI(["queue", "inspect", text.path])
        XCTAssertEqual(result.status, 65)
        XCTAssertTrue(result.stderr.contains("not an event queue"), result.stderr)
        result = runCLI(["queue", "inspect", directory.path])
        XCTAssertEqual(result.status, 66)
        XCTAssertTrue(result.stderr.contains("no event queue found"), result.stderr)
        result = runCLI(["queue", "inspect"])
        XCTAssertEqual(result.status, 64)
        // One good and one bad path: the good one is summarised, the status says something failed.
        let path = try writeExample()
        result = runCLI(["queue", "inspect", path, text.path])
        XCTAssertEqual(result.status, 65)
        XCTAssertTrue(result.stdout.contains("6 live"))
    }

    func testDamagedDatabaseExits65AndNothingIsWrittenBesideIt() throws {
        let url = directory.appendingPathComponent("appdna_events.db")
        try Data("SQLite format 3\0".utf8 + [UInt8](repeating: 0x5A, count: 8192)).write(to: url)
        let before = try Data(contentsOf: url)
        let result = runCLI(["queue", "inspect", url.path])
        XCTAssertEqual(result.status, 65)
        XCTAssertTrue(result.stdout.contains("unreadable"), result.stdout)
        // The status had no line on stderr: the reason was only in the report on stdout.
        XCTAssertEqual(result.stderrLines.filter { $0.hasPrefix("appdna: \(url.path): 1 part(s) could not be read") }.count, 1, result.stderr)
        XCTAssertEqual(try Data(contentsOf: url), before)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["appdna_events.db"])
    }
}
