import Foundation
import XCTest
@testable import AppDNACore

/// The fixture set of `bundle validate`: every file in Fixtures/bundles has its exact findings
/// here as "CODE POINTER LINE:COLUMN" (a missing pointer is the root, ""). A new fixture without
/// an entry, or an entry without a file, fails the test.
final class BundleValidatorFixtureTests: XCTestCase {
    static let expected: [String: [String]] = [
        "active-flow-missing.json": ["E016 /onboarding/active_flow_id 4:23"],
        "active-flow-no-flows.json": ["E016 /onboarding/active_flow_id 4:23"],
        "active-flow-not-string.json": ["E016 /onboarding/active_flow_id 4:23"],
        "api-shape-section-names.json": ["W006 /content 6:14", "W007 /content/onboarding_flows 28:25", "W007 /content/in_app_messages 34:24"],
        "api-shape.json": ["W006 /content 6:14"],
        "api-version-only.json": [],
        "crlf.json": ["E005 /bundle_version 2:21", "W002 /experiments/e/status 3:35"],
        "duplicate-keys.json": ["E003 /experiments/e/status 4:32", "E003 /bundle_version 6:3"],
        "experiment-not-object.json": ["E007 /experiments/e 4:10"],
        "flag-wrapper.json": ["W005 /remote_config/dark_mode 4:18", "W005 /feature_flags/f 14:10"],
        "flows-array.json": ["E016 /onboarding/active_flow_id 4:23", "E006 /onboarding/flows 5:14"],
        "platforms-malformed.json": ["E017 /experiments/string/platforms 4:63", "E017 /experiments/mixed/platforms 6:62", "W010 /experiments/cased/platforms/0 8:63"],
        "targeting-unsatisfiable.json": ["E018 /experiments/e/targeting/new_users_only 5:43", "E018 /experiments/e/targeting/countries 5:64", "E018 /experiments/e/targeting/min_app_version 5:89", "E018 /experiments/e/targeting/user_traits/0 6:41", "E018 /experiments/e/targeting/user_traits/1 7:41", "W012 /experiments/e/targeting/user_traits/2 8:41"],
        "countries-not-upper-case.json": ["W011 /experiments/e/targeting/countries/1 5:45", "W011 /experiments/e/targeting/countries/2 5:51", "W011 /experiments/e/targeting/countries/3 5:58"],
        "trait-text-comparison.json": ["W012 /experiments/e/targeting/user_traits/0 5:41"],
        "lookalike-variant-ids.json": ["W009 /experiments/e/variants/1/id 13:17"],
        "many-problems.json": ["W001  1:1", "W002 /experiments/e/status 4:17", "W003 /experiments/e/salt 5:15", "E014 /experiments/e/variants 6:19", "E011 /experiments/e/variants/1/id 12:17", "E015 /experiments/e/traffic_allocation 16:29", "W005 /remote_config/k 20:10", "E016 /onboarding/active_flow_id 26:23"],
        "root-array.json": ["E004  1:1"],
        "root-string.json": ["E004  1:1"],
        "salt-blank.json": ["W003 /experiments/e1/salt 6:15", "W003 /experiments/e2/salt 20:15", "W003 /experiments/e3 32:11"],
        // ForcedIdentityTests' bundle: its blank salt is the point (old iOS hashes it literally).
        "forced-identity.json": ["W003 /experiments/paywall/salt 15:15"],
        "section-experiments-array.json": ["E006 /experiments 3:18"],
        "section-remote-config-array.json": ["E006 /remote_config 3:20", "E006 /paywalls/paywalls 8:17"],
        "status-missing.json": ["W002 /experiments/e 4:10"],
        "status-unknown.json": ["W002 /experiments/e/status 5:17"],
        "syntax-bad-number.json": ["E001  1:21"],
        "syntax-deep.json": ["E001  1:1001"],
        "syntax-empty.json": ["E001  1:1"],
        "syntax-huge-number-ok.json": [],
        "syntax-nul-byte.json": ["E001  1:22"],
        "syntax-nul-in-string.json": ["E001  1:30"],
        "syntax-single-quotes.json": ["E001  1:2"],
        "syntax-trailing-comma.json": ["E001  3:1"],
        "syntax-trailing-content.json": ["E001  2:1"],
        "syntax-truncated.json": ["E001  4:26"],
        "syntax-whitespace-only.json": ["E001  4:1"],
        "traffic-allocation-range.json": ["E015 /experiments/e/traffic_allocation 17:29"],
        "traffic-allocation-string.json": ["E015 /experiments/e/traffic_allocation 17:29"],
        "unsafe-integer.json": ["W008 /bundle_version 2:21", "W008 /remote_config/neg 3:52", "W008 /remote_config/huge 3:79"],
        "utf8-invalid.json": ["E002  1:35"],
        "utf8-overlong.json": ["E002  3:9"],
        "valid-sdk-bom.json": [],
        "valid-sdk-compact.json": [],
        "valid-sdk-completed.json": [],
        "valid-sdk-flat.json": [],
        "valid-sdk-full.json": [],
        "valid-sdk-minimal.json": [],
        "valid-sdk-thirds-ok.json": [],
        "valid-sdk-thirds-unrepresentable.json": [],
        "valid-sdk-unicode.json": ["W009 /experiments/café/variants/1/id 13:17"],  // valid: a warning, no error
        "variant-id-duplicate.json": ["E011 /experiments/e/variants/1/id 13:17"],
        "variant-id-missing.json": ["E010 /experiments/e/variants/0 8:9", "E010 /experiments/e/variants/1/id 12:17"],
        "variant-not-object.json": ["E009 /experiments/e/variants/0 8:9"],
        "variants-empty.json": ["E008 /experiments/e/variants 7:19"],
        "variants-missing.json": ["E008 /experiments/e 4:10"],
        "variants-not-array.json": ["E008 /experiments/e/variants 7:19"],
        "version-fraction.json": ["E005 /bundle_version 1:20"],
        "version-missing.json": ["W001  1:1"],
        "version-negative.json": ["E005 /bundle_version 2:21"],
        "version-string.json": ["E005 /bundle_version 2:21"],
        "weight-huge.json": ["E012 /experiments/e/variants/0/weight 1:114"],
        "weight-missing.json": ["E012 /experiments/e/variants/0 8:9"],
        "weight-out-of-range.json": ["E013 /experiments/e/variants/0/weight 10:21", "E013 /experiments/e/variants/1/weight 14:21"],
        "weight-string.json": ["E012 /experiments/e/variants/0/weight 10:21"],
        "weight-sum.json": ["E014 /experiments/e/variants 7:19"],
        "weight-truncation-three.json": ["W004 /experiments/e/variants 7:19"],
        "weight-truncation.json": ["W004 /experiments/e/variants 7:19"],
    ]

