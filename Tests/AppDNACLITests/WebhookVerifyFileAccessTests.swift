import AppDNACore
import Foundation
@testable import AppDNACLI
import TestSupport
import XCTest

/// `webhook verify` and `webhook sign` read the body, the secret files, a request dump and a
/// record file through the files they are given (`CommandIO.files`). Every path is in a
/// directory that does not exist, so a read that went around the injected files would fail
/// (66 or 78) instead of finding the bytes in memory.
final class WebhookVerifyFileAccessTests: XCTestCase {
    static let directory = "/nonexistent-appdna-directory/"
    static let secretFile = directory + "secret.txt"
    static let body = Array(#"{"id":"evt_1","type":"subscription.renewed","created_at":"2026-02-19T10:00:00Z","data":{}}"#.utf8)
    let secret = try! WebhookSecret(raw: Array("whsec_in_memory_secret".utf8), source: "test")
    var signature: String { WebhookSigner.headerValue(body: Self.body, secret: secret) }

    func files(_ more: [String: [UInt8]] = [:]) -> InMemoryFiles {
        InMemoryFiles([Self.secretFile: Array("whsec_in_memory_secret\n".utf8)].merging(more) { $1 })
    }

    func testABodyAndItsSecretAreReadThroughTheInjectedFiles() {
        let body = Self.directory + "body.json"
        let files = files([body: Self.body])
        let run = runCLI(["webhook", "verify", body, "--signature", signature, "--secret-file", Self.secretFile], files: files)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.hasPrefix("valid: signature matches"), run.stdout)
        XCTAssertTrue(run.stdout.contains("\(Self.body.count) bytes"), run.stdout)
        // The first 8 KiB, to tell a record file given as BODY; the secret; the body, in chunks.
        XCTAssertEqual(files.reads, [body, Self.secretFile, body])

        let signed = runCLI(["webhook", "sign", body, "--secret-file", Self.secretFile], files: files)
        XCTAssertEqual(signed.status, 0, signed.stderr)
        XCTAssertEqual(signed.stdout, signature + "\n")
    }

    func testARequestDumpIsReadThroughTheInjectedFiles() {
        let dump = Self.directory + "delivery.http"
        let request = "POST /webhooks HTTP/1.1\r\nHost: example.com\r\nX-AppDNA-Signature: \(signature)\r\nContent-Length: \(Self.body.count)\r\n\r\n"
        let files = files([dump: Array(request.utf8) + Self.body])
        let run = runCLI(["webhook", "verify", "--request", dump, "--secret-file", Self.secretFile], files: files)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(files.reads, [Self.secretFile, dump])
    }

    func testARecordedDeliveryIsReadThroughTheInjectedFiles() throws {
        let record = Self.directory + "deliveries.ndjson"
        func line(_ body: [UInt8]) -> [UInt8] {
            RecordedDelivery(receivedAt: "2026-02-19T10:00:00.000Z", method: "POST", target: "/webhooks",
                             headers: [("Host", "example.com"), ("X-AppDNA-Signature", signature)], body: body, valid: true).jsonLine()
        }
        let files = files([record: line(Array(#"{"id":"evt_0"}"#.utf8)) + line(Self.body)])
        // A status of the file (regular, so it is read), then its bytes.
        let run = runCLI(["webhook", "verify", "--recorded", record, "--line", "2", "--secret-file", Self.secretFile, "--json"], files: files)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains(#""valid": true"#), run.stdout)
        XCTAssertEqual(files.reads, [Self.secretFile, record])

        // Given as BODY, the record file is told by its first bytes, read through the files too.
        let asBody = runCLI(["webhook", "verify", record, "--signature", signature, "--secret-file", Self.secretFile], files: files)
        XCTAssertEqual(asBody.status, 64, asBody.stderr)
        XCTAssertTrue(asBody.stderr.contains("is a webhook listen --record file, not a body"), asBody.stderr)
    }

    /// A BODY file that is not there is refused by the plan (66), before anything is printed.
    func testAMissingBodyIsRefusedBeforeAnyOutput() {
        let files = files()
        let run = runCLI(["webhook", "verify", Self.directory + "gone.json", "--signature", signature, "--secret-file", Self.secretFile,
                          "--explain"], files: files)
        XCTAssertEqual(run.status, 66, run.stderr)
        XCTAssertEqual(run.stderr, "appdna: \(Self.directory)gone.json: no such file or directory\n")
        XCTAssertEqual(run.stdout, "")
    }
}
