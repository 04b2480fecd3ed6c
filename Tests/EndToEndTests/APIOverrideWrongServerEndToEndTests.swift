import Foundation
import TestSupport
import XCTest

/// `api override` finds its usage errors before any request, and pointed at `webhook listen`'s
/// inspector says so (and sends no change with its token).
final class APIOverrideWrongServerEndToEndTests: XCTestCase {
    var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-wrong-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: scratch) }

    func testASyntaxErrorIsReportedAsOneWhateverTheServer() throws {
        let path = scratch.appendingPathComponent("bundle.json").path
        try Data(DevServerEndToEndTests.source.utf8).write(to: URL(fileURLWithPath: path))
        let server = try APIServeProcess(["--bundle", path])
        defer { server.stop() }
        for arguments in [["set", "bogus"], ["clear", "bogus"], ["list", "extra"]] {
            let run = try Binary.run(["api", "override"] + arguments + ["--server", server.baseURL])
            XCTAssertEqual(run.status, 64, "\(arguments): \(run.stderr)")
            XCTAssertFalse(run.stderr.contains("is the API port"), "\(arguments): \(run.stderr)")
        }
    }

    func testWebhookListensInspectorIsNamed() throws {
        let secret = scratch.appendingPathComponent("secret.txt").path
        try Data("whsec_wrong_server\n".utf8).write(to: URL(fileURLWithPath: secret))
        let listener = try InspectedProcess(["webhook", "listen", "--secret-file", secret], in: scratch)
        defer { _ = listener.stop() }
        for arguments in [["list"], ["set", "experiment:other=y"], ["clear", "--all"]] {
            let run = try Binary.run(["api", "override"] + arguments + ["--server", listener.inspector])
            XCTAssertEqual(run.status, 64, "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("is the inspector of webhook listen, not of api serve"), "\(arguments): \(run.stderr)")
            XCTAssertFalse(run.stderr.contains("no such endpoint"), run.stderr)
        }
    }
}
