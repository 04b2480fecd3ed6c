import Foundation
import XCTest
import TestSupport
import LoopbackHTTPServer

/// `bundle fetch` (and `bundle diff @remote`) at the edges of issue 9: DNS failures, garbage
/// replies, a FIFO or a dangling link as the output, one retry budget, status wording, and
/// TLS trusted only through CURL_CA_BUNDLE / SSL_CERT_FILE.
extension BundleFetchEndToEndTests {
    static let invalidHost = "https://nonexistent.invalid"

    func testDNSFailureIs69CannotResolveHostForFetchDiffAndReplay() throws {
        try writeOldFile()
        let fetched = try fetch(nil, ["--retries", "1"], url: Self.invalidHost)
        XCTAssertEqual(fetched.status, 69, fetched.stderr)
        XCTAssertTrue(fetched.stderr.contains("appdna: cannot resolve host nonexistent.invalid"), fetched.stderr)
        XCTAssertTrue(fetched.stderr.contains("after 2 attempts"), fetched.stderr)
        XCTAssertFalse(fetched.stderr.contains("libcurl refused"), fetched.stderr)
        try assertUntouched()

        let environment = ["APPDNA_SDK_KEY": Self.key, "APPDNA_API_URL": Self.invalidHost]
        let diffed = try Binary.run(["bundle", "diff", output, "@remote", "--retries", "1"], environment: environment)
        XCTAssertEqual(diffed.status, 69, diffed.stderr)
        XCTAssertTrue(diffed.stderr.contains("appdna: cannot resolve host nonexistent.invalid"), diffed.stderr)

        let queue = directory.appendingPathComponent("queue.ndjson").path
        try Data((QueueReplayEndToEndTests.queue(1...3)).utf8).write(to: URL(fileURLWithPath: queue))
        let replayed = try Binary.run(["queue", "replay", queue, "--yes", "--retries", "1", "--now", String(QueueReplayEndToEndTests.now)],
                                      environment: environment)
        XCTAssertEqual(replayed.status, 69, replayed.stderr)
        XCTAssertTrue(replayed.stderr.contains("appdna: cannot resolve host nonexistent.invalid"), replayed.stderr)
    }

    func testGarbageReplyIsRetriedThen69() throws {
        try writeOldFile()
        var garbage = LoopbackHTTPServer.Reply()
        garbage.raw = [0x00, 0xFF] + Array("HTTP/9.9 200 OK\r\n\r\n{}".utf8)
        let server = try LoopbackHTTPServer { [garbage] _, _ in garbage }
        let result = try fetch(server, ["--force", "--retries", "1"])
        XCTAssertEqual(result.status, 69, result.stderr)
        XCTAssertEqual(server.requests.count, 2, "retried")
        XCTAssertTrue(result.stderr.contains("not valid HTTP"), result.stderr)
        try assertUntouched()
    }

    /// The version check and the download share `--retries 2`: 3 requests in all, and the
    /// message counts them.
    func testOneRetryBudgetForVersionCheckAndDownload() throws {
        try writeOldFile()
        let server = try LoopbackHTTPServer { _, _ in .init(status: 503, headers: [("Retry-After", "0")]) }
        let result = try fetch(server, ["--retries", "2"])
        XCTAssertEqual(result.status, 75, result.stderr)
        XCTAssertEqual(server.requests.count, 3, server.requests.map(\.path).description)
        XCTAssertTrue(result.stderr.contains("after 3 attempts"), result.stderr)
        try assertUntouched()
    }

    func testForbiddenAndStatusWordingDoNotDependOnTheReasonPhrase() throws {
        try writeOldFile()
        let forbidden = try LoopbackHTTPServer { _, _ in .init(status: 403, reason: "") }
        let refused = try fetch(forbidden, ["--force"])
        XCTAssertEqual(refused.status, 77)
        XCTAssertTrue(refused.stderr.contains("HTTP 403 Forbidden: 127.0.0.1:\(forbidden.port) refused the request: the API key, or an access rule"), refused.stderr)

        let missing = try LoopbackHTTPServer { _, _ in .init(status: 404, reason: "Not Found") }
        let notFound = try fetch(missing, ["--force"])
        XCTAssertEqual(notFound.status, 69)
        XCTAssertFalse(notFound.stderr.contains("Not Found: not found"), notFound.stderr)

        // HTTP/2 has no reason phrase; a proxy may send its own: the same words either way.
        let bare = try LoopbackHTTPServer { _, _ in .init(status: 503, reason: "") }
        let odd = try LoopbackHTTPServer { _, _ in .init(status: 503, reason: "Upstream Is Napping") }
        let first = try fetch(bare, ["--force", "--retries", "0"]).stderr
        let second = try fetch(odd, ["--force", "--retries", "0"]).stderr
        XCTAssertEqual(first.replacingOccurrences(of: String(bare.port), with: "PORT"),
                       second.replacingOccurrences(of: String(odd.port), with: "PORT"))
        XCTAssertTrue(first.contains("HTTP 503 Service Unavailable"), first)
    }

