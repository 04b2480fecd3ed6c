import Foundation
import TestSupport
import XCTest

/// `webhook verify --recorded`: unreadable lines are reported, --line takes plain digits,
/// `-` is called standard input, and a record's malformed signature is located FILE:LINE.
final class WebhookVerifyRecordedLinesEndToEndTests: XCTestCase {
    var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-verify-lines-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: scratch) }

    /// One record line of `body` with `signature`, as webhook listen --record writes it.
    func recordLine(body: String, signature: String) throws -> String {
        let object: [String: Any] = ["received_at": "2026-02-19T10:00:00.000Z", "method": "POST", "target": "/webhooks",
                                     "headers": [["Content-Type", "application/json"], ["X-AppDNA-Signature", signature]],
                                     "body": body, "valid": true]
        return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    func testUnreadableLinesPlainLineNumbersStandardInputAndLocatedSignatures() throws {
        let secret = scratch.appendingPathComponent("s.txt").path
        try Data("whsec_lines_secret\n".utf8).write(to: URL(fileURLWithPath: secret))
        let body = #"{"id":"evt_1","type":"subscription.renewed"}"#
        let bodyPath = scratch.appendingPathComponent("d1.json").path
        try Data(body.utf8).write(to: URL(fileURLWithPath: bodyPath))
        let signed = try Binary.run(["webhook", "sign", bodyPath, "--secret-file", secret])
        XCTAssertEqual(signed.status, 0, signed.stderr)
        let signature = signed.text.trimmingCharacters(in: .whitespacesAndNewlines)

        let record = scratch.appendingPathComponent("deliveries.ndjson").path
        try Data((try recordLine(body: body, signature: signature) + "\n{\"method\":\"POS\n").utf8).write(to: URL(fileURLWithPath: record))
        let run = try Binary.run(["webhook", "verify", "--recorded", record, "--secret-file", secret])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("\(record): 1 unreadable line skipped (line 2:"), run.stderr)

        for line in ["+1", "01"] {
            let bad = try Binary.run(["webhook", "verify", "--recorded", record, "--line", line, "--secret-file", secret])
            XCTAssertEqual(bad.status, 64, "\(line): \(bad.stderr)")
        }
        XCTAssertEqual(try Binary.run(["webhook", "verify", "--recorded", record, "--line", "1", "--secret-file", secret]).status, 0)

        let stdin = try Binary.run(["webhook", "verify", "--recorded", "-", "--secret-file", secret], stdin: Data("junk\n".utf8))
        XCTAssertEqual(stdin.status, 65, stdin.stderr)
        XCTAssertTrue(stdin.stderr.contains("standard input: no delivery recorded"), stdin.stderr)

        let malformed = scratch.appendingPathComponent("malformed.ndjson").path
        try Data((try recordLine(body: body, signature: "sha256=zz") + "\n").utf8).write(to: URL(fileURLWithPath: malformed))
        let located = try Binary.run(["webhook", "verify", "--recorded", malformed, "--secret-file", secret])
        XCTAssertEqual(located.status, 65, located.stderr)
        XCTAssertTrue(located.stderr.contains("\(malformed):1: the request's X-AppDNA-Signature header"), located.stderr)
    }
}
