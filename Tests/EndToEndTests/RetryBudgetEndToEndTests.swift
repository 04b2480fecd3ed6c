import Foundation
import XCTest
import LoopbackHTTPServer

/// `--retries N` through the binary against a real server on 127.0.0.1: a healthy server gets
/// the version check and the download even at N = 0, and one whose downloads keep failing
/// gets the download N + 1 times with a message that counts them and the retries used.
extension BundleFetchEndToEndTests {
    func testRetriesCountRetriesOverARealConnection() throws {
        try writeOldFile()
        let healthy = try LoopbackHTTPServer(Self.routes { _ in .init(json: Self.apiBundle()) })
        let fetched = try fetch(healthy, ["--retries", "0"])
        XCTAssertEqual(fetched.status, 0, fetched.stderr)
        XCTAssertEqual(healthy.requests.map(\.path), ["/api/v1/sdk/config-bundle/version", "/api/v1/sdk/config-bundle"])

        try writeOldFile()
        let failing = try LoopbackHTTPServer(Self.routes { _ in .init(status: 500, headers: [("Retry-After", "0")]) })
        let failed = try fetch(failing, ["--retries", "1"])
        XCTAssertEqual(failed.status, 69, failed.stderr)
        XCTAssertEqual(bundleRequests(failing).count, 2, "one retry: two downloads")
        XCTAssertTrue(failed.stderr.contains("HTTP 500 Internal Server Error after 2 attempts (the command used 1 of its 1 retry)"), failed.stderr)
        try assertUntouched()
    }
}

/// `webhook trigger` makes no retries (the answer is what is tested): a failing handler gets
/// each delivery exactly once, never refused.
extension WebhookListenEndToEndTests {
    func testTriggerSendsEachDeliveryOnceToAFailingHandler() throws {
        let failing = try LoopbackHTTPServer { _, _ in .init(status: 503, headers: [("Retry-After", "0")]) }
        defer { failing.stop() }
        let sent = try Binary.run(["webhook", "trigger", "user.created", "--to", failing.baseURL + "/hook", "--secret-file", secretPath])
        XCTAssertEqual(sent.status, 1, sent.stderr)
        XCTAssertEqual(failing.requests.count, 1)
    }
}
