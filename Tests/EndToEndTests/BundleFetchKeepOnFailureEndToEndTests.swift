import Foundation
import XCTest
import LoopbackHTTPServer

/// `appdna bundle fetch --keep-on-failure`: every way the API can be unreachable keeps a valid
/// file byte for byte with exactly one warning in the CI's format; every other failure (a
/// rejected key, an invalid bundle, no usable file to keep) still fails.
final class BundleFetchKeepOnFailureEndToEndTests: XCTestCase {
    static let key = "adn_live_KEEPsecretKEY0123456789zz3f9a"
    static let kept = FakeBundleAPI.bundleFile(version: 41)
    var directory: URL!
    var output: String { directory.appendingPathComponent("appdna-config.json").path }

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-keep-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Self.kept.write(to: URL(fileURLWithPath: output))
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func fetch(_ url: String, _ extra: [String], githubActions: Bool = false) throws -> Binary.Result {
        var environment = ["APPDNA_SDK_KEY": Self.key, "APPDNA_API_URL": url]
        if githubActions { environment["GITHUB_ACTIONS"] = "true" }
        let result = try Binary.run(["bundle", "fetch", "-o", output] + extra, environment: environment)
        XCTAssertFalse(result.stderr.contains(Self.key) || result.text.contains(Self.key), "the key was printed")
        return result
    }

    func assertFileUntouched(file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: output)), Self.kept, "the file changed", file: file, line: line)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["appdna-config.json"],
                       "a temporary file was left", file: file, line: line)
    }

    /// Runs one unreachable case with and without the flag, in both CI flavours, and returns the
    /// failure text the warning carried (after the fixed prefix).
    func assertKept(_ url: String, _ extra: [String], expectedStatusWithoutFlag: Int32,
                    file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let plain = try fetch(url, extra)
        XCTAssertEqual(plain.status, expectedStatusWithoutFlag, "without the flag: " + plain.stderr, file: file, line: line)
        XCTAssertTrue(plain.stderr.hasPrefix("appdna: "), plain.stderr, file: file, line: line)
        try assertFileUntouched(file: file, line: line)

        let xcode = try fetch(url, extra + ["--keep-on-failure"])
        XCTAssertEqual(xcode.status, 0, xcode.stderr, file: file, line: line)
        XCTAssertEqual(xcode.text, "", file: file, line: line)
        let prefix = "warning: appdna bundle fetch: kept \(output) (bundle_version 41): "
        XCTAssertEqual(xcode.stderrLines.count, 1, xcode.stderr, file: file, line: line)
        XCTAssertTrue(xcode.stderr.hasPrefix(prefix) && xcode.stderr.hasSuffix("\n"), xcode.stderr, file: file, line: line)
        try assertFileUntouched(file: file, line: line)

        let github = try fetch(url, extra + ["--keep-on-failure"], githubActions: true)
        XCTAssertEqual(github.status, 0, github.stderr, file: file, line: line)
        XCTAssertEqual(github.stderrLines.count, 1, github.stderr, file: file, line: line)
        XCTAssertTrue(github.stderr.hasPrefix("::warning file=\(output)::appdna bundle fetch: kept \(output) (bundle_version 41): "), github.stderr, file: file, line: line)
        try assertFileUntouched(file: file, line: line)
        return String(xcode.stderr.dropFirst(prefix.count).dropLast())
    }

    func testRefusedConnectionKeepsTheFile() throws {
        let reason = try assertKept(FakeBundleAPI.refusedURL, ["--retries", "1"], expectedStatusWithoutFlag: 69)
        XCTAssertTrue(reason.hasPrefix("cannot reach 127.0.0.1:9: "), reason)
    }

    func testServerErrorsKeepTheFile() throws {
        // One status with a retry (the wait costs a second per run), the others without.
        for (status, retries) in [(500, 1), (502, 0), (503, 0)] {
            let server = try FakeBundleAPI.failing(.init(status: status))
            let expected: Int32 = status == 503 ? 75 : 69
            let reason = try assertKept(server.baseURL, ["--retries", String(retries)], expectedStatusWithoutFlag: expected)
            // How many attempts the message counts depends on how the version check and the
            // download share --retries; what failed and how is fixed.
            // The failure may be the version check's (…/config-bundle/version) or the download's.
            XCTAssertTrue(reason.hasPrefix("GET \(server.baseURL)/api/v1/sdk/config-bundle"), reason)
            XCTAssertTrue(reason.contains(": HTTP \(status) \(LoopbackHTTPServer.reasonPhrase(status))"), reason)
        }
    }

    func testTimeoutKeepsTheFile() throws {
        let server = try FakeBundleAPI.failing(.hang)
        defer { server.stop() }
        let reason = try assertKept(server.baseURL, ["--timeout", "0.5", "--retries", "0"], expectedStatusWithoutFlag: 75)
        XCTAssertTrue(reason.contains("no complete answer within the 0.5 s timeout"), reason)
    }

    func testRejectedKeyAndInvalidBundleAreNotKept() throws {
        for status in [401, 403] {
            let server = try FakeBundleAPI.failing(.init(status: status))
            let result = try fetch(server.baseURL, ["--keep-on-failure"])
            XCTAssertEqual(result.status, 77, result.stderr)
            XCTAssertFalse(result.stderr.contains("warning"), result.stderr)
            XCTAssertEqual(server.requests.count, 1, "401/403 are never retried")
            try assertFileUntouched()
        }
        let invalid = try LoopbackHTTPServer { request, _ in
            request.path.hasSuffix("/version")
                ? .init(json: #"{"bundle_version": 42}"#)
                : .init(json: BundleFetchEndToEndTests.apiBundle(version: 42, weights: (0.5, 0.4)))
        }
        let result = try fetch(invalid.baseURL, ["--keep-on-failure"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertFalse(result.stderr.contains("warning: appdna bundle fetch: kept"), result.stderr)
        try assertFileUntouched()
    }

    func testNothingValidToKeepStillFails() throws {
        // An invalid file is not kept: the build must not go on with it.
        let broken = Data("{\"bundle_version\": 41,".utf8)
        try broken.write(to: URL(fileURLWithPath: output))
        let result = try fetch(FakeBundleAPI.refusedURL, ["--keep-on-failure", "--retries", "0"])
        XCTAssertEqual(result.status, 69, result.stderr)
        XCTAssertTrue(result.stderrLines.last?.hasPrefix("hint: --keep-on-failure had nothing to keep: \(output) is invalid (not JSON: line 1, column 23: ") == true, result.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: output)), broken)

        // No file at all (issue 44: the failure used to read exactly as without the flag).
        try FileManager.default.removeItem(atPath: output)
        let missing = try fetch(FakeBundleAPI.refusedURL, ["--keep-on-failure", "--retries", "0"])
        XCTAssertEqual(missing.status, 69, missing.stderr)
        XCTAssertEqual(missing.stderrLines.last, "hint: --keep-on-failure had nothing to keep: \(output) does not exist yet (the first fetch has to reach the API)", missing.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
    }

    func testTheFlagChangesNothingWhenTheAPIAnswers() throws {
        let server = try FakeBundleAPI.serving(version: 42)
        let result = try fetch(server.baseURL, ["--keep-on-failure"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(result.stderr.contains("warning"), result.stderr)
        XCTAssertTrue(String(decoding: try Data(contentsOf: URL(fileURLWithPath: output)), as: UTF8.self).contains("\"bundle_version\": 42"))
    }
}
