import Foundation
import XCTest
import LoopbackHTTPServer
import TestSupport

/// `appdna bundle fetch` run as a binary against a real HTTP/1.1 server on 127.0.0.1.
/// Every failing case checks that the existing output file is byte-for-byte unchanged and that
/// no temporary file is left; every run checks that the key appears in no output and no argv.
final class BundleFetchEndToEndTests: XCTestCase {
    static let key = "adn_live_E2EsecretKEY0123456789zz3f9a"
    static let testKey = "adn_test_E2EsandboxKEY0123456789yy7c1b"
    static let oldFile = Array("{\n  \"bundle_version\": 41,\n  \"experiments\": {}\n}\n".utf8)

    var directory: URL!
    var output: String { directory.appendingPathComponent("appdna-config.json").path }

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-fetch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: - fixtures

    // The bundles live in TestSupport (`BundleFixtures`): the in-process tests serve them too.
    static func apiBundle(version: Int = 42, weights: (Double, Double) = (0.5, 0.5)) -> String {
        BundleFixtures.apiBundle(version: version, weights: weights)
    }
    static let expectedSDKFile = BundleFixtures.expectedSDKFile
    static let sdkBundle = BundleFixtures.sdkBundle

    // MARK: - helpers

    func fetch(_ server: LoopbackHTTPServer?, _ arguments: [String] = [], key: String? = BundleFetchEndToEndTests.key,
               environment: [String: String] = [:], url: String? = nil,
               file: StaticString = #filePath, line: UInt = #line) throws -> Binary.Result {
        var env = environment
        if let key { env["APPDNA_SDK_KEY"] = key }
        env["APPDNA_API_URL"] = url ?? server?.baseURL ?? "http://127.0.0.1:9"
        let argv = ["bundle", "fetch", "-o", output] + arguments
        for secret in [Self.key, Self.testKey] {
            XCTAssertFalse(argv.contains { $0.contains(secret) }, "the key is in argv", file: file, line: line)
        }
        let result = try Binary.run(argv, environment: env)
        for secret in [Self.key, Self.testKey] {
            XCTAssertFalse(result.stderr.contains(secret), "the key leaked on stderr: \(result.stderr)", file: file, line: line)
            XCTAssertFalse(result.text.contains(secret), "the key leaked on stdout", file: file, line: line)
            XCTAssertFalse(result.stderr.contains(String(secret.dropFirst(9))), "part of the key leaked on stderr", file: file, line: line)
        }
        return result
    }

    func writeOldFile() throws {
        try Data(Self.oldFile).write(to: URL(fileURLWithPath: output))
    }

