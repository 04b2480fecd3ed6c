import AppDNACore
import Foundation
@testable import AppDNACLI
@testable import AppDNAServers
@testable import AppDNANet
import TestSupport
import XCTest

/// `webhook listen --record`: the record file is opened through the files the command is given
/// (`CommandIO.files`), and the listener appends each delivery through it, cutting a line a
/// full disk left half written back off. The path is in a directory that does not exist, so a
/// write that went around the injected files would fail instead of landing in memory.
final class ListenRecordFileAccessTests: XCTestCase {
    static let record = "/nonexistent-appdna-directory/deliveries.ndjson"
    let secret = try! WebhookSecret(raw: Array("whsec_unit_test_secret".utf8), source: "test")

    /// What the listener reports, kept.
    final class Reports: ListenReport {
        let statuses = Locked<[Int]>([])
        let problems = Locked<[String]>([])
        func delivered(_ outcome: DeliveryOutcome) { statuses.withLock { $0.append(outcome.response.status) } }
        func rejected(_ rejected: RejectedRequest) {}
        func notRecorded(_ problem: String) { problems.withLock { $0.append(problem) } }
    }

    func listener(_ files: InMemoryFiles, reports: Reports) throws -> WebhookListener {
        let recorder = try DeliveryRecorder(path: Self.record, files: files)
        let settings = WebhookListener.Settings(secrets: [secret], target: nil, forwardInvalid: false, forwardTimeout: 1,
                                                client: HTTPClient(transport: CurlTransport(userAgent: "test")), recorder: recorder,
                                                words: FlagWording.listen)
        let budget = try HTTPServer(host: "127.0.0.1", port: 0, limits: HTTPServer.Limits(maxBodyBytes: 1 << 20, headerTimeout: 1, idleTimeout: 1, maxConnections: 1))
        return WebhookListener(settings: settings, report: reports, clock: VirtualClock(), inspector: nil, budget: budget)
    }

    func delivery(_ id: String) throws -> HTTPServer.Request {
        let body = Array(#"{"id":"\#(id)","type":"subscription.renewed"}"#.utf8)
        return try InspectorTests.request("POST", "/webhooks", headers: [("Host", "127.0.0.1:9"),
                                                                         ("X-AppDNA-Signature", WebhookSigner.headerValue(body: body, secret: secret))], body: body)
    }

    func testEachDeliveryIsAppendedAndSyncedThroughTheInjectedFiles() throws {
        let files = InMemoryFiles()
        let reports = Reports()
        let listener = try listener(files, reports: reports)
        XCTAssertEqual(files.permissions[Self.record], 0o600)
        for id in ["evt_1", "evt_2"] { XCTAssertEqual(listener.handle(try delivery(id)).status, 200) }
        let lines = try XCTUnwrap(files.text(Self.record)).split(separator: "\n")
        XCTAssertEqual(lines.count, 2)
        XCTAssertEqual(try RecordedDelivery.parse(line: Array(lines[1].utf8)).body, Array(#"{"id":"evt_2","type":"subscription.renewed"}"#.utf8))
        XCTAssertEqual(files.syncs, [Self.record, Self.record], "each record synced before the sender is answered")
        XCTAssertEqual(reports.problems.withLock { $0 }, [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: Self.record))
    }

    func testAWriteAFullDiskCutShortIsCutBackAndNotAcknowledged() throws {
        let before = Array("{\"earlier\":1}\n".utf8)
        let files = InMemoryFiles([Self.record: before], full: [Self.record])
        let reports = Reports()
        let listener = try listener(files, reports: reports)
        XCTAssertEqual(listener.handle(try delivery("evt_1")).status, 500, "not acknowledged: the sender delivers it again")
        XCTAssertEqual(files.contents[Self.record], before, "the half line is cut back off")
        XCTAssertEqual(reports.problems.withLock { $0 }, ["\(Self.record): cannot write: \(SystemError.noSpace)"])
    }

    /// The command hands its files to the recorder: a record path the injected files refuse is
    /// refused (73) with their words, before the port is bound.
    func testTheCommandOpensItsRecordFileThroughItsFiles() {
        let files = InMemoryFiles(refused: [Self.record])
        let run = runCLI(["webhook", "listen", "--port", "0", "--record", Self.record], environment: ["APPDNA_WEBHOOK_SECRET": "whsec_x"],
                         files: files)
        XCTAssertEqual(run.status, 73, run.stderr)
        XCTAssertTrue(run.stderr.contains("\(Self.record): cannot open for recording: permission denied"), run.stderr)
        XCTAssertFalse(run.stderr.contains("listening on"), run.stderr)
    }
}
