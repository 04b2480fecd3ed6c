import Foundation
import XCTest
import LoopbackHTTPServer
@testable import AppDNANet

/// Faults found by attacking the client (issue 9): DNS failures on a reused curl handle, garbage
/// replies, one retry budget across requests, a back-off that 429s must not grow, huge answers,
/// and status wording that must not depend on the reason phrase received.
final class NetworkFaultTests: XCTestCase {
    typealias Sleeps = HTTPClientTests.Sleeps

    func client(retries: Int, sleeps: Sleeps) -> HTTPClient {
        HTTPClient(policy: RetryPolicy(maxRetries: retries), clock: sleeps, random: { 0.5 })
    }

    /// The first retry once reused a handle after curl_easy_reset, which libcurl 7.88 refused
    /// (CURLOPT_BUFFERSIZE) and which read "libcurl refused an option" (70). A `.invalid` host
    /// (RFC 6761) fails DNS on any machine.
    func testDNSFailureIsRetriedAndSaysCannotResolveHost() throws {
        let sleeps = Sleeps()
        XCTAssertThrowsError(try client(retries: 2, sleeps: sleeps).send(HTTPRequest(url: "https://nonexistent.invalid/x"),
                                                                         deadline: Deadline(secondsFromNow: 30))) { error in
            let error = error as! HTTPError
            XCTAssertEqual(error.kind, .unavailable, error.message)
            XCTAssertTrue(error.message.hasPrefix("cannot resolve host nonexistent.invalid"), error.message)
            XCTAssertTrue(error.message.contains("after 3 attempts"), error.message)
        }
        XCTAssertEqual(sleeps.all, [1, 2], "both retries were made")
    }

    func testARefusedOptionIsNamed() throws {
        // Loaded first, as perform does: run alone, this test would otherwise call a null
        // curl_easy_strerror.
        try CurlTransport.loadLibcurl()
        let options = CurlOptions(handle: OpaquePointer(bitPattern: 1)!)
        XCTAssertThrowsError(try options.check("CURLOPT_BUFFERSIZE", 43)) { error in
            let message = (error as! HTTPError).message
            XCTAssertTrue(message.contains("CURLOPT_BUFFERSIZE"), message)
            XCTAssertTrue(message.contains("CURLcode 43"), message)
        }
    }

    func testGarbageReplyIsATransientNetworkError() throws {
        var garbage = LoopbackHTTPServer.Reply()
        garbage.raw = [0x00, 0xFF] + Array("HTTP/9.9 200 OK\r\nContent-Length: 2\r\n\r\n{}".utf8)
        let server = try LoopbackHTTPServer { [garbage] _, _ in garbage }
        let sleeps = Sleeps()
        XCTAssertThrowsError(try client(retries: 2, sleeps: sleeps).send(HTTPRequest(url: server.baseURL + "/"), deadline: Deadline(secondsFromNow: 30))) { error in
            let error = error as! HTTPError
            XCTAssertEqual(error.kind, .unavailable, error.message)
            XCTAssertTrue(error.message.contains("not valid HTTP"), error.message)
        }
        XCTAssertEqual(server.requests.count, 3, "retried like any network fault")
    }

    func testOneBudgetAcrossRequests() throws {
        let server = try LoopbackHTTPServer { _, _ in .init(status: 500) }
        let sleeps = Sleeps()
        let http = client(retries: 2, sleeps: sleeps)
        let budget = RetryBudget(retries: 2)
        let first = try http.send(HTTPRequest(url: server.baseURL + "/version"), deadline: Deadline(secondsFromNow: 30), budget: budget)
        XCTAssertEqual(first.status, 500)
        XCTAssertEqual(first.attempts, 3)
        XCTAssertTrue(budget.isExhausted)
        // The budget counts retries: a second request still gets its first attempt, no retry.
        let second = try http.send(HTTPRequest(url: server.baseURL + "/bundle"), deadline: Deadline(secondsFromNow: 30), budget: budget)
        XCTAssertEqual(second.attempts, 1)
        XCTAssertEqual(second.retryUsage, "the command used 2 of its 2 retries")
        XCTAssertEqual(server.requests.count, 4, "--retries 2: two retries in all, shared by both requests")
    }

    /// 429 with Retry-After: 0 many times, then one 500: the back-off is the first one (1 s),
    /// not 2^10 s, and never more than the cap.
    func testRetryAfterAnswersDoNotGrowTheBackoff() throws {
        let server = try LoopbackHTTPServer { _, index in
            index < 10 ? .init(status: 429, headers: [("Retry-After", "0")]) : index < 12 ? .init(status: 500) : .init(json: "{}")
        }
        let sleeps = Sleeps()
        let response = try client(retries: 20, sleeps: sleeps).send(HTTPRequest(url: server.baseURL + "/"), deadline: Deadline(secondsFromNow: 1000))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(sleeps.all, Array(repeating: 0, count: 10) + [1, 2])
    }

    func testBackoffIsCapped() {
        let policy = RetryPolicy()
        XCTAssertEqual(policy.delay(beforeRetry: 5, retryAfter: nil, unit: 0.99), 30)
        XCTAssertEqual(policy.delay(beforeRetry: 99, retryAfter: nil, unit: 0), 30)
        XCTAssertEqual(policy.delay(beforeRetry: 99, retryAfter: 100, unit: 0), 100, "Retry-After is honoured as given")
        XCTAssertEqual(policy.delay(beforeRetry: 0, retryAfter: 1000, unit: 0), 120)
    }

