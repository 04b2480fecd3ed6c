@testable import AppDNACore
import XCTest

/// The steps of an `api serve` change that touch nothing (`OverrideTransaction.prepare`):
/// a change that would serve a bundle failing validate or bucketing, or write a state the next
/// start refuses, is refused naming its step; stale overrides are kept and not applied; the
/// served version never goes back and never has two bodies.
final class OverrideTransactionTests: XCTestCase {
    static let source = #"""
    {"bundle_version": 10, "experiments": {"e": {"status": "running", "salt": "s",
       "variants": [{"id": "a", "weight": 0.5}, {"id": "b", "weight": 0.5}]}},
     "remote_config": {"limit": 3},
     "onboarding": {"active_flow_id": "f1", "flows": {"f1": {}, "f2": {}}}}
    """#

    func prepare(_ text: String = source, _ state: OverrideState) throws -> OverrideTransaction.Prepared {
        let bytes = Array(text.utf8)
        let document = try JSONDocument(bytes: bytes)
        return try OverrideTransaction.prepare(source: document, sourceBytes: bytes, sourceVersion: document.root["bundle_version"]?.int64 ?? 0,
                                               state: state, name: "bundle.json")
    }

    func state(_ items: [String], changes: Int64? = nil) throws -> OverrideState {
        OverrideState(overrides: BundleOverrides(try items.map { try BundleOverride(parsing: $0) }), changes: changes ?? Int64(items.count))
    }

    func testAForcedVariantTheSourceLostIsStaleAndTheExperimentIsServedAsTheSourceHasIt() throws {
        let lost = Self.source.replacingOccurrences(of: #"{"id": "b", "weight": 0.5}"#, with: #"{"id": "c", "weight": 0.5}"#)
        let prepared = try prepare(lost, state(["experiment:e=b"]))
        XCTAssertEqual(prepared.staleness.stale.map(\.item.text), ["experiment:e=b"])
        XCTAssertTrue(prepared.staleness.stale[0].reason.contains("no variant 'b'"), prepared.staleness.stale[0].reason)
        XCTAssertEqual(prepared.state.overrides.list.count, 1, "kept")
        let served = try JSONDocument(bytes: prepared.served)
        XCTAssertEqual(BundleValidator.validate(document: served).filter { $0.severity == .error }, [])
        let weights = ExperimentDefinition(id: "e", node: BundleExperiments.map(in: served.root)!["e"]!).variants.map(\.weight)
        XCTAssertEqual(weights, [0.5, 0.5], "not zeroed")
        // Back in the source: applied again.
        let again = try prepare(Self.source, prepared.state)
        XCTAssertEqual(again.staleness.stale, [])
        XCTAssertGreaterThan(again.version, prepared.version)
    }

    func testOnboardingWithoutFlowsIsStaleNotAnE016() throws {
        let flowless = Self.source.replacingOccurrences(of: #"{"active_flow_id": "f1", "flows": {"f1": {}, "f2": {}}}"#, with: "{}")
        let prepared = try prepare(flowless, state(["onboarding:f2"]))
        XCTAssertEqual(prepared.staleness.stale.count, 1)
        XCTAssertEqual(BundleValidator.validate(document: try JSONDocument(bytes: prepared.served)).filter { $0.severity == .error }, [])
    }

    func testAVariantWithoutAStringIDCannotBeForced() throws {
        let unnamed = Self.source.replacingOccurrences(of: #"{"id": "a", "weight": 0.5}"#, with: #"{"weight": 0.5}"#)
        let item = try BundleOverride(parsing: "experiment:e=#0")
        XCTAssertThrowsError(try BundleOverrides.check(item, against: JSONDocument(bytes: Array(unnamed.utf8)).root, name: "b")) { error in
            XCTAssertTrue("\(error)".contains("without a string id"), "\(error)")
        }
    }

    func testTheServedVersionNeverGoesBackAndNeverHasTwoBodies() throws {
        let first = try prepare(Self.source, state(["config:limit=4"]))
        XCTAssertEqual(first.version, 11)
        // The source rolled back to 5, the rest the same: the bytes served at 11 again, so 11, never 6.
        let lowered = try prepare(Self.source.replacingOccurrences(of: "\"bundle_version\": 10", with: "\"bundle_version\": 5"), first.state)
        XCTAssertEqual(lowered.version, 11)
        XCTAssertEqual(lowered.served, first.served)
        // New content under the source's same version: the version after the last served.
        let changed = try prepare(Self.source.replacingOccurrences(of: "\"bundle_version\": 10", with: "\"bundle_version\": 5")
                                    .replacingOccurrences(of: "\"limit\": 3", with: "\"limit\": 3, \"more\": 1"), lowered.state)
        XCTAssertEqual(changed.version, 12)
        // The same source and state again (a restart): the same version and bytes.
        let restarted = try prepare(Self.source.replacingOccurrences(of: "\"bundle_version\": 10", with: "\"bundle_version\": 5")
                                      .replacingOccurrences(of: "\"limit\": 3", with: "\"limit\": 3, \"more\": 1"), changed.state)
        XCTAssertEqual(restarted.version, 12)
        XCTAssertEqual(restarted.served, changed.served)
        // Nothing overridden, the file served as written; lowered, it is rewritten as the next version.
        let plain = try prepare(Self.source, OverrideState())
        XCTAssertEqual(plain.served, Array(Self.source.utf8))
        XCTAssertEqual(try prepare(Self.source.replacingOccurrences(of: "\"bundle_version\": 10", with: "\"bundle_version\": 5"), plain.state).version, 11)
    }

    func testAStateOverItsBoundIsRefusedAtTheEncodeStep() throws {
        let big = JSONValue.string(String(repeating: "x", count: OverrideState.maxBytes))
        let state = OverrideState(overrides: BundleOverrides([try BundleOverride(kind: .config, key: "big", value: big)]), changes: 1)
        XCTAssertThrowsError(try prepare(Self.source, state)) { error in
            XCTAssertEqual((error as? OverrideTransaction.Refusal)?.step, .encode)
            XCTAssertEqual((error as? OverrideTransaction.Refusal)?.fault, .request)
        }
    }

    /// One rule for keys: what the routes refuse the store refuses; values nest at most 64 deep.
    func testKeysAndValuesFollowOneRule() throws {
        XCTAssertThrowsError(try BundleOverride(parsing: "config:a\u{1}b=1"))
        XCTAssertThrowsError(try BundleOverride(parsing: "config:a\u{85}b=1"))
        XCTAssertThrowsError(try OverrideState.decode(Array(#"{"format": 1, "changes": 1, "overrides": [{"kind": "flag", "key": "a\u007fb", "value": true}]}"#.utf8), name: "s"))
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        XCTAssertThrowsError(try BundleOverride(parsing: "config:k=\(deep)"))
        let fine = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        XCTAssertNoThrow(try BundleOverride(parsing: "config:k=\(fine)"))
    }
}
