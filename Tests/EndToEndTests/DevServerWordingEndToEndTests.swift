import Foundation
import TestSupport
import XCTest

/// Issue 52.6, the smaller things a mobile developer trips on: the audit names the served
/// bundle as such, `bucket --platform web` is taken as the warehouse SQL takes it, a clean
/// `bundle validate` says so in one line (not in --json), and the console gets the onboarding
/// flows to choose from.
final class DevServerWordingEndToEndTests: XCTestCase {
    var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-wording-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: scratch) }

    func file(_ name: String, _ text: String) throws -> String {
        let path = scratch.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func testTheAuditNamesTheServedBundleVersionAndTheConsoleGetsTheFlows() throws {
        let source = try file("bundle.json", DevServerEndToEndTests.source)
        let server = try InspectedProcess(["api", "serve", "--bundle", source], in: scratch)
        defer { _ = server.stop() }
        let batch = try file("batch.json", #"{"batch":["# + DevServerEndToEndTests.exposureEvent(1, [("other", "x")], version: 3) + "]}")
        let posted = try curl(server.listener + "/api/v1/ingest/events", ["-X", "POST", "-H", "x-api-key: k", "-H", "Content-Type: application/json",
                                                                         "--data-binary", "@" + batch], in: scratch)
        XCTAssertEqual(posted.status, 200, posted.text)
        let entries = try curl(server.inspector + "/api/requests", in: scratch).json["requests"] as? [[String: Any]] ?? []
        // A version this server never served is not judged against the one it serves (issue
        // 51.4): it is named as unknown, and never as "the file's" version.
        let audit = entries.first?["audit"] as? [String: Any]
        XCTAssertEqual((audit?["mismatches"] as? [[String: Any]])?.count, 0)
        let unknown = (audit?["unknown_versions"] as? [[String: Any]])?.first
        XCTAssertEqual(unknown?["bundle_version"] as? Int, 3)
        XCTAssertEqual(unknown?["exposures"] as? Int, 1)
        XCTAssertEqual(server.stop(), 0)
        XCTAssertTrue(server.stdout.contains("checked against bundle_version 7"), server.stdout)
        XCTAssertTrue(server.stdout.contains("1 from bundle_version 3, which this server never served or wrote: not judged"), server.stdout)
        XCTAssertFalse(server.stdout.contains("the file's"), server.stdout)
        // queue inspect --bundle FILE still names the file's.
        let console = try InspectedProcess(["api", "serve", "--bundle", source], in: scratch)
        defer { _ = console.stop() }
        let onboarding = try curl(console.inspector + "/api/bundle", in: scratch).json["onboarding"] as? [String: Any]
        XCTAssertEqual(onboarding?["flows"] as? [String], ["flow_a", "flow_b"])
    }

    func testBucketTakesTheWebPlatformAsTheWarehouseDoes() throws {
        let bundle = try file("web.json", #"""
        {"bundle_version": 1, "experiments": {
          "mobile-only": {"status": "running", "salt": "m", "platforms": ["ios", "android"], "variants": [{"id": "a", "weight": 0.5}, {"id": "b", "weight": 0.5}]},
          "web-too": {"status": "running", "salt": "w", "platforms": ["ios", "web"], "variants": [{"id": "a", "weight": 0.5}, {"id": "b", "weight": 0.5}]}}}
        """#)
        let webToo = try Binary.run(["bucket", "user-1", "web-too", "--bundle", bundle, "--platform", "web", "--json"])
        XCTAssertEqual(webToo.status, 0, webToo.stderr)
        let assigned = try JSONSerialization.jsonObject(with: webToo.stdout) as? [String: Any]
        XCTAssertNotNil(assigned?["variant"] as? String, webToo.text)
        // A web user is in no experiment whose platforms leave web out, as on a device of another platform.
        let mobile = try Binary.run(["bucket", "user-1", "mobile-only", "--bundle", bundle, "--platform", "WEB", "--json"])
        let excluded = try JSONSerialization.jsonObject(with: mobile.stdout) as? [String: Any]
        XCTAssertTrue(excluded?["variant"] is NSNull, mobile.text)
        let android = try Binary.run(["bucket", "user-1", "mobile-only", "--bundle", bundle, "--platform", "android", "--json"])
        XCTAssertNotNil((try JSONSerialization.jsonObject(with: android.stdout) as? [String: Any])?["variant"] as? String, android.text)
        // A typo is still refused.
        XCTAssertEqual(try Binary.run(["bucket", "user-1", "web-too", "--bundle", bundle, "--platform", "iso"]).status, 64)
    }

    func testACleanValidateSaysSoInOneLineExceptInJSON() throws {
        let clean = try file("clean.json", #"{"bundle_version": 1, "experiments": {}}"#)
        let text = try Binary.run(["bundle", "validate", clean])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertEqual(text.text, "", "stdout stays empty for a pipe")
        XCTAssertEqual(text.stderr, "\(clean): valid\n")
        XCTAssertEqual(try Binary.run(["bundle", "validate", clean, "--quiet"]).stderr, "")
        let json = try Binary.run(["bundle", "validate", clean, "--json"])
        XCTAssertEqual(json.status, 0)
        XCTAssertEqual(json.stderr, "")
        XCTAssertEqual((try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])?["valid"] as? Bool, true)
    }
}
