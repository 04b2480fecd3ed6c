import Foundation
import XCTest
@testable import AppDNACLI

/// Issue 44.3: a targeting list with an element of the wrong type is malformed targeting, and
/// malformed targeting fails closed (platform facts): `countries: ["US", 5]` is not the SDK's
/// list of codes, as `platforms: ["ios", 5]` is not its list of platforms (E017). Before, a
/// country list was read as its strings alone (eligible `yes` for `--country US`, only W011)
/// and an `in` list as its scalars. Checked the same in every path: `bucket USER EXP`,
/// `bucket -` with one experiment and with all, and `bundle validate` (E018 at the element or
/// the rule). The warehouse SQL is held to `bucket -` over the same bundle's experiments in
/// the engine suite (`WarehouseAssignmentCases`: countries-mixed, traits-in-mixed).
final class MalformedTargetingListTests: XCTestCase {
    static let malformed = ["platforms-mixed", "countries-number", "countries-null", "countries-nested", "in-null", "in-object", "in-list"]
    static let wellFormed = ["countries-ok", "in-ok"]

    static let bundle = """
    {"bundle_version": 1, "experiments": {
      "platforms-mixed": {"status": "running", "salt": "s", "platforms": ["ios", 5], "variants": [{"id": "a", "weight": 1}]},
      "countries-number": {"status": "running", "salt": "s", "targeting": {"countries": ["US", 5]}, "variants": [{"id": "a", "weight": 1}]},
      "countries-null": {"status": "running", "salt": "s", "targeting": {"countries": ["US", null]}, "variants": [{"id": "a", "weight": 1}]},
      "countries-nested": {"status": "running", "salt": "s", "targeting": {"countries": [["US"]]}, "variants": [{"id": "a", "weight": 1}]},
      "in-null": {"status": "running", "salt": "s", "targeting": {"user_traits": [{"trait": "tier", "operator": "in", "value": ["a", null]}]},
                  "variants": [{"id": "a", "weight": 1}]},
      "in-object": {"status": "running", "salt": "s", "targeting": {"user_traits": [{"trait": "tier", "operator": "in", "value": ["a", {"b": 1}]}]},
                    "variants": [{"id": "a", "weight": 1}]},
      "in-list": {"status": "running", "salt": "s", "targeting": {"user_traits": [{"trait": "tier", "operator": "in", "value": ["a", ["b"]]}]},
                  "variants": [{"id": "a", "weight": 1}]},
      "countries-ok": {"status": "running", "salt": "s", "targeting": {"countries": ["US", "DE"]}, "variants": [{"id": "a", "weight": 1}]},
      "in-ok": {"status": "running", "salt": "s", "targeting": {"user_traits": [{"trait": "tier", "operator": "in", "value": ["a", 1, true]}]},
                "variants": [{"id": "a", "weight": 1}]}
    }}
    """

    /// A context every well-formed rule passes: so only the malformed list can fail.
    static let context = ["--platform", "ios", "--country", "US", "--trait", "tier=a"]

    private func bundlePath() throws -> String {
        let path = NSTemporaryDirectory() + "appdna-malformed-lists-\(UUID().uuidString).json"
        try Data(Self.bundle.utf8).write(to: URL(fileURLWithPath: path))
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    private func objects(_ ndjson: String) throws -> [[String: Any]] {
        try ndjson.split(separator: "\n").map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    func testOneUserFailsClosedNamingTheRule() throws {
        let bundle = try bundlePath()
        for experiment in Self.malformed + Self.wellFormed {
            let run = runCLI(["bucket", "u1", experiment, "--bundle", bundle, "--json"] + Self.context)
            XCTAssertEqual(run.status, 0, "\(experiment): \(run.stderr)")
            let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], run.stdout)
            let malformed = Self.malformed.contains(experiment)
            XCTAssertEqual(report["eligible"] as? Bool, !malformed, "\(experiment): \(run.stdout)")
            XCTAssertEqual(report["variant"] is NSNull, malformed, "\(experiment): \(run.stdout)")
            if malformed {
                let rule = try XCTUnwrap(report["failed_rule"] as? String, run.stdout)
                XCTAssertTrue(["platform", "countries", "trait tier"].contains(rule), "\(experiment): \(rule)")
            }
        }
    }

    func testTheBatchFailsClosedForEveryUser() throws {
        let bundle = try bundlePath()
        let users = (0..<50).map { "user-\($0)" }.joined(separator: "\n") + "\n"
        // Every experiment of the bundle at once.
        let all = runCLI(["bucket", "-", "--bundle", bundle, "--format", "ndjson"] + Self.context, stdin: users)
        XCTAssertEqual(all.status, 0, all.stderr)
        let rows = try objects(all.stdout)
        XCTAssertEqual(rows.count, 50 * (Self.malformed.count + Self.wellFormed.count))
        for row in rows {
            let experiment = try XCTUnwrap(row["experiment"] as? String)
            let malformed = Self.malformed.contains(experiment)
            XCTAssertEqual(row["eligible"] as? Bool, !malformed, "\(row)")
            XCTAssertEqual(row["variant"] is NSNull, malformed, "\(row)")
        }
        // One experiment.
        for experiment in Self.malformed + Self.wellFormed {
            let one = runCLI(["bucket", "-", experiment, "--bundle", bundle, "--format", "ndjson"] + Self.context, stdin: users)
            XCTAssertEqual(one.status, 0, one.stderr)
            let rows = try objects(one.stdout)
            XCTAssertEqual(rows.count, 50)
            XCTAssertTrue(rows.allSatisfy { ($0["variant"] is NSNull) == Self.malformed.contains(experiment) }, "\(experiment): \(one.stdout.prefix(300))")
        }
    }

    func testTheValidatorReportsAnErrorAtTheElementOrRule() throws {
        let bundle = try bundlePath()
        let run = runCLI(["bundle", "validate", bundle, "--format", "json"])
        XCTAssertEqual(run.status, 1, run.stderr)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let file = try XCTUnwrap((report["files"] as? [[String: Any]])?.first)
        let findings = (file["findings"] as? [[String: Any]] ?? []).map { "\($0["code"] ?? "") \($0["path"] ?? "")" }
        XCTAssertEqual(Set(findings), [
            "E017 /experiments/platforms-mixed/platforms",
            "E018 /experiments/countries-number/targeting/countries/1",
            "E018 /experiments/countries-null/targeting/countries/1",
            "E018 /experiments/countries-nested/targeting/countries/0",
            "E018 /experiments/in-null/targeting/user_traits/0",
            "E018 /experiments/in-object/targeting/user_traits/0",
            "E018 /experiments/in-list/targeting/user_traits/0",
        ], "\(findings)")
        XCTAssertEqual(findings.count, 7, "one finding each, no W011 for the number: \(findings)")
    }
}
