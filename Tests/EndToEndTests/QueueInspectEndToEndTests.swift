import Foundation
import XCTest

/// `appdna queue inspect` run as a binary on a queue file support received.
final class QueueInspectEndToEndTests: XCTestCase {
    typealias Replay = QueueReplayEndToEndTests

    func testInspectSummarisesAndNeverChangesTheInput() throws {
        // Live events 1–4, a tombstone cancelling 2, a garbage line and a cut-off last line.
        let text = Replay.queue(1...4) + #"{"appdna_removed": ["\#(Replay.id(2))"]}"# + "\nnot json at all\n" + String(Replay.event(5).prefix(40))
        let path = try temporaryFile(text, name: "pending_events.json")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let result = try Binary.run(["queue", "inspect", path, "--now", String(Replay.now), "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        XCTAssertEqual(summary["live"] as? Int, 3)
        XCTAssertEqual(summary["cancelled"] as? Int, 1)
        XCTAssertEqual(summary["malformed"] as? Int, 1)
        XCTAssertEqual(summary["truncated"] as? Int, 1)
        let names = try XCTUnwrap(summary["events_by_name"] as? [[String: Any]])
        XCTAssertEqual(names.first?["name"] as? String, "app_open")
        XCTAssertEqual(names.first?["count"] as? Int, 3)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before, "inspect never changes its input")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path),
                       ["pending_events.json"], "nothing is written beside the queue")

        let text2 = try Binary.run(["queue", "inspect", path, "--now", String(Replay.now)])
        XCTAssertEqual(text2.status, 0)
        XCTAssertTrue(text2.text.contains("ios-ndjson"), text2.text)
    }

    func testMissingAndForeignFilesGiveTheDocumentedStatuses() throws {
        let missing = try Binary.run(["queue", "inspect", "/nonexistent/pending_events.json"])
        XCTAssertEqual(missing.status, 66, missing.stderr)
        XCTAssertEqual(missing.stderrLines.count, 1, missing.stderr)
        let foreign = try temporaryFile("just some notes\n", name: "notes.txt")
        let result = try Binary.run(["queue", "inspect", foreign])
        XCTAssertEqual(result.status, 65, result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix("appdna: "), result.stderr)
    }

    /// Duplicate ids first seen on one line (a legacy array line) are listed by id, not in the
    /// per-process hash order: the same queue gives the same bytes on every run.
    func testDuplicateListIsTheSameOnEveryRun() throws {
        let ids = (1...6).map { Replay.event($0) }
        let text = "[" + ids.joined(separator: ",") + "]\n" + ids.joined(separator: "\n") + "\n"
        let path = try temporaryFile(text, name: "pending_events.json")
        let first = try Binary.run(["queue", "inspect", path, "--now", String(Replay.now), "--json"])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(first.text.contains(Replay.id(6)), "the duplicates are listed")
        for _ in 0..<8 {
            XCTAssertEqual(try Binary.run(["queue", "inspect", path, "--now", String(Replay.now), "--json"]).stdout, first.stdout)
        }
    }
}

final class QueueOversizedLineEndToEndTests: XCTestCase {
    /// One 256 MiB line drove `queue inspect` to 845 MB: the whole line was held (and parsed).
    func test200MBLineIsReportedAsOversizedInBoundedMemory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-oversized-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("pending_events.json").path
        let event = #"{"event_id":"11111111-1111-4111-8111-11111111111N","event_name":"app_open","ts_ms":1700000000000,"user":{"anon_id":"a"}}"#
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        handle.write(Data((event.replacingOccurrences(of: "N", with: "1") + "\n").utf8))
        handle.write(Data(#"{"event_id":"x","pad":""#.utf8))
        let chunk = Data(repeating: UInt8(ascii: "x"), count: 1 << 20)
        for _ in 0..<200 { handle.write(chunk) }
        handle.write(Data("\"}\r\n".utf8))
        handle.write(Data((event.replacingOccurrences(of: "N", with: "2") + "\n").utf8))
        try handle.close()
        let length = 200 * (1 << 20) + 25

        for arguments in [["queue", "inspect", path, "--json"], ["queue", "inspect", path, "--events"]] {
            let result = try Binary.measurePeakMemory(arguments)
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertLessThan(result.maxRSSKiB, 64 * 1024, "peak RSS \(result.maxRSSKiB) KiB for a 200 MB line: \(arguments)")
            let message = "oversized line: \(length) bytes, over the 5242880 bytes a device can write under the SDK's 5 MB queue cap; skipped unread"
            if arguments.contains("--json") {
                let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
                let source = (json["sources"] as! [[String: Any]])[0]
                let problems = source["problems"] as! [[String: Any]]
                XCTAssertEqual(problems.map { $0["message"] as? String }, [message])
                XCTAssertEqual(problems.map { $0["line"] as? Int }, [2])
            } else {
                XCTAssertEqual(result.stdout.split(separator: "\n").count, 2, "both events around the long line are listed")
                XCTAssertEqual(result.stderr, "appdna: warning: \(path):2: malformed: \(message)\n")
            }
        }
    }
    /// The same for Android's shared preferences: one XML line is one (escaped) event.
    func test200MBSharedPreferencesLineIsReportedAsOversizedInBoundedMemory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-oversized-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("ai.appdna.sdk.xml").path
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        let event = "{&quot;event_id&quot;:&quot;11111111-1111-4111-8111-11111111111N&quot;,&quot;event_name&quot;:&quot;app_open&quot;}"
        handle.write(Data("<?xml version='1.0' encoding='utf-8' standalone='yes' ?>\n<map>\n    <string name=\"event_queue\">".utf8))
        handle.write(Data((event.replacingOccurrences(of: "N", with: "1") + "\n{&quot;pad&quot;:&quot;").utf8))
        let chunk = Data(repeating: UInt8(ascii: "x"), count: 1 << 20)
        for _ in 0..<200 { handle.write(chunk) }
        handle.write(Data(("&quot;}\n" + event.replacingOccurrences(of: "N", with: "2") + "</string>\n</map>\n").utf8))
        try handle.close()

        let result = try Binary.measurePeakMemory(["queue", "inspect", path, "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertLessThan(result.maxRSSKiB, 64 * 1024, "peak RSS \(result.maxRSSKiB) KiB for a 200 MB XML line")
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        let source = (json["sources"] as! [[String: Any]])[0]
        XCTAssertEqual(source["live"] as? Int, 2, "the events around the long line are read")
        let problems = source["problems"] as! [[String: Any]]
        XCTAssertEqual(problems.map { $0["message"] as? String },
                       ["oversized line: \(200 * (1 << 20) + 30) bytes, over the 10485760 bytes a device can write under the SDK's 5 MB queue cap; skipped unread"])
    }
}
