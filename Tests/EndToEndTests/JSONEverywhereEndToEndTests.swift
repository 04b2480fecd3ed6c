import Foundation
import XCTest
import TestSupport

/// Every command answers `--json`: `bundle fetch`, `webhook sign` and `webhook trigger` report
/// what they wrote or sent as JSON, and `--json` on `bundle validate` / `bundle diff` is
/// `--format json`, byte for byte.
final class JSONEverywhereEndToEndTests: XCTestCase {
    var scratch: ScratchDirectory!

    override func setUpWithError() throws {
        scratch = try ScratchDirectory("json-everywhere")
        addTeardownBlock { [scratch] in scratch?.remove() }
    }

    func json(_ result: Binary.Result) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], result.text + result.stderr)
    }

    func testValidateAndDiffTakeJSONAsFormatJSON() throws {
        let old = repositoryRoot.appendingPathComponent("examples/bundles/old.json").path
        let new = repositoryRoot.appendingPathComponent("examples/bundles/new.json").path
        let validateFormat = try Binary.run(["bundle", "validate", "--format", "json", old])
        let validateJSON = try Binary.run(["bundle", "validate", "--json", old])
        XCTAssertEqual(validateJSON.stdout, validateFormat.stdout)
        XCTAssertEqual(validateJSON.status, validateFormat.status)
        XCTAssertEqual(try Binary.run(["bundle", "validate", "--json", "--format", "json", old]).stdout, validateFormat.stdout)
        XCTAssertEqual(try Binary.run(["bundle", "validate", "--json", "--format", "github", old]).status, 64)

        let diffFormat = try Binary.run(["bundle", "diff", "--format", "json", old, new])
        let diffJSON = try Binary.run(["bundle", "diff", "--json", old, new])
        XCTAssertEqual(diffJSON.stdout, diffFormat.stdout)
        XCTAssertEqual(diffJSON.status, 1)
        XCTAssertEqual(try json(diffJSON)["same"] as? Bool, false)
        let conflict = try Binary.run(["bundle", "diff", "--json", "--format", "patch", old, new])
        XCTAssertEqual(conflict.status, 64)
        XCTAssertTrue(conflict.stderr.contains("--json is --format json"), conflict.stderr)
    }

    func testSignJSONNamesTheSecretsSourceNeverItsValue() throws {
        let secret = try scratch.file("secret", Array("whsec_json_test_value".utf8))
        let body = try scratch.file("body.json", Array(#"{"id":"evt_1","type":"payment.completed","created_at":"2026-02-19T10:00:00Z","data":{}}"#.utf8))
        let text = try Binary.run(["webhook", "sign", body, "--secret-file", secret])
        let report = try Binary.run(["webhook", "sign", body, "--secret-file", secret, "--json"])
        XCTAssertEqual(report.status, 0, report.stderr)
        let object = try json(report)
        XCTAssertEqual(object["signature"] as? String, text.text.trimmingCharacters(in: .newlines))
        XCTAssertEqual(object["header"] as? String, "X-AppDNA-Signature")
        XCTAssertEqual(object["body_length"] as? Int, try Data(contentsOf: URL(fileURLWithPath: body)).count)
        XCTAssertEqual((object["secret"] as? [String: Any])?["source"] as? String, "--secret-file \(secret)")
        XCTAssertFalse(report.text.contains("whsec_json_test_value"))
    }

    func testFetchAndTriggerReportAsJSONAgainstAPIServe() throws {
        let bundle = try scratch.file("served.json", Array(#"{"bundle_version": 9, "experiments": {}, "remote_config": {"a": 1}}"#.utf8))
        let server = try APIServeProcess(["--bundle", bundle])
        defer { server.stop() }
        let environment = ["APPDNA_SDK_KEY": "adn_test_json000000000000000001", "APPDNA_API_URL": server.baseURL]
        let output = scratch.path + "/appdna-config.json"

        let written = try Binary.run(["bundle", "fetch", "-o", output, "--json"], environment: environment)
        XCTAssertEqual(written.status, 0, written.stderr)
        let first = try json(written)
        XCTAssertEqual(first["written"] as? Bool, true)
        XCTAssertEqual(first["bundle_version"] as? Int, 9)
        XCTAssertEqual(first["flags"] as? Int, 1)
        XCTAssertEqual(first["shape"] as? String, "sdk")
        XCTAssertEqual(first["bytes"] as? Int, try Data(contentsOf: URL(fileURLWithPath: output)).count)

        let again = try json(try Binary.run(["bundle", "fetch", "-o", output, "--json"], environment: environment))
        XCTAssertEqual(again["written"] as? Bool, false)
        XCTAssertEqual(again["up_to_date"] as? Bool, true)

        let check = try Binary.run(["bundle", "fetch", "--check", "-o", scratch.path + "/missing.json", "--json"], environment: environment)
        XCTAssertEqual(check.status, 1)
        let checked = try json(check)
        XCTAssertEqual(checked["live_version"] as? Int, 9)
        XCTAssertTrue(checked["file_version"] is NSNull)
        XCTAssertEqual(try Binary.run(["bundle", "fetch", "-o", "-", "--json"], environment: environment).status, 64)

        let secret = try scratch.file("secret", Array("whsec_trigger".utf8))
        let trigger = try Binary.run(["webhook", "trigger", "payment.completed", "--to", server.baseURL + "/hooks", "--secret-file", secret, "--json"])
        XCTAssertEqual(trigger.status, 1, "api serve answers 404 to a path it does not serve")
        let sent = try json(trigger)
        XCTAssertEqual(sent["status"] as? Int, 404)
        XCTAssertEqual(sent["type"] as? String, "payment.completed")
        XCTAssertTrue((sent["signature"] as? String)?.hasPrefix("sha256=") == true)
        XCTAssertTrue((sent["answer"] as? String)?.contains("no such endpoint") == true)
    }
}
