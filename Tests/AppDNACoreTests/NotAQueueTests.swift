import AppDNACore
import Foundation
import XCTest
@testable import AppDNACore

/// Issue 34.4 / 35.4: what is not a queue is said so (65), by content and by typed facts.
final class NotAQueueTests: XCTestCase {
    typealias F = QueueFixtures
    var directory: URL!

    override func setUpWithError() throws { directory = try F.directory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: directory) }

    func file(_ name: String, _ text: String) throws -> String { try F.write(text, to: directory.appendingPathComponent(name)) }

    func notAQueue(_ path: String, file: StaticString = #filePath, line: UInt = #line) -> String? {
        do {
            _ = try QueueSource.detect(path: path)
            XCTFail("\(path) was taken for a queue", file: file, line: line)
            return nil
        } catch {
            XCTAssertEqual(error.kind, .malformedInput, file: file, line: line)
            return error.message
        }
    }

    /// A config bundle (which reads as NDJSON of malformed lines), `{"hello": 1}` (which read as
    /// one nameless live event) and other JSON without an event are no queue.
    func testJSONInWhichNothingIsAnEventIsNotAQueue() throws {
        let bundle = try file("appdna-config.json", "{\n  \"bundle_version\": 3,\n  \"experiments\": {}\n}\n")
        XCTAssertEqual(notAQueue(bundle), "\(bundle): not an event queue: none of its 4 entries is an event (a JSON object with event_id and event_name)")
        let hello = try file("hello.json", "{\"hello\":1}\n")
        XCTAssertEqual(notAQueue(hello), "\(hello): not an event queue: its one entry is not an event (a JSON object with event_id and event_name)")
        _ = notAQueue(try file("array.json", "[{\"hello\":1}, {\"x\": 2}]"))
        _ = notAQueue(try file("value.json", "{\"hello\":\"event_id\"}\n"))  // a value, not a key
    }

    /// Real queues stay queues: malformed lines among events, garbage first, a pretty-printed
    /// legacy array, tombstones only, an emptied array, events missing one of the two keys.
    func testQueuesWithSomeBadLinesStayQueues() throws {
        let cases = [
            "{garbage first\n" + F.event(1) + "\n{not json\n",
            "[\n  {\n    \"event_id\" : \"\(F.id(1))\"\n  }\n]\n",
            "{\"appdna_removed\": [\"\(F.id(1))\"]}\n",
            "[]",
            "{\"event_name\": \"app_open\"}\n",
        ]
        for (index, text) in cases.enumerated() {
            XCTAssertNoThrow(try QueueSource.detect(path: try file("queue\(index).json", text)), text)
        }
    }

    /// The SQLite reader reports a database without `pending_events` as a typed problem,
    /// `.notAQueue` (QueueSource used to match the message's first words); reading it through
    /// `QueueSource` is the same 65, and a directory search passes it over.
    func testADatabaseWithoutTheTableIsATypedProblem() throws {
        let path = directory.appendingPathComponent("other.db").path
        let other = try SQLiteDatabase(path: path, flags: SQLite.openReadWrite | SQLite.openCreate)
        try other.execute("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
        var kinds: [QueueProblem.Kind] = []
        try SQLiteQueueReader(path: path).read { item in
            if case .problem(let problem) = item { kinds.append(problem.kind) }
            return true
        }
        XCTAssertEqual(kinds, [.notAQueue])
        let source = try QueueSource.detect(path: path)
        XCTAssertThrowsError(try source.read { _ in true }) { error in
            XCTAssertEqual((error as? Failure)?.kind, .malformedInput)
            XCTAssertEqual((error as? Failure)?.message, "\(path): not an event queue: the database has no pending_events table")
        }
        XCTAssertEqual(try QueueSource.sources(at: directory.path).map(\.path), [])
        _ = other
    }
}
