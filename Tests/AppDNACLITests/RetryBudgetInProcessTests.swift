import XCTest
@testable import AppDNACLI
import AppDNACore
import AppDNANet
import TestSupport

/// `--retries N` counts retries for the whole command: first attempts are never refused, a
/// server that keeps failing sees at most N + 1 requests, and a failure counts the attempts of
/// the request that failed and says how many retries the command used. `bundle fetch` over a
/// scripted API at N = 0, 1, 3 with faults on the version check, the download, and both.
extension BundleFetchInProcessTests {
    enum FaultyEndpoint: CaseIterable { case versionCheck, download, both }

    /// The API with 500s on `endpoint`: for the first `failures` asks of each faulty path
    /// (nil: always).
    func faultyAPI(_ endpoint: FaultyEndpoint, failures: Int?) -> ScriptedBundleAPI {
        ScriptedBundleAPI(clock: clock) { path, index in
            let faulty = endpoint == .both
                || (endpoint == .versionCheck && path == Self.versionPath)
                || (endpoint == .download && path == Self.bundlePath)
            if faulty && index < (failures ?? Int.max) { return .answer(500) }
            return path == Self.versionPath ? .answer(200, body: #"{"bundle_version": 42}"#) : .answer(200, body: BundleFixtures.apiBundle())
        }
    }

    func testRetriesZeroOnAHealthyServerMakesTheVersionCheckAndTheDownload() throws {
        try writeOldFile()
        let api = api()
        let result = fetch(api, ["--retries", "0"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(api.paths, [Self.versionPath, Self.bundlePath], "a first attempt is never refused")
        XCTAssertTrue(written.contains("\"bundle_version\": 42"), written)
    }

    func testAServerThatKeepsFailingSeesAtMostNPlusOneRequests() throws {
        for retries in [0, 1, 3] {
            for endpoint in FaultyEndpoint.allCases {
                try writeOldFile()
                let api = faultyAPI(endpoint, failures: nil)
                let result = fetch(api, ["--retries", "\(retries)"])
                let label = "--retries \(retries), 500s on \(endpoint): \(api.paths) \(result.stderr)"
                XCTAssertEqual(result.status, 69, label)
                switch endpoint {
                case .versionCheck, .both:
                    // The version check spent every retry: the download would be one more request.
                    XCTAssertEqual(api.paths, Array(repeating: Self.versionPath, count: retries + 1), label)
                case .download:
                    XCTAssertEqual(api.paths, [Self.versionPath] + Array(repeating: Self.bundlePath, count: retries + 1), label)
                }
                let failing = endpoint == .download ? Self.bundlePath : Self.versionPath
                XCTAssertTrue(result.stderr.contains("GET http://127.0.0.1:9\(failing): HTTP 500 Internal Server Error"), label)
                if retries == 0 {
                    XCTAssertFalse(result.stderr.contains("attempt") || result.stderr.contains("retr"), label)
                } else {
                    XCTAssertTrue(result.stderr.contains("after \(retries + 1) attempts (the command used \(retries) of its \(retries) retr"), label)
                }
                assertUntouched()
            }
        }
    }

    func testOneFailureOfEachRequestIsRetriedWhileTheCommandHasRetries() throws {
        // (retries, endpoint) → the exit status, the paths asked, and the failing request's words.
        let v = Self.versionPath, b = Self.bundlePath
        let cases: [(Int, FaultyEndpoint, Int32, [String], String?)] = [
            (0, .versionCheck, 69, [v], "\(v): HTTP 500 Internal Server Error\n"),
            (1, .versionCheck, 0, [v, v, b], nil),
            (3, .versionCheck, 0, [v, v, b], nil),
            (0, .download, 69, [v, b], "\(b): HTTP 500 Internal Server Error\n"),
            (1, .download, 0, [v, b, b], nil),
            (3, .download, 0, [v, b, b], nil),
            (0, .both, 69, [v], "\(v): HTTP 500 Internal Server Error\n"),
            // The version check used the only retry; the download's failure is its first attempt.
            (1, .both, 69, [v, v, b], "\(b): HTTP 500 Internal Server Error (the command used 1 of its 1 retry)"),
            (3, .both, 0, [v, v, b, b], nil),
        ]
        for (retries, endpoint, status, paths, words) in cases {
            try writeOldFile()
            let api = faultyAPI(endpoint, failures: 1)
            let result = fetch(api, ["--retries", "\(retries)"])
            let label = "--retries \(retries), one 500 on \(endpoint): \(api.paths) \(result.stderr)"
            XCTAssertEqual(result.status, status, label)
            XCTAssertEqual(api.paths, paths, label)
            if let words {
                XCTAssertTrue(result.stderr.contains(words), label)
                assertUntouched()
            } else {
                XCTAssertTrue(written.contains("\"bundle_version\": 42"), label)
            }
        }
    }

    func testDiffAgainstRemoteSharesTheRetries() throws {
        let embedded = try scratch.file("embedded.json", Array(BundleFixtures.expectedSDKFile.utf8))
        for retries in [0, 1, 3] {
            let failing = faultyAPI(.download, failures: nil)
            let result = run(failing, ["bundle", "diff", embedded, "@remote", "--retries", "\(retries)"])
            XCTAssertEqual(result.status, 69, result.stderr)
            XCTAssertEqual(failing.paths.count, retries + 1, result.stderr)
            if retries > 0 {
                XCTAssertTrue(result.stderr.contains("after \(retries + 1) attempts (the command used \(retries) of its \(retries) retr"), result.stderr)
            }
            let once = faultyAPI(.download, failures: 1)
            XCTAssertEqual(run(once, ["bundle", "diff", embedded, "@remote", "--retries", "\(retries)"]).status, retries == 0 ? 69 : 0)
        }
    }
}
