import Foundation
import XCTest
@testable import AppDNACLI
import AppDNACore
import AppDNANet
import TestSupport

/// `bundle fetch`'s file behaviour in process, through files of the test's own
/// (`CommandIO.files`): what it writes, when it reads the old file back, and that a refused
/// output stops it before any request. The path is in a directory that does not exist, so a
/// write that went around the injected files would fail (73) instead of landing in memory.
final class BundleFetchFileAccessTests: XCTestCase {
    static let key = "adn_live_E2EsecretKEY0123456789zz3f9a"
    static let output = "/nonexistent-appdna-directory/appdna-config.json"
    let clock = VirtualClock()

    func api(version: Int) -> ScriptedBundleAPI {
        ScriptedBundleAPI(clock: clock) { path, _ in
            switch path {
            case AppDNAAPI.bundleVersionPath: return .answer(200, body: #"{"bundle_version": \#(version)}"#)
            case AppDNAAPI.bundlePath: return .answer(200, body: BundleFixtures.apiBundle())
            default: return .answer(404)
            }
        }
    }

    func fetch(_ api: ScriptedBundleAPI, files: InMemoryFiles) -> CapturedRun {
        runCLI(["bundle", "fetch", "-o", Self.output],
               environment: ["APPDNA_SDK_KEY": Self.key, "APPDNA_API_URL": "http://127.0.0.1:9"],
               transport: api, clock: clock, files: files)
    }

    func testTheDownloadIsWrittenThroughTheInjectedFiles() {
        let files = InMemoryFiles()
        let api = api(version: 42)
        let result = fetch(api, files: files)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(files.writes, [Self.output])
        XCTAssertEqual(files.contents[Self.output].map { String(decoding: $0, as: UTF8.self) }, BundleFixtures.expectedSDKFile)
        XCTAssertEqual(api.paths, [AppDNAAPI.bundlePath], "no file yet: no version check")
        XCTAssertFalse(FileManager.default.fileExists(atPath: Self.output))
    }

    func testAnUpToDateFileIsReadBackAndNotWritten() {
        let old = Array("{\"bundle_version\": 42, \"experiments\": {}}\n".utf8)
        let files = InMemoryFiles([Self.output: old])
        let api = api(version: 42)
        let result = fetch(api, files: files)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(api.paths, [AppDNAAPI.bundleVersionPath], "the version check only")
        XCTAssertEqual(files.writes, [])
        XCTAssertEqual(files.contents[Self.output], old)
    }

    func testARefusedOutputStopsBeforeAnyRequest() {
        let files = InMemoryFiles(refused: [Self.output])
        let api = api(version: 42)
        let result = fetch(api, files: files)
        XCTAssertEqual(result.status, 73, result.stderr)
        XCTAssertTrue(result.stderr.contains("permission denied"), result.stderr)
        XCTAssertEqual(api.paths, [], "a download that cannot be written is not made")
        XCTAssertEqual(files.writes, [])
    }
}
