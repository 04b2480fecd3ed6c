import Foundation
import XCTest
@testable import AppDNACLI
import AppDNACore
import AppDNANet
import TestSupport

/// `bundle fetch` and `bundle diff @remote` run in-process against a scripted API and a virtual
/// clock: every fault of the end-to-end tests (which stay as smoke tests over real sockets),
/// with the back-off and Retry-After waits checked as recorded waits, never slept.
final class BundleFetchInProcessTests: XCTestCase {
    static let key = "adn_live_E2EsecretKEY0123456789zz3f9a"
    static let oldFile = Array("{\n  \"bundle_version\": 41,\n  \"experiments\": {}\n}\n".utf8)
    static let bundlePath = AppDNAAPI.bundlePath, versionPath = AppDNAAPI.bundleVersionPath

    var scratch: ScratchDirectory!
    var output: String { scratch.path + "/appdna-config.json" }
    let clock = VirtualClock()

    override func setUpWithError() throws { scratch = try ScratchDirectory("appdna-fetch-inprocess") }
    override func tearDown() { scratch.remove() }

    // MARK: - helpers

    /// The API: the version endpoint says `version`, the bundle endpoint answers `bundle(index)`.
    func api(version: Int = 42, _ bundle: @escaping @Sendable (Int) -> ScriptedBundleAPI.Reply = { _ in .answer(200, body: BundleFixtures.apiBundle()) }) -> ScriptedBundleAPI {
        ScriptedBundleAPI(clock: clock) { path, index in
            switch path {
            case Self.versionPath: return .answer(200, body: #"{"bundle_version": \#(version)}"#)
            case Self.bundlePath: return bundle(index)
            default: return .answer(404)
            }
        }
    }

    func run(_ api: ScriptedBundleAPI, _ arguments: [String], environment: [String: String] = [:],
             file: StaticString = #filePath, line: UInt = #line) -> CapturedRun {
        var env = environment
        env["APPDNA_SDK_KEY"] = Self.key
        env["APPDNA_API_URL"] = "http://127.0.0.1:9"
        let result = runCLI(arguments, environment: env, transport: api, clock: clock)
        XCTAssertFalse(result.stderr.contains(Self.key) || result.stdout.contains(Self.key), "the key leaked", file: file, line: line)
        XCTAssertTrue(api.keys.allSatisfy { $0 == Self.key }, "a request without the key", file: file, line: line)
        if result.status != 0 {
            XCTAssertTrue(result.stderr.contains("appdna: "), "no appdna: line: \(result.stderr)", file: file, line: line)
        }
        return result
    }

    func fetch(_ api: ScriptedBundleAPI, _ arguments: [String] = [], environment: [String: String] = [:],
               file: StaticString = #filePath, line: UInt = #line) -> CapturedRun {
        run(api, ["bundle", "fetch", "-o", output] + arguments, environment: environment, file: file, line: line)
    }

    func writeOldFile() throws { try Data(Self.oldFile).write(to: URL(fileURLWithPath: output)) }

    var written: String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }

