import Foundation
import XCTest
@testable import AppDNACLI
import AppDNACore
import TestSupport

/// Issue 54.1 for `queue replay`, the `webhook` commands and `warehouse`: what the command line
/// decides is refused before anything is opened (the walk of every command, its plans and its
/// refusals is `EveryCommandPlansTests`; the door, `CommandFileDoorTests`).
final class QueueWebhookWarehousePlanTests: XCTestCase {
    var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-plans-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: scratch)
    }

    func path(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    /// `webhook listen` refuses a bad --host, or a forward flag without --forward-to, in its plan:
    /// the record file is not created (it was, before the port was bound and the host refused).
    func testAListenRefusedByItsFlagsLeavesNoRecordFile() {
        let record = path("record.ndjson")
        // The bad --host with each: a listener that took the forward flags would stop there
        // (64 for the host, not for them) instead of listening for ever.
        for (extra, refusal) in [([String](), "'not-an-address' is not an IPv4 or IPv6 address"),
                                 (["--forward-invalid"], "--forward-invalid goes with --forward-to URL"),
                                 (["--forward-timeout", "3"], "--forward-timeout goes with --forward-to URL")] {
            let run = runCLI(["webhook", "listen", "--port", "0", "--record", record, "--host", "not-an-address"] + extra,
                             environment: ["APPDNA_WEBHOOK_SECRET": "whsec_x"])
            XCTAssertEqual(run.status, 64, "\(extra): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains(refusal), run.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: record), "\(extra): the record file was created")
        }
    }

}