    static let directory = Fixtures.directory.appendingPathComponent("bundles")

    func testEveryFixtureHasExactlyItsFindings() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path).filter { $0.hasSuffix(".json") }.sorted()
        XCTAssertGreaterThanOrEqual(files.count, 40)
        XCTAssertEqual(Set(files), Set(Self.expected.keys), "fixtures and expectations differ")
        for file in files {
            let bytes = try [UInt8](Data(contentsOf: Self.directory.appendingPathComponent(file)))
            let findings = BundleValidator.validate(bytes: bytes)
            let got = findings.map { "\($0.code) \($0.pointer) \($0.line):\($0.column)" }
            XCTAssertEqual(got, Self.expected[file] ?? [], file)
            for finding in findings {
                XCTAssertEqual(finding.severity, finding.code.hasPrefix("E") ? .error : .warning, file)
                XCTAssertFalse(finding.message.isEmpty, file)
            }
        }
    }

    func testEveryRuleHasAFixture() {
        let covered = Set(Self.expected.values.flatMap { $0.map { String($0.prefix(4)) } })
        for rule in BundleRule.allCases {
            XCTAssertTrue(covered.contains(rule.code), "no fixture for \(rule.code)")
        }
        XCTAssertTrue(Self.expected.keys.contains { $0.hasPrefix("valid-sdk") })
        XCTAssertTrue(Self.expected["api-shape.json"] == ["W006 /content 6:14"])
    }

    func testBothShapesAreModelled() throws {
        let sdk = try JSONDocument(bytes: Array(#"{"bundle_version": 1, "experiments": {"experiments": {"e": {}}}, "remote_config": {}, "feature_flags": {"f": 1}, "onboarding": {"flows": {}}}"#.utf8))
        let model = BundleModel(root: sdk.root)
        XCTAssertEqual(model.shape, .sdk)
        XCTAssertEqual(model.experiments?.pointer.description, "/experiments/experiments")
        XCTAssertEqual(model.experimentList.map(\.id), ["e"])
        XCTAssertEqual(model.flags?.pointer.description, "/feature_flags", "an empty remote_config yields to feature_flags")
        XCTAssertEqual(model.onboarding?.pointer.description, "/onboarding")
        let api = try JSONDocument(bytes: Array(#"{"bundle_version": 2, "content": {"experiments": {"x": {}}, "remote_config": {"a": 1}, "onboarding_flows": {}}}"#.utf8))
        let apiModel = BundleModel(root: api.root)
        XCTAssertEqual(apiModel.shape, .api)
        XCTAssertEqual(apiModel.experiments?.pointer.description, "/content/experiments")
        XCTAssertEqual(apiModel.flags?.pointer.description, "/content/remote_config")
        XCTAssertEqual(apiModel.onboarding?.pointer.description, "/content/onboarding_flows")
        XCTAssertEqual(apiModel.bundleVersion?.node.int64, 2)
    }

    func testTruncationWarningGivesExactBucketCounts() throws {
        let bytes = try [UInt8](Data(contentsOf: Self.directory.appendingPathComponent("weight-truncation-three.json")))
        let finding = try XCTUnwrap(BundleValidator.validate(bytes: bytes).first)
        XCTAssertEqual(finding.code, "W004")
        XCTAssertTrue(finding.message.contains("a 0.69 → 6899 buckets (intended 6900)"), finding.message)
        XCTAssertTrue(finding.message.contains("b 0.16 → 1600 buckets (intended 1600)"), finding.message)
        XCTAssertTrue(finding.message.contains("c 0.15 → 1501 buckets (intended 1500)"), finding.message)
    }

    func testMessagesOfSyntaxFindingsKeepTheParserDetail() throws {
        let bytes = try [UInt8](Data(contentsOf: Self.directory.appendingPathComponent("syntax-truncated.json")))
        let finding = try XCTUnwrap(BundleValidator.validate(bytes: bytes).first)
        XCTAssertEqual(finding.message, "not JSON: unexpected end of input: unterminated string started at line 4, column 21")
    }

    func testShiftMovesEveryLocationIncludingThoseInMessages() {
        let shift = BundleValidator.LocationShift(lines: 1000, columns: 7)
        let truncated = BundleValidator.validate(bytes: Array("[1,\n [2".utf8), shift: shift)
        XCTAssertEqual(truncated.map { "\($0.line):\($0.column)" }, ["1002:4"])
        XCTAssertTrue(truncated[0].message.hasSuffix("unterminated array started at line 1002, column 2"), truncated[0].message)
        let firstLine = BundleValidator.validate(bytes: Array("[1]".utf8), shift: BundleValidator.LocationShift(lines: 0, columns: 7))
        XCTAssertEqual(firstLine.map { "\($0.code) \($0.line):\($0.column)" }, ["E004 1:8"])
    }
}