    /// The old file is byte-for-byte as it was and nothing else is in its directory.
    func assertUntouched(file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: output)), Data(Self.oldFile), "the old file changed", file: file, line: line)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch.path), ["appdna-config.json"],
                       "a temporary file was left", file: file, line: line)
    }

    // MARK: - success

    func testAPIShapeIsWrittenInTheSDKShape() throws {
        let api = api()
        let result = fetch(api)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(written, BundleFixtures.expectedSDKFile)
        XCTAssertEqual(api.paths, [Self.bundlePath], "no file: no version check")
        XCTAssertEqual(clock.sleeps, [])
    }

    func testSDKShapeIsKeptAndRawWritesTheResponseBytes() {
        let api = api(version: 6) { _ in .answer(200, body: BundleFixtures.sdkBundle) }
        let result = fetch(api)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(written.hasPrefix("{\n  \"bundle_version\": 7,\n  \"experiments\": {\n    \"experiments\": {"), written)
        XCTAssertTrue(result.stderr.contains("1 experiment, 2 flags"), result.stderr)
        XCTAssertEqual(fetch(api, ["--raw", "--force"]).status, 0)
        XCTAssertEqual(written, BundleFixtures.sdkBundle)
    }

    func testUnchangedVersionIsUpToDateAndNotDownloaded() throws {
        try writeOldFile()
        let api = api(version: 41)
        let result = fetch(api)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("up to date (bundle_version 41)"), result.stderr)
        XCTAssertEqual(api.paths, [Self.versionPath])
        assertUntouched()
    }

    func testServerErrorThenOKIsRetriedAfterTheBackOff() throws {
        try writeOldFile()
        let api = api { index in index == 0 ? .answer(500) : .answer(200, body: BundleFixtures.apiBundle()) }
        let result = fetch(api, ["--force", "--verbose"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(api.paths, [Self.bundlePath, Self.bundlePath])
        XCTAssertEqual(clock.sleeps.count, 1)
        XCTAssertEqual(clock.sleeps[0], 1, accuracy: 0.25, "back-off 1 s ± 25 %")
        XCTAssertTrue(result.stderr.contains("attempt 1 failed (HTTP 500"), result.stderr)
        XCTAssertEqual(written, BundleFixtures.expectedSDKFile)
    }

    func testRetryAfterIsHonouredAndCappedAt120Seconds() {
        for (status, header, wait) in [(503, "2", 2.0), (429, "7", 7.0), (503, "100000", 120.0)] {
            let clock = VirtualClock()
            let api = ScriptedBundleAPI(clock: clock) { _, index in
                index == 0 ? .answer(status, headers: [("Retry-After", header)]) : .answer(200, body: BundleFixtures.apiBundle())
            }
            let result = runCLI(["bundle", "fetch", "--force", "--timeout", "300", "-o", output],
                                environment: ["APPDNA_SDK_KEY": Self.key, "APPDNA_API_URL": "http://127.0.0.1:9"],
                                transport: api, clock: clock)
            XCTAssertEqual(result.status, 0, "\(status) Retry-After \(header): \(result.stderr)")
            XCTAssertEqual(clock.sleeps, [wait], "\(status) Retry-After \(header)")
        }
    }

    // MARK: - failures: the old file stays

    func testAnUnreadableKeyFileIsAConfigurationError() {
        let api = api()
        let result = fetch(api, ["--key-file", scratch.path + "/no-such-key.txt"])
        XCTAssertEqual(result.status, 78, result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix("appdna: cannot read the API key: "), result.stderr)
        XCTAssertTrue(result.stderr.contains("--key-file takes the path of a file that holds only the key"), result.stderr)
        XCTAssertEqual(api.paths, [], "nothing is sent without a key")
    }

    func testRetryAfterBeyondTheTimeoutFailsAt75AtOnce() throws {
        try writeOldFile()
        let api = api { _ in .answer(429, headers: [("Retry-After", "100000")]) }
        let result = fetch(api, ["--force", "--timeout", "10"])
        XCTAssertEqual(result.status, 75, result.stderr)
        XCTAssertTrue(result.stderr.contains("429"), result.stderr)
        XCTAssertEqual(api.paths.count, 1)
        XCTAssertEqual(clock.sleeps, [], "no wait that cannot end within --timeout")
        assertUntouched()
    }

    func testRetriesExhaustedCountTheAttempts() throws {
        try writeOldFile()
        for (status, expected) in [(503, Int32(75)), (429, 75), (500, 69), (502, 69)] {
            let api = api { _ in .answer(status, headers: [("Retry-After", "0")]) }
            let result = fetch(api, ["--force", "--retries", "2"])
            XCTAssertEqual(result.status, expected, "\(status): \(result.stderr)")
            XCTAssertEqual(api.paths.count, 3, "\(status)")
            XCTAssertTrue(result.stderr.contains("HTTP \(status)") && result.stderr.contains("after 3 attempts"), result.stderr)
            assertUntouched()
        }
    }

    func testOneRetryBudgetForVersionCheckAndDownload() throws {
        try writeOldFile()
        let api = ScriptedBundleAPI(clock: clock) { _, _ in .answer(500) }
        let result = fetch(api, ["--retries", "2"])
        XCTAssertEqual(result.status, 69, result.stderr)
        XCTAssertEqual(api.paths.count, 3, "--retries 2: at most 3 requests for the whole command")
        assertUntouched()
    }

    func testUnauthorizedAndForbiddenAre77AtOnce() throws {
        try writeOldFile()
        for status in [401, 403] {
            for extra in [[], ["--force"]] {
                let api = ScriptedBundleAPI(clock: clock) { _, _ in
                    .answer(status, headers: [("WWW-Authenticate", #"ApiKey realm="appdna""#)], body: #"{"error":"invalid api key"}"#)
                }
                let result = fetch(api, extra)
                XCTAssertEqual(result.status, 77, result.stderr)
                XCTAssertEqual(api.paths.count, 1, "\(status) is never retried")
                assertUntouched()
            }
        }
        XCTAssertEqual(clock.sleeps, [])
    }

    func testNetworkErrorsAre69AfterTheRetries() throws {
        try writeOldFile()
        for (reply, words) in [(ScriptedBundleAPI.Reply.refuseConnection, "cannot reach 127.0.0.1:9"),
                               (.unknownHost, "cannot resolve host 127.0.0.1")] {
            let clock = VirtualClock()
            let api = ScriptedBundleAPI(clock: clock) { _, _ in reply }
            let result = runCLI(["bundle", "fetch", "--force", "--retries", "1", "-o", output],
                                environment: ["APPDNA_SDK_KEY": Self.key, "APPDNA_API_URL": "http://127.0.0.1:9"],
                                transport: api, clock: clock)
            XCTAssertEqual(result.status, 69, result.stderr)
            XCTAssertTrue(result.stderr.hasPrefix("appdna: \(words)"), result.stderr)
            XCTAssertTrue(result.stderr.contains("(after 2 attempts; the command used 1 of its 1 retry)"), result.stderr)
            XCTAssertEqual(api.paths.count, 2)
            XCTAssertEqual(clock.sleeps.count, 1)
            assertUntouched()
        }
    }

    func testSameHostRedirectIsFollowedAndAnotherHostIsRefused() throws {
        try writeOldFile()
        let moved = ScriptedBundleAPI(clock: clock) { path, _ in
            path == Self.bundlePath ? .redirect(307, location: "http://127.0.0.1:9/moved/config-bundle")
                                    : .answer(200, body: BundleFixtures.apiBundle())
        }
        let followed = fetch(moved, ["--force"])
        XCTAssertEqual(followed.status, 0, followed.stderr)
        XCTAssertEqual(moved.paths, [Self.bundlePath, "/moved/config-bundle"])
        XCTAssertEqual(written, BundleFixtures.expectedSDKFile)

        try writeOldFile()
        let elsewhere = api { _ in .redirect(302, location: "http://127.0.0.2:9/steal") }
        let refused = fetch(elsewhere, ["--force"])
        XCTAssertEqual(refused.status, 69, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("another host"), refused.stderr)
        XCTAssertEqual(elsewhere.paths, [Self.bundlePath], "the key is never sent to the other host")
        assertUntouched()
    }

    func testForbiddenAndNotFoundReadWell() throws {
        try writeOldFile()
        let forbidden = fetch(api { _ in .answer(403) }, ["--force"])
        XCTAssertEqual(forbidden.status, 77, forbidden.stderr)
        XCTAssertTrue(forbidden.stderr.contains("HTTP 403 Forbidden: 127.0.0.1:9 refused the request: the API key, or an access rule"), forbidden.stderr)
        let missing = fetch(api { _ in .answer(404) }, ["--force"])
        XCTAssertEqual(missing.status, 69, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("there is no AppDNA API at this address"), missing.stderr)
        assertUntouched()
    }

    /// A body cut off and bytes that are not HTTP are network faults: retried, then 69.
    func testCutOffAndGarbageRepliesAreRetriedThen69AndNotWritten() throws {
        try writeOldFile()
        for (reply, words) in [(ScriptedBundleAPI.Reply.cutOff, "the connection broke off"), (.garbage, "not valid HTTP")] {
            let api = api { _ in reply }
            let result = fetch(api, ["--force", "--retries", "1"])
            XCTAssertEqual(result.status, 69, result.stderr)
            XCTAssertTrue(result.stderr.contains(words), result.stderr)
            XCTAssertEqual(api.paths.count, 2, "retried once")
            assertUntouched()
        }
    }

    func testHTMLBodyIsNotWritten() throws {
        try writeOldFile()
        let api = api { _ in .answer(200, headers: [("Content-Type", "text/html")], body: "<html><body>Please log in to the Wi-Fi</body></html>") }
        let result = fetch(api, ["--force"])
        XCTAssertEqual(result.status, 69, result.stderr)
        XCTAssertTrue(result.stderr.contains("not JSON") && result.stderr.contains("text/html"), result.stderr)
        XCTAssertTrue(result.stderr.contains("captive portal"), result.stderr)
        assertUntouched()
    }

    func testInvalidBundleIs1AndTheOldFileIsUntouched() throws {
        try writeOldFile()
        let api = api { _ in .answer(200, body: BundleFixtures.apiBundle(weights: (0.5, 0.4))) }
        let result = fetch(api, ["--force"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("appdna: bundle error: response:"), result.stderr)
        XCTAssertTrue(result.stderr.contains("is invalid (1 error); \(output) not changed"), result.stderr)
        assertUntouched()
        XCTAssertEqual(fetch(api, ["--force", "--no-validate"]).status, 0)
        XCTAssertTrue(written.contains("0.4"), written)
    }

    func testTimeoutBoundsTheWholeCommandOnTheVirtualClock() throws {
        try writeOldFile()
        let start = clock.monotonicNanoseconds()
        let hanging = api { _ in .hang }
        let result = fetch(hanging, ["--force", "--timeout", "2"])
        XCTAssertEqual(result.status, 75, result.stderr)
        XCTAssertTrue(result.stderr.contains("no complete answer within the 2 s timeout"), result.stderr)
        XCTAssertEqual(Double(clock.monotonicNanoseconds() - start) / 1e9, 2, accuracy: 0.001)
        assertUntouched()

        // Slow answers and back-off share the one budget: 500 after 3 s, a 1 s back-off, then
        // an answer that would take 3 s more than the 5 s left allow.
        let slow = api { index in index == 0 ? .after(3, .answer(500)) : .after(3, .answer(200, body: BundleFixtures.apiBundle())) }
        let again = fetch(slow, ["--force", "--timeout", "5", "--retries", "5"])
        XCTAssertEqual(again.status, 75, again.stderr)
        XCTAssertTrue(again.stderr.contains("within the 5 s timeout"), again.stderr)
        assertUntouched()
    }

    // MARK: - --check and --keep-on-failure

    func testCheckAsksOnlyTheVersion() throws {
        try writeOldFile()
        let behind = api(version: 42)
        let result = fetch(behind, ["--check"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(result.stdout, "behind: file bundle_version 41, live bundle_version 42\n")
        XCTAssertEqual(behind.paths, [Self.versionPath])
        let current = api(version: 41)
        let upToDate = fetch(current, ["--check"])
        XCTAssertEqual(upToDate.status, 0, upToDate.stderr)
        XCTAssertEqual(upToDate.stdout, "up to date (bundle_version 41)\n")
        XCTAssertEqual(current.paths, [Self.versionPath])
        let rejected = ScriptedBundleAPI(clock: clock) { _, _ in .answer(401) }
        XCTAssertEqual(fetch(rejected, ["--check"]).status, 77)
        assertUntouched()
    }

    func testKeepOnFailureKeepsAValidFileWhenTheAPICannotBeReached() throws {
        try writeOldFile()
        for (reply, plainStatus) in [(ScriptedBundleAPI.Reply.refuseConnection, Int32(69)), (.answer(500), 69), (.answer(503), 75), (.hang, 75)] {
            let plain = fetch(ScriptedBundleAPI(clock: clock) { _, _ in reply }, ["--retries", "1", "--timeout", "5"])
            XCTAssertEqual(plain.status, plainStatus, plain.stderr)
            for github in [false, true] {
                let kept = fetch(ScriptedBundleAPI(clock: clock) { _, _ in reply }, ["--retries", "1", "--timeout", "5", "--keep-on-failure"],
                                 environment: github ? ["GITHUB_ACTIONS": "true"] : [:])
                XCTAssertEqual(kept.status, 0, kept.stderr)
                let prefix = (github ? "::warning file=\(output)::" : "warning: ") + "appdna bundle fetch: kept \(output) (bundle_version 41): "
                XCTAssertEqual(kept.stderrLines.count, 1, kept.stderr)
                XCTAssertTrue(kept.stderr.hasPrefix(prefix), kept.stderr)
            }
            // --json: a script that asked for a report gets one, saying the file was kept.
            let json = fetch(ScriptedBundleAPI(clock: clock) { _, _ in reply }, ["--retries", "1", "--timeout", "5", "--keep-on-failure", "--json"])
            XCTAssertEqual(json.status, 0, json.stderr)
            XCTAssertTrue(json.stdout.contains("\"kept\": true") && json.stdout.contains("\"bundle_version\": 41") && json.stdout.contains("\"written\": false"), json.stdout)
            assertUntouched()
        }
        for status in [401, 403] {
            let rejected = fetch(ScriptedBundleAPI(clock: clock) { _, _ in .answer(status) }, ["--keep-on-failure"])
            XCTAssertEqual(rejected.status, 77, rejected.stderr)
            XCTAssertFalse(rejected.stderr.contains("warning"), rejected.stderr)
        }
        let invalid = fetch(api { _ in .answer(200, body: BundleFixtures.apiBundle(weights: (0.5, 0.4))) }, ["--keep-on-failure"])
        XCTAssertEqual(invalid.status, 1, invalid.stderr)
        assertUntouched()
    }

    // MARK: - bundle diff @remote

    func testDiffAgainstRemote() throws {
        let embedded = try scratch.file("embedded.json", Array(BundleFixtures.expectedSDKFile.utf8))
        let same = api()
        let result = run(same, ["bundle", "diff", embedded, "@remote"])
        XCTAssertEqual(result.status, 0, result.stderr + result.stdout)
        XCTAssertEqual(same.paths, [Self.bundlePath])

        let changed = api { _ in .answer(200, body: BundleFixtures.apiBundle(version: 43, weights: (0.57, 0.43))) }
        let stale = run(changed, ["bundle", "diff", embedded, "@remote", "--format", "json"])
        XCTAssertEqual(stale.status, 1, stale.stderr)
        XCTAssertTrue(stale.stdout.contains("/experiments/exp_paywall_v3/variants") && stale.stdout.contains("bundle_version"), stale.stdout)

        XCTAssertEqual(run(api { _ in .answer(401) }, ["bundle", "diff", embedded, "@remote"]).status, 77)
        XCTAssertEqual(run(api { _ in .answer(200, headers: [("Content-Type", "text/html")], body: "<html>") }, ["bundle", "diff", "@remote", embedded]).status, 69)
        let retried = api { index in index == 0 ? .answer(503, headers: [("Retry-After", "3")]) : .answer(200, body: BundleFixtures.apiBundle()) }
        XCTAssertEqual(run(retried, ["bundle", "diff", embedded, "@remote"]).status, 0)
        XCTAssertEqual(clock.sleeps, [3])
        let down = run(api { _ in .refuseConnection }, ["bundle", "diff", embedded, "@remote", "--retries", "0"])
        XCTAssertEqual(down.status, 69, down.stderr)
    }
}
