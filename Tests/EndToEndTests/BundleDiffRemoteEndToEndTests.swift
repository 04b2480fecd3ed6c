import Foundation
import XCTest
import LoopbackHTTPServer

/// `bundle diff FILE @remote` against a real HTTP server on 127.0.0.1: is the embedded bundle stale?
final class BundleDiffRemoteEndToEndTests: XCTestCase {
    typealias Fetch = BundleFetchEndToEndTests

    func diff(_ server: LoopbackHTTPServer, _ arguments: [String], key: String = Fetch.key) throws -> Binary.Result {
        let result = try Binary.run(["bundle", "diff"] + arguments,
                                    environment: ["APPDNA_SDK_KEY": key, "APPDNA_API_URL": server.baseURL])
        XCTAssertFalse(result.stderr.contains(key) || result.text.contains(key), "the key leaked")
        return result
    }

    func testTheEmbeddedFileInTheSDKShapeEqualsTheLiveAPIShape() throws {
        let embedded = try temporaryFile(Fetch.expectedSDKFile, name: "appdna-config.json")
        let server = try LoopbackHTTPServer(Fetch.routes { _ in .init(json: Fetch.apiBundle()) })
        let same = try diff(server, [embedded, "@remote"])
        XCTAssertEqual(same.status, 0, same.stderr + same.text)

        let changed = try LoopbackHTTPServer(Fetch.routes { _ in .init(json: Fetch.apiBundle(version: 43, weights: (0.57, 0.43))) })
        let stale = try diff(changed, [embedded, "@remote", "--format", "json"])
        XCTAssertEqual(stale.status, 1, stale.stderr)
        let text = stale.text
        XCTAssertTrue(text.contains("/experiments/exp_paywall_v3/variants"), text)
        XCTAssertTrue(text.contains("bundle_version"), text)
    }

    func testRemoteFailuresUseTheFetchStatuses() throws {
        let embedded = try temporaryFile(Fetch.expectedSDKFile, name: "appdna-config.json")
        let rejecting = try LoopbackHTTPServer(Fetch.routes { _ in .init(status: 401, headers: [("WWW-Authenticate", "ApiKey")]) })
        XCTAssertEqual(try diff(rejecting, [embedded, "@remote"]).status, 77)
        let html = try LoopbackHTTPServer(Fetch.routes { _ in .init(status: 200, headers: [("Content-Type", "text/html")], body: Array("<html>".utf8)) })
        XCTAssertEqual(try diff(html, ["@remote", embedded]).status, 69)
        XCTAssertEqual(try diff(html, ["@remote", "@remote"]).status, 64)
        let noKey = try Binary.run(["bundle", "diff", embedded, "@remote"], environment: ["APPDNA_API_URL": html.baseURL])
        XCTAssertEqual(noKey.status, 78, noKey.stderr)
    }
}
