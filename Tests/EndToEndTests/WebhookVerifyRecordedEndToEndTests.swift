import Foundation
import TestSupport
import XCTest

/// Issue 52.5: `webhook verify --recorded FILE [--line N]` verifies a delivery the listener
/// recorded (`webhook listen --record`), with its recorded signature; a record file given the
/// old way (as BODY) gets a hint instead of a mismatch nobody can explain.
final class WebhookVerifyRecordedEndToEndTests: XCTestCase {
    var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-verify-recorded-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: scratch) }

    /// Two deliveries recorded by a real listener (the second with a wrong signature).
    func recordTwo(secret: String) throws -> String {
        let record = scratch.appendingPathComponent("deliveries.ndjson").path
        let listener = try APIServeProcess(["--secret-file", secret, "--record", record], command: ["webhook", "listen"])
        defer { listener.stop() }
        let body = scratch.appendingPathComponent("body.json").path
        try Data(#"{"id":"evt_1","type":"subscription.renewed","created_at":"2026-02-19T10:00:00Z","data":{"user_id":"u1"}}"#.utf8)
            .write(to: URL(fileURLWithPath: body))
        let sent = try Binary.run(["webhook", "trigger", "subscription.renewed", "--body", body, "--to", listener.baseURL + "/webhooks", "--secret-file", secret])
        XCTAssertEqual(sent.status, 0, sent.stderr)
        let other = scratch.appendingPathComponent("other.txt").path
        try Data("whsec_another_secret\n".utf8).write(to: URL(fileURLWithPath: other))
        let wrong = try Binary.run(["webhook", "trigger", "subscription.renewed", "--body", body, "--to", listener.baseURL + "/webhooks", "--secret-file", other])
        XCTAssertNotEqual(wrong.status, 0, "the listener refuses a delivery signed with another secret")
        XCTAssertEqual(listener.stop(), 0)
        XCTAssertEqual(try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n").count, 2)
        return record
    }

    func testARecordedDeliveryVerifiesWithItsRecordedSignature() throws {
        let secret = scratch.appendingPathComponent("secret.txt").path
        try Data("whsec_recorded_\(UUID().uuidString)\n".utf8).write(to: URL(fileURLWithPath: secret))
        let record = try recordTwo(secret: secret)

        let first = try Binary.run(["webhook", "verify", "--recorded", record, "--line", "1", "--secret-file", secret])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(first.text.contains("valid"), first.text)
        XCTAssertTrue(first.text.contains("the body of the delivery recorded at \(record):1"), first.text)
        let second = try Binary.run(["webhook", "verify", "--recorded", record, "--line", "2", "--secret-file", secret])
        XCTAssertEqual(second.status, 1, "the second was signed with another secret: \(second.text)")
        let json = try Binary.run(["webhook", "verify", "--recorded", record, "--line", "1", "--secret-file", secret, "--json"])
        XCTAssertEqual((try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])?["valid"] as? Bool, true, json.text)

        // Several deliveries and no --line: which ones there are.
        let which = try Binary.run(["webhook", "verify", "--recorded", record, "--secret-file", secret])
        XCTAssertEqual(which.status, 64)
        XCTAssertTrue(which.stderr.contains("holds 2 deliveries: pick one with --line N"), which.stderr)
        XCTAssertTrue(which.stderr.contains("--line takes one of 1, 2"), which.stderr)
        let beyond = try Binary.run(["webhook", "verify", "--recorded", record, "--line", "3", "--secret-file", secret])
        XCTAssertEqual(beyond.status, 64, beyond.stderr)
        // One delivery: no --line needed.
        let single = scratch.appendingPathComponent("one.ndjson").path
        let lines = try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n")
        try Data((lines[0] + "\n").utf8).write(to: URL(fileURLWithPath: single))
        XCTAssertEqual(try Binary.run(["webhook", "verify", "--recorded", single, "--secret-file", secret]).status, 0)

        // The old way (the record file as BODY): a hint, not a mismatch.
        for extra in [[], ["--signature", "sha256=" + String(repeating: "0", count: 64)]] {
            let old = try Binary.run(["webhook", "verify", single, "--secret-file", secret] + extra)
            XCTAssertEqual(old.status, 64, old.stderr)
            XCTAssertTrue(old.stderr.contains("is a webhook listen --record file, not a body"), old.stderr)
            XCTAssertTrue(old.stderr.contains("--recorded \(single)"), old.stderr)
        }
        // --line alone, and --recorded with BODY or --request: usage errors.
        XCTAssertEqual(try Binary.run(["webhook", "verify", "--line", "1", "--signature", "sha256=00", single, "--secret-file", secret]).status, 64)
        XCTAssertEqual(try Binary.run(["webhook", "verify", "--recorded", record, single, "--secret-file", secret]).status, 64)
    }
}