    /// The old file is byte-for-byte as it was and nothing else is in its directory.
    func assertUntouched(file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: output)), Data(Self.oldFile), "the old file changed", file: file, line: line)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["appdna-config.json"],
                       "a temporary file was left", file: file, line: line)
    }

    func timed<T>(_ body: () throws -> T) rethrows -> (T, Double) {
        let start = ProcessInfo.processInfo.systemUptime
        let value = try body()
        return (value, ProcessInfo.processInfo.systemUptime - start)
    }

    static func routes(version: Int = 42, bundle: @escaping @Sendable (Int) -> LoopbackHTTPServer.Reply) -> @Sendable (LoopbackHTTPServer.Request, Int) -> LoopbackHTTPServer.Reply {
        let counter = Counter()
        return { request, _ in
            if request.path == "/api/v1/sdk/config-bundle/version" {
                return .init(json: #"{"bundle_version": \#(version), "sdk_min_version": "1.0.0"}"#)
            }
            if request.path == "/api/v1/sdk/config-bundle" { return bundle(counter.next()) }
            return .init(status: 404)
        }
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func next() -> Int { lock.lock(); defer { lock.unlock() }; value += 1; return value - 1 }
    }

    func bundleRequests(_ server: LoopbackHTTPServer) -> [LoopbackHTTPServer.Request] {
        server.requests.filter { $0.path == "/api/v1/sdk/config-bundle" }
    }

    // MARK: - success

    func testAPIShapeIsWrittenInTheSDKShapeDeterministically() throws {
        let server = try LoopbackHTTPServer(Self.routes { _ in .init(json: Self.apiBundle()) })
        let result = try fetch(server)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(String(decoding: try Data(contentsOf: URL(fileURLWithPath: output)), as: UTF8.self), Self.expectedSDKFile)
        XCTAssertEqual(result.stderrLines.count, 1, result.stderr)
        XCTAssertEqual(String(result.stderrLines.first ?? ""),
                       "\(output): bundle_version 42, \(Self.expectedSDKFile.utf8.count) bytes, 1 experiment, 2 flags (SDK file shape)")
        XCTAssertEqual(result.text, "")
        let request = try XCTUnwrap(bundleRequests(server).first)
        XCTAssertEqual(request.method, "GET")
        XCTAssertEqual(request.header("x-api-key"), Self.key)
        XCTAssertEqual(server.requests.count, 1, "no version check without an existing file")
        // Same content, same bytes.
        let first = try Data(contentsOf: URL(fileURLWithPath: output))
        XCTAssertEqual(try fetch(server, ["--force"]).status, 0)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: output)), first)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["appdna-config.json"])
    }

    func testSDKShapeIsKeptAndRawWritesTheResponseBytes() throws {
        let server = try LoopbackHTTPServer(Self.routes(version: 6) { _ in .init(json: Self.sdkBundle) })
        let result = try fetch(server)
        XCTAssertEqual(result.status, 0, result.stderr)
        let written = String(decoding: try Data(contentsOf: URL(fileURLWithPath: output)), as: UTF8.self)
        XCTAssertTrue(written.hasPrefix("{\n  \"bundle_version\": 7,\n  \"experiments\": {\n    \"experiments\": {"), written)
        XCTAssertTrue(result.stderr.contains("bundle_version 7") && result.stderr.contains("1 experiment, 2 flags"), result.stderr)
        let raw = try fetch(server, ["--raw", "--force"])
        XCTAssertEqual(raw.status, 0, raw.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: output)), Data(Self.sdkBundle.utf8))
    }

    func testStdoutOutput() throws {
        let server = try LoopbackHTTPServer(Self.routes { _ in .init(json: Self.apiBundle()) })
        var env: [String: String] = ["APPDNA_SDK_KEY": Self.key, "APPDNA_API_URL": server.baseURL]
        env["PATH"] = "/usr/bin:/bin"
        let result = try Binary.run(["bundle", "fetch", "-o", "-"], environment: env)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.text, Self.expectedSDKFile)
        XCTAssertTrue(result.stderr.hasPrefix("stdout: bundle_version 42"), result.stderr)
        XCTAssertFalse(result.stderr.contains(Self.key))
    }

    func testUpToDateSkipsTheDownloadAndLeavesTheFile() throws {
        try writeOldFile()
        let server = try LoopbackHTTPServer(Self.routes(version: 41) { _ in .init(json: Self.apiBundle()) })
        let result = try fetch(server)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("up to date (bundle_version 41)"), result.stderr)
        XCTAssertEqual(server.requests.map(\.path), ["/api/v1/sdk/config-bundle/version"])
        XCTAssertEqual(server.requests.first?.header("x-api-key"), Self.key)
        try assertUntouched()
    }

    func testNewerVersionOrForceDownloads() throws {
        try writeOldFile()
        let server = try LoopbackHTTPServer(Self.routes(version: 42) { _ in .init(json: Self.apiBundle()) })
        XCTAssertEqual(try fetch(server).status, 0)
        XCTAssertEqual(server.requests.map(\.path), ["/api/v1/sdk/config-bundle/version", "/api/v1/sdk/config-bundle"])
        XCTAssertEqual(String(decoding: try Data(contentsOf: URL(fileURLWithPath: output)), as: UTF8.self), Self.expectedSDKFile)
        XCTAssertEqual(try fetch(server, ["--force"]).status, 0)
        XCTAssertEqual(server.requests.count, 3, "--force skips the version check")
    }

    func testServerErrorThenOKIsRetriedAndWritten() throws {
        try writeOldFile()
        let server = try LoopbackHTTPServer(Self.routes { index in index == 0 ? .init(status: 500) : .init(json: Self.apiBundle()) })
        let result = try fetch(server, ["--force"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(bundleRequests(server).count, 2)
        // The binary really waits (at least the back-off's 0.75 s); the exact waits are
        // checked on the virtual clock (BundleFetchInProcessTests), not by timing them here.
        let gap = bundleRequests(server)[1].receivedAt - bundleRequests(server)[0].receivedAt
        XCTAssertGreaterThan(gap, 0.7, "backoff 1 s ± 25 %")
        XCTAssertEqual(String(decoding: try Data(contentsOf: URL(fileURLWithPath: output)), as: UTF8.self), Self.expectedSDKFile)
    }

    func testRetryAfterIsHonoured() throws {
        let server = try LoopbackHTTPServer(Self.routes { index in
            index == 0 ? .init(status: 503, headers: [("Retry-After", "2")]) : .init(json: Self.apiBundle())
        })
        let result = try fetch(server, ["--force"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let gap = bundleRequests(server)[1].receivedAt - bundleRequests(server)[0].receivedAt
        XCTAssertGreaterThan(gap, 1.9, "Retry-After: 2 (not the 1 s backoff)")
    }

    // MARK: - failures: the old file stays

    func testRetryAfterBeyondTheBudgetFailsAt75AtOnce() throws {
        try writeOldFile()
        let server = try LoopbackHTTPServer(Self.routes { _ in .init(status: 429, headers: [("Retry-After", "100000")]) })
        // That it fails without waiting is checked on the virtual clock (BundleFetchInProcessTests).
        let result = try fetch(server, ["--force", "--timeout", "10"])
        XCTAssertEqual(result.status, 75, result.stderr)
        XCTAssertEqual(bundleRequests(server).count, 1)
        XCTAssertTrue(result.stderr.contains("429"), result.stderr)
        try assertUntouched()
    }

    func testServiceUnavailableAfterRetriesIs75() throws {
        try writeOldFile()
        let server = try LoopbackHTTPServer(Self.routes { _ in .init(status: 503, headers: [("Retry-After", "0")]) })
        let result = try fetch(server, ["--force", "--retries", "2"])
        XCTAssertEqual(result.status, 75, result.stderr)
        XCTAssertEqual(bundleRequests(server).count, 3)
        XCTAssertTrue(result.stderr.contains("after 3 attempts"), result.stderr)
        try assertUntouched()
    }

    func testUnauthorizedWithChallengeIs77AndNotRetried() throws {
        try writeOldFile()
        let server = try LoopbackHTTPServer { _, _ in
            .init(status: 401, headers: [("WWW-Authenticate", #"ApiKey realm="appdna", error="invalid_key""#)], json: #"{"error":"invalid api key"}"#)
        }
        let result = try fetch(server)
        XCTAssertEqual(result.status, 77, result.stderr)
        XCTAssertEqual(server.requests.count, 1, "401 is never retried")
        XCTAssertTrue(result.stderr.contains("WWW-Authenticate"), result.stderr)
        try assertUntouched()
        let forced = try fetch(server, ["--force"])
        XCTAssertEqual(forced.status, 77)
        try assertUntouched()
    }

    func testForbiddenIs77() throws {
        try writeOldFile()
        let server = try LoopbackHTTPServer { _, _ in .init(status: 403) }
        XCTAssertEqual(try fetch(server, ["--force"]).status, 77)
        XCTAssertEqual(server.requests.count, 1)
        try assertUntouched()
    }

    func testConnectionRefusedIs69() throws {
        try writeOldFile()
        let server = try LoopbackHTTPServer { _, _ in .init() }
        let url = server.baseURL
        server.stop()
        let result = try fetch(nil, ["--retries", "1"], url: url)
        XCTAssertEqual(result.status, 69, result.stderr)
        XCTAssertTrue(result.stderr.contains("127.0.0.1"), result.stderr)
        try assertUntouched()
    }

    func testNeverAnsweringIs75WithinTheTimeout() throws {
        try writeOldFile()
        let server = try LoopbackHTTPServer { _, _ in .hang }
        defer { server.stop() }
        // It waits the whole --timeout, and no longer: the second half is checked on the
        // virtual clock (BundleFetchInProcessTests), where a loaded machine cannot move it.
        let (result, elapsed) = try timed { try fetch(server, ["--timeout", "2"]) }
        XCTAssertEqual(result.status, 75, result.stderr)
        XCTAssertGreaterThan(elapsed, 1.9)
        try assertUntouched()
        let forced = try fetch(server, ["--timeout", "1.5", "--force"])
        XCTAssertEqual(forced.status, 75, forced.stderr)
        try assertUntouched()
    }

    func testBodyCutOffIsNotWritten() throws {
        try writeOldFile()
        let server = try LoopbackHTTPServer(Self.routes { _ in
            var reply = LoopbackHTTPServer.Reply(json: Self.apiBundle())
            reply.cutOffAfter = 100
            return reply
        })
        let result = try fetch(server, ["--force", "--retries", "1"])
        XCTAssertEqual(result.status, 69, result.stderr)
        XCTAssertEqual(bundleRequests(server).count, 2, "retried once")
        try assertUntouched()
    }

    func testHTMLBodyIsNotWritten() throws {
        try writeOldFile()
        let server = try LoopbackHTTPServer(Self.routes { _ in
            .init(headers: [("Content-Type", "text/html")], body: Array("<html><body>Please log in to the Wi-Fi</body></html>".utf8))
        })
        let result = try fetch(server, ["--force"])
        XCTAssertEqual(result.status, 69, result.stderr)
        XCTAssertTrue(result.stderr.contains("not JSON") && result.stderr.contains("text/html"), result.stderr)
        try assertUntouched()
    }

    func testInvalidBundleIsNotWrittenUnlessNoValidate() throws {
        try writeOldFile()
        let server = try LoopbackHTTPServer(Self.routes { _ in .init(json: Self.apiBundle(weights: (0.5, 0.4))) })
        let result = try fetch(server, ["--force"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("/content/experiments/exp_paywall_v3/variants: weights of \"exp_paywall_v3\" sum to 0.9, not 1 [E014]"), result.stderr)
        try assertUntouched()
        let forced = try fetch(server, ["--force", "--no-validate"])
        XCTAssertEqual(forced.status, 0, forced.stderr)
        XCTAssertNotEqual(try Data(contentsOf: URL(fileURLWithPath: output)), Data(Self.oldFile))
    }

    /// As `bundle validate` says: a missing bundle_version is a warning, not an error.
    func testBundleWithoutVersionIsWrittenWithAWarning() throws {
        try writeOldFile()
        let server = try LoopbackHTTPServer(Self.routes { _ in .init(json: #"{"content": {"experiments": {}}}"#) })
        let result = try fetch(server, ["--force"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("appdna: warning: response:1:1: bundle_version is missing"), result.stderr)
        XCTAssertFalse(result.stderr.contains("W006"), "the content wrapper is what fetch fixes: no warning for it")
    }

    func testBundleVersionThatIsNotAnIntegerIsAnError() throws {
        try writeOldFile()
        let server = try LoopbackHTTPServer(Self.routes { _ in .init(json: #"{"bundle_version": 1.5, "content": {"experiments": {}}}"#) })
        let result = try fetch(server, ["--force"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("[E005]"), result.stderr)
        try assertUntouched()
    }

    func testSlowTrickleOverTheTimeoutIs75() throws {
        try writeOldFile()
        let server = try LoopbackHTTPServer(Self.routes { _ in
            var reply = LoopbackHTTPServer.Reply(json: Self.apiBundle())
            reply.trickle = (bytes: 8, interval: 0.1)
            return reply
        })
        defer { server.stop() }
        // The trickle would take about 6 s: 75 is the timeout cutting it.
        let result = try fetch(server, ["--force", "--timeout", "1.5"])
        XCTAssertEqual(result.status, 75, result.stderr)
        try assertUntouched()
    }

    func testMinVersion() throws {
        try writeOldFile()
        let server = try LoopbackHTTPServer(Self.routes(version: 42) { _ in .init(json: Self.apiBundle()) })
        let result = try fetch(server, ["--min-version", "50"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("older than --min-version 50"), result.stderr)
        try assertUntouched()
        let forced = try fetch(server, ["--min-version", "50", "--force"])
        XCTAssertEqual(forced.status, 1, forced.stderr)
        try assertUntouched()
        XCTAssertEqual(try fetch(server, ["--min-version", "42"]).status, 0)
    }

    func testOutputDirectoryMissingIs73() throws {
        let server = try LoopbackHTTPServer(Self.routes { _ in .init(json: Self.apiBundle()) })
        var env: [String: String] = ["APPDNA_SDK_KEY": Self.key, "APPDNA_API_URL": server.baseURL]
        env["PATH"] = "/usr/bin:/bin"
        let target = directory.appendingPathComponent("missing/appdna-config.json").path
        let result = try Binary.run(["bundle", "fetch", "-o", target], environment: env)
        XCTAssertEqual(result.status, 73, result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [])
    }

    func testCrossHostRedirectIsRefused() throws {
        try writeOldFile()
        let server = try LoopbackHTTPServer { _, _ in .init(status: 302, headers: [("Location", "http://127.0.0.2:9/steal")]) }
        let result = try fetch(server, ["--force"])
        XCTAssertEqual(result.status, 69, result.stderr)
        XCTAssertTrue(result.stderr.contains("another host"), result.stderr)
        try assertUntouched()
    }

    func testHTTPProxyVariableIsHonoured() throws {
        // Plain http goes only to loopback hosts (HTTPURL.checkedForAPI), and a loopback
        // destination bypasses the proxy (CurlTransport); so the proxy carries https: the
        // loopback server plays the proxy and refuses the tunnel. The API host, a name that
        // resolves nowhere, is never contacted directly, and the key stays inside the tunnel.
        let proxy = try LoopbackHTTPServer { _, _ in .init(status: 502) }
        let api = "https://api.appdna-proxied.invalid"
        let tunnelled = try fetch(nil, ["--retries", "0"], environment: ["https_proxy": proxy.baseURL], url: api)
        XCTAssertEqual(tunnelled.status, 69, tunnelled.stderr)
        XCTAssertEqual(proxy.requests.first?.method, "CONNECT")
        XCTAssertEqual(proxy.requests.first?.path, "api.appdna-proxied.invalid:443")
        XCTAssertNil(proxy.requests.first?.header("x-api-key"), "the key was shown to the proxy")
        XCTAssertFalse(tunnelled.stderr.contains(Self.key), tunnelled.stderr)
        let bypassed = try fetch(nil, ["--retries", "0"], environment: ["https_proxy": proxy.baseURL, "no_proxy": "api.appdna-proxied.invalid"],
                                 url: api)
        XCTAssertEqual(bypassed.status, 69, "no_proxy: resolved directly, and the name resolves nowhere")
        XCTAssertEqual(proxy.requests.count, 1)
        let loopback = try fetch(nil, ["--retries", "0"], environment: ["http_proxy": proxy.baseURL], url: "http://127.0.0.2:9")
        XCTAssertEqual(loopback.status, 69, "a loopback API host is reached directly, and nothing listens there")
        XCTAssertEqual(proxy.requests.count, 1, "a loopback destination went through http_proxy")
    }

    // MARK: - configuration (78) before any request

    func testKeyRules() throws {
        try writeOldFile()
        let server = try LoopbackHTTPServer(Self.routes { _ in .init(json: Self.apiBundle()) })
        let missing = try fetch(server, key: nil)
        XCTAssertEqual(missing.status, 78, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("APPDNA_SDK_KEY"), missing.stderr)
        let wrong = try fetch(server, key: "sk_live_0123456789abcdef")
        XCTAssertEqual(wrong.status, 78, wrong.stderr)
        XCTAssertFalse(wrong.stderr.contains("sk_live_0123456789abcdef"))
        let live = try fetch(server, ["--require-live"], key: Self.testKey)
        XCTAssertEqual(live.status, 78, live.stderr)
        XCTAssertTrue(live.stderr.contains("adn_test_…7c1b"), live.stderr)
        let plain = try fetch(server, url: "http://api.appdna.ai")
        XCTAssertEqual(plain.status, 78, plain.stderr)
        XCTAssertEqual(server.requests.count, 0, "nothing is sent before the configuration is right")
        try assertUntouched()
    }

    func testKeyFileAndReleaseWarning() throws {
        let server = try LoopbackHTTPServer(Self.routes { _ in .init(json: Self.apiBundle()) })
        let keyFile = directory.appendingPathComponent("key.txt")
        try Data((Self.testKey + "\n").utf8).write(to: keyFile)
        let result = try fetch(server, ["--key-file", keyFile.path], key: nil, environment: ["CONFIGURATION": "Release"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(server.requests.first?.header("x-api-key"), Self.testKey)
        let warning = try XCTUnwrap(result.stderrLines.first)
        XCTAssertTrue(warning.hasPrefix("warning: "), "Xcode's issue format: \(warning)")
        XCTAssertTrue(warning.contains("adn_test_…7c1b"), String(warning))
        let debug = try fetch(server, ["--key-file", keyFile.path, "--force"], key: nil, environment: ["CONFIGURATION": "Debug"])
        XCTAssertFalse(debug.stderr.contains("warning"), debug.stderr)
    }
}
