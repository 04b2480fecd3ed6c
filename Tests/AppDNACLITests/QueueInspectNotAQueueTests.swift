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
}