    /// HTTP/2 sends no reason phrase and proxies send their own: the message is the same.
    func testStatusTextIsTheStandardPhraseWhateverWasReceived() throws {
        let server = try LoopbackHTTPServer { request, _ in
            request.path == "/none" ? .init(status: 503, reason: "") : .init(status: 503, reason: "Back Soon Maybe")
        }
        let http = client(retries: 0, sleeps: Sleeps())
        let none = try http.send(HTTPRequest(url: server.baseURL + "/none"), deadline: Deadline(secondsFromNow: 10))
        let other = try http.send(HTTPRequest(url: server.baseURL + "/other"), deadline: Deadline(secondsFromNow: 10))
        XCTAssertEqual(none.statusText, "HTTP 503 Service Unavailable")
        XCTAssertEqual(HTTPStatus.error(for: none, what: "GET x").message, HTTPStatus.error(for: other, what: "GET x").message)
    }

    func testForbiddenNamesTheKeyOrAnAccessRuleAndNotFoundReadsWell() {
        let forbidden = HTTPStatus.error(for: HTTPResponse(status: 403, url: "https://api.appdna.ai/api/v1/sdk/config-bundle"),
                                         what: "GET https://api.appdna.ai/api/v1/sdk/config-bundle")
        XCTAssertEqual(forbidden.kind, .permissionDenied)
        XCTAssertTrue(forbidden.message.contains("api.appdna.ai refused the request: the API key, or an access rule"), forbidden.message)
        let missing = HTTPStatus.error(for: HTTPResponse(status: 404, reason: "Not Found"), what: "GET https://x.example/p")
        XCTAssertFalse(missing.message.contains("not found"), missing.message)
        XCTAssertTrue(missing.message.hasSuffix("HTTP 404 Not Found: there is no AppDNA API at this address"), missing.message)
    }

    /// A 200 with a 64 MiB body keeps 4 KiB: the rest is dropped as it arrives.
    func testKeepBodyBytesDropsTheRestAsItArrives() throws {
        var huge = LoopbackHTTPServer.Reply()
        huge.streamedBodyBytes = 64 << 20
        let server = try LoopbackHTTPServer { [huge] _, _ in huge }
        let response = try client(retries: 0, sleeps: Sleeps()).send(HTTPRequest(url: server.baseURL + "/", keepBodyBytes: 4096),
                                                                     deadline: Deadline(secondsFromNow: 60))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body.count, 4096)
        // The same answer without the cap really is too big: the bytes did flow.
        let capped = HTTPClient(transport: CurlTransport(maxBodyBytes: 1 << 20), policy: RetryPolicy(maxRetries: 0))
        XCTAssertThrowsError(try capped.send(HTTPRequest(url: server.baseURL + "/"), deadline: Deadline(secondsFromNow: 60))) { error in
            XCTAssertTrue((error as! HTTPError).message.contains("larger than 1 MiB"), (error as! HTTPError).message)
        }
    }

    func testCertificateVariablesAreCheckedAndOrdered() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-trust-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pem = directory.appendingPathComponent("ca.pem").path
        try Data("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n".utf8).write(to: URL(fileURLWithPath: pem))
        let notPEM = directory.appendingPathComponent("notes.txt").path
        try Data("hello".utf8).write(to: URL(fileURLWithPath: notPEM))

        XCTAssertEqual(try TLSTrust(environment: [:]), TLSTrust())
        XCTAssertEqual(try TLSTrust(environment: ["CURL_CA_BUNDLE": pem, "SSL_CERT_FILE": notPEM]).certificateFile, pem, "CURL_CA_BUNDLE first")
        XCTAssertEqual(try TLSTrust(environment: ["SSL_CERT_FILE": pem, "SSL_CERT_DIR": directory.path]),
                       TLSTrust(certificateFile: pem, certificateDirectory: directory.path))
        for (name, value) in [("CURL_CA_BUNDLE", directory.path + "/missing.pem"), ("SSL_CERT_FILE", notPEM), ("SSL_CERT_DIR", pem)] {
            XCTAssertThrowsError(try TLSTrust(environment: [name: value])) { error in
                let error = error as! HTTPError
                XCTAssertEqual(error.kind, .configuration)
                XCTAssertTrue(error.message.hasPrefix("\(name)=\(value)"), error.message)
            }
        }
        let missing = directory.path + "/missing.pem"
        XCTAssertThrowsError(try TLSTrust(environment: ["SSL_CERT_FILE": missing])) { error in
            let error = error as! HTTPError
            XCTAssertTrue(error.message.hasPrefix("SSL_CERT_FILE=\(missing): cannot read the CA certificates: "), error.message)
            XCTAssertEqual(error.hint, "point SSL_CERT_FILE at a PEM file of CA certificates, or unset it to use the system's")
            XCTAssertFalse(error.retryable)
        }
    }

    func testKeyIsRedactedFromStoredAnswers() throws {
        let key = try APIKey("adn_live_0123456789abcdef3f9a", source: "test")
        let echoed = Array(#"{"error":"bad","headers":{"x-api-key":"adn_live_0123456789abcdef3f9a"}}"#.utf8)
        XCTAssertEqual(String(decoding: key.redacting(echoed), as: UTF8.self), #"{"error":"bad","headers":{"x-api-key":"adn_live_…3f9a"}}"#)
        let cut = Array(#"{"x-api-key":"adn_live_0123456"#.utf8)
        XCTAssertEqual(String(decoding: key.redacting(cut), as: UTF8.self), #"{"x-api-key":"adn_live_…3f9a"#)
    }
}
