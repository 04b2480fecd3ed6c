import Foundation
import XCTest
import TestSupport
@testable import AppDNACLI

/// Issue 34.4: `queue inspect` on a file that is not a queue exits 65 with a clear message, as
/// docs/queues.md promises (a config bundle read as "ios-ndjson … 10 malformed", `{"hello":1}`
/// as "1 live event", both 0); a real queue with malformed lines is still summarised.
final class QueueInspectNotAQueueTests: XCTestCase {
    func testAConfigBundleAndAnObjectWithoutEventKeysAre65() throws {
        let scratch = try ScratchDirectory("not-a-queue")
        defer { scratch.remove() }
        let bundle = try scratch.file("appdna-config.json", Array(try Data(contentsOf: repositoryRoot.appendingPathComponent("examples/bundles/appdna-config.json"))))
        let hello = try scratch.file("hello.json", Array("{\"hello\":1}\n".utf8))
        for path in [bundle, hello] {
            let run = runCLI(["queue", "inspect", path])
            XCTAssertEqual(run.status, 65, run.stdout)
            XCTAssertEqual(run.stdout, "")
            XCTAssertTrue(run.stderrLines.first?.hasPrefix("appdna: \(path): not an event queue: ") == true, run.stderr)
        }
        let queue = try scratch.file("pending_events.json", Array(("{not json\n" + QueueInspectCommandTests.event(1) + "\n").utf8))
        let run = runCLI(["queue", "inspect", queue, "--now", "2026-02-20T10:00:00Z"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("events        1 live, 0 cancelled, 1 malformed, 0 truncated"), run.stdout)
    }

    /// Issue 44: `appdna_events.db` pulled from a device without its `-wal` (never checkpointed:
    /// the file holds only page 1, an empty schema, in WAL mode) is not "not an event queue":
    /// the events are in the missing log, and the message says to copy it. Exit 66, for
    /// `queue inspect` and `queue replay` alike.
    func testADatabaseInWALModeWithoutItsLogSaysToCopyTheLog() throws {
        let scratch = try ScratchDirectory("wal-missing")
        defer { scratch.remove() }
        let path = try scratch.file("appdna_events.db", Self.emptyDatabase(walMode: true))
        for arguments in [["queue", "inspect", path], ["queue", "replay", path, "--dry-run"]] {
            let run = runCLI(arguments)
            XCTAssertEqual(run.status, 66, "\(arguments): \(run.stdout)\n\(run.stderr)")
            XCTAssertEqual(run.stderrLines, [
                "appdna: \(path): the database is in WAL mode but its write-ahead log \(path)-wal is missing: the pending_events table and the events not yet checkpointed are in that file",
                "hint: copy appdna_events.db-wal (and appdna_events.db-shm) from the device with appdna_events.db, into the same directory under the same name (\(path)-wal), then run this again",
            ], "\(arguments)")
        }
        // The same empty database in rollback-journal mode has nothing missing: it is no queue.
        let plain = try scratch.file("plain.db", Self.emptyDatabase(walMode: false))
        let run = runCLI(["queue", "inspect", plain])
        XCTAssertEqual(run.status, 65)
        XCTAssertEqual(run.stderrLines.first, "appdna: \(plain): not an event queue: the database has no pending_events table")
    }

    /// A one-page SQLite database with no table, as SQLite writes it (file format 3.x, 4096-byte
    /// pages): bytes 18 and 19 are 2 in WAL mode, 1 otherwise.
    static func emptyDatabase(walMode: Bool) -> [UInt8] {
        var page = [UInt8](repeating: 0, count: 4096)
        func put(_ value: UInt32, at offset: Int, bytes: Int = 4) {
            for index in 0..<bytes { page[offset + index] = UInt8(truncatingIfNeeded: value >> UInt32(8 * (bytes - 1 - index))) }
        }
        page.replaceSubrange(0..<16, with: Array("SQLite format 3\0".utf8))
        put(4096, at: 16, bytes: 2)
        page[18] = walMode ? 2 : 1
        page[19] = walMode ? 2 : 1
        page[21] = 64; page[22] = 32; page[23] = 32         // payload fractions
        put(1, at: 24)                                     // change counter
        put(1, at: 28)                                     // pages in the file
        put(4, at: 44)                                     // schema format
        put(1, at: 56)                                     // UTF-8
        put(1, at: 92)                                     // version-valid-for = change counter
        put(3_045_001, at: 96)
        page[100] = 0x0D                                   // page 1: an empty table leaf (sqlite_master)
        put(4096, at: 105, bytes: 2)                       // cell content starts at the page's end
        return page
    }
}