    /// A FIFO nobody reads used to block forever in the version check (reading it). Now it is
    /// not read, is opened without blocking, and --timeout ends the wait.
    func testFIFOOutputNeverBlocksPastTheTimeout() throws {
        let fifo = directory.appendingPathComponent("bundle.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let server = try LoopbackHTTPServer(Self.routes { _ in .init(json: Self.apiBundle()) })
        let environment = ["APPDNA_SDK_KEY": Self.key, "APPDNA_API_URL": server.baseURL]
        let unread = try Binary.run(["bundle", "fetch", "-o", fifo, "--timeout", "0.8"], environment: environment)
        XCTAssertEqual(unread.status, 75, unread.stderr)
        XCTAssertTrue(unread.stderr.contains("nothing read it before the time limit (--timeout) ran out"), unread.stderr)
        XCTAssertFalse(server.requests.contains { $0.path.hasSuffix("/version") }, "a FIFO has no bundle_version to compare")

        // With a reader, the SDK file goes through the FIFO.
        final class Box: @unchecked Sendable { var data = Data() }
        let box = Box()
        let reader = Thread { box.data = FileHandle(forReadingAtPath: fifo)?.readDataToEndOfFile() ?? Data() }
        reader.start()
        let read = try Binary.run(["bundle", "fetch", "-o", fifo, "--timeout", "10"], environment: environment)
        XCTAssertEqual(read.status, 0, read.stderr)
        for _ in 0..<200 where box.data.isEmpty { usleep(10_000) }
        XCTAssertEqual(String(decoding: box.data, as: UTF8.self), Self.expectedSDKFile)
    }

    func testDanglingSymlinkIsFollowedOrRefusedWithTheLinkKept() throws {
        let server = try LoopbackHTTPServer(Self.routes { _ in .init(json: Self.apiBundle()) })
        let environment = ["APPDNA_SDK_KEY": Self.key, "APPDNA_API_URL": server.baseURL]
        let link = directory.appendingPathComponent("link.json").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "target.json")
        let created = try Binary.run(["bundle", "fetch", "-o", link], environment: environment)
        XCTAssertEqual(created.status, 0, created.stderr)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link), "target.json", "the link is kept")
        XCTAssertEqual(try String(contentsOfFile: directory.appendingPathComponent("target.json").path, encoding: .utf8), Self.expectedSDKFile)

        let nowhere = directory.appendingPathComponent("nowhere.json").path
        try FileManager.default.createSymbolicLink(atPath: nowhere, withDestinationPath: "missing-dir/x.json")
        let refused = try Binary.run(["bundle", "fetch", "-o", nowhere], environment: environment)
        XCTAssertEqual(refused.status, 73, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("is a symbolic link to"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("does not exist; the link was left as it is"), refused.stderr)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: nowhere), "missing-dir/x.json")
    }

    func testDiffOfAnAPIShapedFileAgainstRemoteComparesTheSameShape() throws {
        let raw = try temporaryFile(Self.apiBundle(), name: "raw.json")
        defer { try? FileManager.default.removeItem(atPath: (raw as NSString).deletingLastPathComponent) }
        let server = try LoopbackHTTPServer(Self.routes { _ in .init(json: Self.apiBundle()) })
        let result = try Binary.run(["bundle", "diff", raw, "@remote"], environment: ["APPDNA_SDK_KEY": Self.key, "APPDNA_API_URL": server.baseURL])
        XCTAssertEqual(result.status, 0, result.text + result.stderr)
        XCTAssertFalse(result.text.contains("/content"), result.text)
        XCTAssertFalse(result.stderr.contains("did not increase"), result.stderr)
    }

    /// A TLS server whose self-signed certificate only CURL_CA_BUNDLE or SSL_CERT_FILE trusts.
    func testCertificateTrustedThroughCurlCABundleOrSSLCertFile() throws {
        let tls = directory.appendingPathComponent("tls")
        let files = tls.appendingPathComponent("api/v1/sdk")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        try Data(Self.apiBundle().utf8).write(to: files.appendingPathComponent("config-bundle"))
        let (certificate, key) = try makeSelfSignedCertificate(in: tls)
        let port = try freeLoopbackPort()
        // -WWW serves the files under the current directory: GET /api/v1/sdk/config-bundle.
        let server = try startTLSServer(port: port, certificate: certificate, key: key, serving: ["-WWW"], directory: tls)
        defer { server.terminate(); server.waitUntilExit() }
        XCTAssertTrue(waitUntilListening(port: port), "openssl s_server did not start")

        let url = "https://127.0.0.1:\(port)"
        let untrusted = try fetch(nil, ["--force", "--retries", "0", "--timeout", "10"], url: url)
        XCTAssertEqual(untrusted.status, 69, untrusted.stderr)
        for variable in ["CURL_CA_BUNDLE", "SSL_CERT_FILE"] {
            try? FileManager.default.removeItem(atPath: output)
            let trusted = try fetch(nil, ["--force", "--retries", "0", "--timeout", "10"], environment: [variable: certificate], url: url)
            XCTAssertEqual(trusted.status, 0, "\(variable): \(trusted.stderr)")
            XCTAssertEqual(try String(contentsOfFile: output, encoding: .utf8), Self.expectedSDKFile, variable)
        }
        let missing = try fetch(nil, ["--force"], environment: ["CURL_CA_BUNDLE": tls.appendingPathComponent("none.pem").path], url: url)
        XCTAssertEqual(missing.status, 78, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("appdna: CURL_CA_BUNDLE="), missing.stderr)
        let notCertificate = try fetch(nil, ["--force"], environment: ["SSL_CERT_FILE": key], url: url)
        XCTAssertEqual(notCertificate.status, 78, notCertificate.stderr)
        XCTAssertTrue(notCertificate.stderr.contains("no PEM certificate"), notCertificate.stderr)
    }
}
