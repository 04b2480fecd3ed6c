import Foundation
import XCTest
import TestSupport

/// Every command reads a bundle through one loader (a file, '-', @remote) and finds its
/// experiments through one reader with the SDK's precedence: the top-level `experiments`
/// before `content.experiments`. A file that holds both must read the same everywhere.
final class OneBundleReaderEndToEndTests: XCTestCase {
    static let key = "adn_test_onereader00000000000001"
    var scratch: ScratchDirectory!

    override func setUpWithError() throws {
        scratch = try ScratchDirectory("one-reader")
        addTeardownBlock { [scratch] in scratch?.remove() }
    }

    /// Top level: "top" (weights `top`), under content: "inner"; devices only see "top".
    func bothShapes(version: Int, top: [Double]) throws -> String {
        let variants = zip(["control", "b"], top).map { #"{"id": "\#($0)", "weight": \#($1)}"# }.joined(separator: ", ")
        let text = """
        {"bundle_version": \(version),
         "experiments": {"top": {"status": "running", "salt": "s", "variants": [\(variants)]}},
         "remote_config": {"flag": true},
         "content": {"experiments": {"inner": {"status": "running", "salt": "s", "variants": [{"id": "x", "weight": 1}]}}}}
        """
        return try scratch.file("both-\(version).json", Array(text.utf8))
    }

    func testABundleWithBothShapesReadsTheTopLevelExperimentsInEveryCommand() throws {
        let old = try bothShapes(version: 1, top: [1, 0]), new = try bothShapes(version: 2, top: [0.5, 0.5])
        // bucket: the top-level experiment, not the inner one.
        let bucket = try Binary.run(["bucket", "u1", "--bundle", old, "--json"])
        XCTAssertEqual(bucket.status, 0, bucket.stderr)
        XCTAssertTrue(bucket.text.contains("\"top\"") && !bucket.text.contains("\"inner\""), bucket.text)
        // diff: the change to the top-level weights is an assignment change the gate sees.
        let diff = try Binary.run(["bundle", "diff", "--fail-on-switch", "10", "--format", "json", old, new])
        XCTAssertEqual(diff.status, 1, diff.text + diff.stderr)
        XCTAssertTrue(diff.text.contains("assignment_changed"), diff.text)
        // codegen: accessors for "top".
        let codegen = try Binary.run(["bundle", "codegen", "--language", "swift", old])
        XCTAssertEqual(codegen.status, 0, codegen.stderr)
        XCTAssertTrue(codegen.text.contains("\"top\"") && !codegen.text.contains("\"inner\""), codegen.text)
        // SQL: one branch, for "top".
        let sql = try Binary.run(["warehouse", "assignment", old, "--dialect", "duckdb"])
        XCTAssertEqual(sql.status, 0, sql.stderr)
        XCTAssertTrue(sql.text.contains("'top' AS experiment") && !sql.text.contains("'inner'"), sql.text)
        // The audit judges exposures of "top"; one of "inner" is an experiment the device does not have.
        let queue = try scratch.file("pending_events.ndjson", Array(Self.event.utf8))
        let audit = try Binary.run(["queue", "inspect", queue, "--bundle", old, "--json", "--now", "2026-02-19T12:00:00Z"])
        XCTAssertEqual(audit.status, 0, audit.stderr)
        XCTAssertTrue(audit.text.contains("experiment-missing"), audit.text)
    }

    /// One queued event exposed to "inner", which only the content wrapper has.
    static let event = """
    {"schema_version":1,"event_id":"00000000-0000-4000-8000-000000000001","event_name":"e","ts_ms":1771495200000,"user":{"anon_id":"11111111-1111-4111-8111-111111111111","user_id":"u1"},"device":{"platform":"android","bundle_version":1},"context":{"experiment_exposures":[{"exp":"inner","variant":"x"}]},"properties":{}}

    """

    func testRemoteIsAcceptedWhereverABundleIsRead() throws {
        let served = try bothShapes(version: 7, top: [0.5, 0.5])
        let server = try APIServeProcess(["--bundle", served])
        defer { _ = server.stop() }
        let environment = ["APPDNA_SDK_KEY": Self.key, "APPDNA_API_URL": server.baseURL]
        let local = try Binary.run(["bucket", "u1", "top", "--bundle", served], environment: environment)
        let remote = try Binary.run(["bucket", "u1", "top", "--bundle", "@remote"], environment: environment)
        XCTAssertEqual(remote.status, 0, remote.stderr)
        XCTAssertEqual(remote.text, local.text, "the live bundle gives the same assignment as the file it is served from")
        for arguments in [["bundle", "validate", "@remote"], ["bundle", "codegen", "@remote"], ["warehouse", "audit", "@remote", "--dialect", "clickhouse", "--exposures", "e"],
                          ["queue", "inspect", try scratch.file("pending_events.ndjson", Array(Self.event.utf8)), "--bundle", "@remote"]] {
            let run = try Binary.run(arguments, environment: environment)
            XCTAssertEqual(run.status, 0, "\(arguments): \(run.stderr)")
        }
        // Without a key: a configuration error (78) before any request, as for bundle fetch.
        XCTAssertEqual(try Binary.run(["bucket", "u1", "--bundle", "@remote"], environment: ["APPDNA_API_URL": server.baseURL]).status, 78)
        // A misspelling is refused.
        XCTAssertEqual(try Binary.run(["bundle", "validate", "@live"], environment: environment).status, 64)
    }
}
