import Foundation
import XCTest
import LoopbackHTTPServer
import TestSupport

/// `appdna bundle fetch --check` against the loopback API: one request to the version
/// endpoint, an answer on stdout, and the file never touched.
final class BundleFetchCheckEndToEndTests: XCTestCase {
    static let key = "adn_live_CHECKsecretKEY0123456789zz3f9a"
    var directory: URL!
    var output: String { directory.appendingPathComponent("appdna-config.json").path }

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func check(_ server: LoopbackHTTPServer, _ extra: [String] = []) throws -> Binary.Result {
        let result = try Binary.run(["bundle", "fetch", "--check", "-o", output] + extra,
                                    environment: ["APPDNA_SDK_KEY": Self.key, "APPDNA_API_URL": server.baseURL])
        XCTAssertFalse(result.stderr.contains(Self.key) || result.text.contains(Self.key), "the key was printed")
        return result
    }

    /// Only GET …/version was asked, once.
    func assertOnlyVersionRequested(_ server: LoopbackHTTPServer, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(server.requests.map { "\($0.method) \($0.path)" }, ["GET /api/v1/sdk/config-bundle/version"], file: file, line: line)
    }

    func testUpToDateExitsZeroAndLeavesTheFileAlone() throws {
        let bytes = FakeBundleAPI.bundleFile(version: 42)
        try bytes.write(to: URL(fileURLWithPath: output))
        let server = try FakeBundleAPI.serving(version: 42)
        let result = try check(server)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.text, "up to date (bundle_version 42)\n")
        XCTAssertEqual(result.stderr, "")
        assertOnlyVersionRequested(server)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: output)), bytes)
    }

    func testBehindExitsOneNamingBothVersions() throws {
        let bytes = FakeBundleAPI.bundleFile(version: 41)
        try bytes.write(to: URL(fileURLWithPath: output))
        let server = try FakeBundleAPI.serving(version: 42)
        let result = try check(server)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(result.text, "behind: file bundle_version 41, live bundle_version 42\n")
        XCTAssertTrue(result.stderr.hasPrefix("appdna: "), result.stderr)
        assertOnlyVersionRequested(server)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: output)), bytes)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["appdna-config.json"])
    }

    func testMissingFileIsBehindAndIsNotCreated() throws {
        let server = try FakeBundleAPI.serving(version: 42)
        let result = try check(server)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(result.text, "behind: file missing, live bundle_version 42\n")
        assertOnlyVersionRequested(server)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
    }

    func testInvalidFileIsBehindAndSaysWhy() throws {
        let notJSON = Data("<html>captive portal</html>\n".utf8)
        try notJSON.write(to: URL(fileURLWithPath: output))
        let server = try FakeBundleAPI.serving(version: 42)
        let result = try check(server)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.text.hasPrefix("behind: file invalid (not JSON: "), result.text)
        XCTAssertTrue(result.text.hasSuffix("), live bundle_version 42\n"), result.text)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: output)), notJSON)

        // Valid JSON that breaks a bundle rule (weights summing to 0.9) is not a usable bundle either.
        let badWeights = Data(#"{"bundle_version": 42, "experiments": {"e": {"status": "running", "variants": [{"id": "a", "weight": 0.9}]}}}"#.utf8)
        try badWeights.write(to: URL(fileURLWithPath: output))
        let again = try check(server)
        XCTAssertEqual(again.status, 1, again.stderr)
        XCTAssertTrue(again.text.hasPrefix("behind: file invalid (1 validation error"), again.text)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: output)), badWeights)
    }

    /// 34.8: the JSON's `file` names the version as its schema (and the text) do,
    /// `bundle_version 41`, not a bare "41" that reads like a count.
    func testTheJSONNamesTheFilesVersionAsTheTextDoes() throws {
        try FakeBundleAPI.bundleFile(version: 41).write(to: URL(fileURLWithPath: output))
        let server = try FakeBundleAPI.serving(version: 42)
        let result = try check(server, ["--json"])
        XCTAssertEqual(result.status, 1, result.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        XCTAssertEqual(report["file"] as? String, "bundle_version 41")
        XCTAssertEqual(report["file_version"] as? Int, 41)
        XCTAssertEqual(report["live_version"] as? Int, 42)
        XCTAssertEqual(report["up_to_date"] as? Bool, false)
        XCTAssertTrue(result.stderr.contains("is not the live bundle (bundle_version 42)"), result.stderr)
    }

    /// 34.2/34.8: the fetch that --check names is runnable as printed — into a directory whose
    /// name needs quoting, with the key file and bounds given to --check — and afterwards the
    /// file is up to date (it used to print `appdna bundle fetch -o PATH updates it`, unquoted
    /// and without the flags).
    func testTheFetchItNamesRunsAsPrintedAndThenTheFileIsUpToDate() throws {
        let directory = self.directory.appendingPathComponent("it's app").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let output = directory + "/appdna-config.json"
        let keyFile = self.directory.appendingPathComponent("key file.txt").path
        try Data((Self.key + "\n").utf8).write(to: URL(fileURLWithPath: keyFile))
        try FakeBundleAPI.bundleFile(version: 41).write(to: URL(fileURLWithPath: output))
        let server = try FakeBundleAPI.serving(version: 42)
        let environment = ["APPDNA_API_URL": server.baseURL]
        let check = ["bundle", "fetch", "--check", "--key-file", keyFile, "--timeout", "20s", "-o", output]

        let behind = try Binary.run(check, environment: environment)
        XCTAssertEqual(behind.status, 1, behind.stderr)
        guard let range = behind.stderr.range(of: "is not the live bundle (bundle_version 42); run ") else {
            return XCTFail("no fetch named: \(behind.stderr)")
        }
        let hint = String(behind.stderr[range.upperBound...].prefix { $0 != "\n" })
        XCTAssertEqual(hint, "appdna bundle fetch --key-file '\(keyFile)' --timeout 20s -o '\(directory.replacingOccurrences(of: "'", with: "'\\''"))/appdna-config.json'")
        let shell = environment.merging(["PATH": Binary.url.deletingLastPathComponent().path + ":/usr/bin:/bin"]) { $1 }
        let ran = try ProcessRunner.run("/bin/sh", ["-c", hint], environment: shell)
        XCTAssertEqual(ran.status, 0, hint + "\n" + ran.stderr)
        let after = try Binary.run(check, environment: environment)
        XCTAssertEqual(after.status, 0, after.stderr)
        XCTAssertEqual(after.text, "up to date (bundle_version 42)\n")
    }

    func testAFileNewerThanTheLiveBundleIsNotUpToDate() throws {
        try FakeBundleAPI.bundleFile(version: 43).write(to: URL(fileURLWithPath: output))
        let server = try FakeBundleAPI.serving(version: 42)
        let result = try check(server)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(result.text, "behind: file bundle_version 43, live bundle_version 42\n")
        assertOnlyVersionRequested(server)
    }

    func testFailuresOfTheVersionRequestAreErrorsNotAnswers() throws {
        try FakeBundleAPI.bundleFile(version: 42).write(to: URL(fileURLWithPath: output))
        let rejected = try FakeBundleAPI.failing(.init(status: 401))
        let denied = try check(rejected)
        XCTAssertEqual(denied.status, 77, denied.stderr)
        XCTAssertEqual(denied.text, "")
        XCTAssertEqual(rejected.requests.count, 1)

        let down = try Binary.run(["bundle", "fetch", "--check", "--retries", "0", "-o", output],
                                  environment: ["APPDNA_SDK_KEY": Self.key, "APPDNA_API_URL": FakeBundleAPI.refusedURL])
        XCTAssertEqual(down.status, 69, down.stderr)
        XCTAssertTrue(down.stderr.hasPrefix("appdna: cannot reach 127.0.0.1:9"), down.stderr)
    }

    func testCheckRefusesStdoutAndFlagsThatDownload() throws {
        let server = try FakeBundleAPI.serving(version: 42)
        for extra in [["-o", "-"], ["--force"], ["--keep-on-failure"], ["--raw"]] {
            let result = try Binary.run(["bundle", "fetch", "--check"] + extra,
                                        environment: ["APPDNA_SDK_KEY": Self.key, "APPDNA_API_URL": server.baseURL])
            XCTAssertEqual(result.status, 64, "\(extra): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("appdna: \(extra[0] == "-o" ? "-o -" : extra[0]) does not go with --check; "), result.stderr)
        }
        XCTAssertEqual(server.requests.count, 0)
    }
}
