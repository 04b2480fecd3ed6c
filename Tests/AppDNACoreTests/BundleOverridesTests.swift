@testable import AppDNACore
import TestSupport
import XCTest

/// The rewrite behind `api serve --override`: what each override does to the served bundle,
/// what is refused, and the state file.
final class BundleOverridesTests: XCTestCase {
    static let bundle = #"""
    {"bundle_version": 5, "experiments": {"e": {"status": "paused", "salt": "s", "platforms": ["android"], "traffic_allocation": 0.0,
       "targeting": {"countries": ["NZ"]}, "variants": [{"id": "a", "weight": 0.5}, {"id": "b", "weight": 0.5}, {"id": "c", "weight": 0}]}},
     "remote_config": {"limit": 3}, "feature_flags": {"old": true},
     "onboarding": {"active_flow_id": "f1", "flows": {"f1": {}, "f2": {}}}}
    """#

    func root(_ text: String = bundle) throws -> JSONNode { try JSONDocument(bytes: Array(text.utf8)).root }

    /// The state file is read, then replaced: a FIFO (which would block the start until some
    /// writer came), a symbolic link or a directory is refused at once (73), never read.
    func testAStateFileThatIsNotARegularFileIsRefused() throws {
        let scratch = try ScratchDirectory("override-state")
        defer { scratch.remove() }
        let fifo = scratch.path + "/fifo"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let link = scratch.path + "/link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: try scratch.file("state.json", Array(#"{"format":1,"changes":0,"overrides":[]}"#.utf8)))
        for path in [fifo, link, scratch.path] {
            XCTAssertThrowsError(try OverrideState.load(path: path), path) { error in
                XCTAssertEqual((error as? Failure)?.kind, .cannotCreateOutput, "\(path): \(error)")
            }
        }
        XCTAssertEqual(try OverrideState.load(path: scratch.path + "/state.json").changes, 0)
        XCTAssertEqual(try OverrideState.load(path: scratch.path + "/absent.json").changes, 0)
    }

    func testParsingEachKind() throws {
        XCTAssertEqual(try BundleOverride(parsing: "experiment:e=b"), try BundleOverride(kind: .experiment, key: "e", value: .string("b")))
        XCTAssertEqual(try BundleOverride(parsing: "flag:k=true").value, .bool(true))
        XCTAssertEqual(try BundleOverride(parsing: #"config:k="Hi""#).value, .string("Hi"))
        let equals = try BundleOverride(parsing: #"config:a={"x":"="}"#)
        XCTAssertEqual(equals.key, "a", "the key ends at the first =")
        XCTAssertEqual(equals.value, ["x": "="])
        XCTAssertEqual(try BundleOverride(parsing: "onboarding:f2").key, "flow")
        for bad in ["experiment:e", "experiment:e=", "flag:k=Hi", "color:k=1", "config:=1", "onboarding:"] {
            XCTAssertThrowsError(try BundleOverride(parsing: bad), bad)
        }
        XCTAssertEqual(try BundleOverride(parsing: #"config:k={"a":[1,2]}"#).text, #"config:k={"a":[1,2]}"#)
    }

    func testAForcedExperimentGivesTheVariantToEveryBucket() throws {
        let overrides = BundleOverrides([try BundleOverride(parsing: "experiment:e=c")])
        let served = try JSONDocument(bytes: JSONWriter().write(overrides.apply(to: root(), version: 9)))
        XCTAssertEqual(served.root["bundle_version"]?.int64, 9)
        let definition = ExperimentDefinition(id: "e", node: try XCTUnwrap(served.root["experiments"]?["e"]))
        XCTAssertEqual(definition.status, "running")
        XCTAssertNil(definition.platforms)
        XCTAssertNil(definition.trafficAllocation)
        XCTAssertNil(definition.targeting)
        XCTAssertEqual(definition.variants.map(\.weight), [0, 0, 1])
        for bucket: UInt32 in [0, 1, 5000, 9999] { XCTAssertEqual(definition.allocation.variant(forBucket: bucket), "c") }
        XCTAssertEqual(VariantAllocation(weights: definition.variants, bucketCount: 100).variant(forBucket: 99), "c", "the documented scheme too")
        XCTAssertTrue(Eligibility.contextRules(definition, context: UserContext(platform: "ios", country: "FR")).allSatisfy(\.passed))
    }

    func testValuesLandRawInTheSectionTheSDKReads() throws {
        let overrides = BundleOverrides([try BundleOverride(parsing: "flag:limit=4"), try BundleOverride(parsing: #"config:new={"a":1}"#),
                                         try BundleOverride(parsing: "onboarding:f2")])
        let served = overrides.apply(to: try root(), version: 6)
        XCTAssertEqual(served["remote_config"], ["limit": 4, "new": ["a": 1]], "remote_config is non-empty: the SDK reads it")
        XCTAssertEqual(served["feature_flags"], ["old": true])
        XCTAssertEqual(served["onboarding"]?["active_flow_id"], "f2")

        // remote_config empty: the SDK reads feature_flags, and a value there must not make remote_config non-empty.
        let legacy = #"{"bundle_version": 1, "remote_config": {}, "feature_flags": {"w": {"value": "Hello", "type": "string"}}}"#
        let rewritten = BundleOverrides([try BundleOverride(parsing: #"config:w="Hi""#)]).apply(to: try root(legacy), version: 2)
        XCTAssertEqual(rewritten["feature_flags"], ["w": "Hi"], "raw, not the wrapper")
        XCTAssertEqual(rewritten["remote_config"], .object([:]))
    }

    func testTheAPIShapeIsServedInTheSDKShape() throws {
        let api = #"{"bundle_version": 3, "size_bytes": 10, "content": {"experiments": {"e": {"status": "running", "variants": [{"id": "a", "weight": 1}, {"id": "b", "weight": 0}]}}, "onboarding_flows": {"active_flow_id": "x"}}}"#
        let served = BundleOverrides([try BundleOverride(parsing: "experiment:e=b")]).apply(to: try root(api), version: 4)
        XCTAssertNil(served["content"])
        XCTAssertNil(served["size_bytes"])
        XCTAssertEqual(served["onboarding"]?["active_flow_id"], "x")
        XCTAssertEqual(served["experiments"]?["e"]?["variants"]?[1]?["weight"], 1)
    }

    func testWhatTheBundleDoesNotHaveIsRefused() throws {
        let bundle = try root()
        func message(_ text: String) -> String {
            do { try BundleOverrides.check(try BundleOverride(parsing: text), against: bundle, name: "b.json"); return "" } catch { return error.message }
        }
        XCTAssertTrue(message("experiment:x=a").contains("no experiment 'x'"))
        XCTAssertTrue(message("experiment:e=z").contains("has no variant 'z'; it has a, b, c"))
        XCTAssertTrue(message("flag:nope=true").contains("no flag 'nope'"))
        XCTAssertTrue(message("onboarding:f9").contains("no onboarding flow 'f9'"))
        XCTAssertEqual(message("experiment:e=c"), "")
        XCTAssertEqual(message("config:anything=1"), "", "config may add a key")
        // Ids are bytes: an NFD variant is not the NFC one.
        let nfc = #"{"bundle_version": 1, "experiments": {"e": {"variants": [{"id": "caf\u00e9", "weight": 1}]}}}"#
        XCTAssertThrowsError(try BundleOverrides.check(try BundleOverride(kind: .experiment, key: "e", value: .string("cafe\u{301}")), against: root(nfc), name: "n"))
    }

    func testSettingAgainReplacesAndClearingRemoves() throws {
        var overrides = BundleOverrides()
        overrides.set(try BundleOverride(parsing: "experiment:e=a"))
        overrides.set(try BundleOverride(parsing: "flag:k=true"))
        overrides.set(try BundleOverride(parsing: "experiment:e=b"))
        XCTAssertEqual(overrides.list.map(\.text), ["experiment:e=b", "flag:k=true"])
        XCTAssertFalse(overrides.clear(kind: .config, key: "k"))
        XCTAssertTrue(overrides.clear(kind: .flag, key: "k"))
        XCTAssertEqual(overrides.list.count, 1)
    }

    func testTheVersionNeverOverflows() {
        XCTAssertEqual(try BundleOverrides.servedVersion(source: 7, changes: 4), 11)
        XCTAssertThrowsError(try BundleOverrides.servedVersion(source: Int64.max, changes: 1))
    }

    func testTheStateFileRoundTripsAndRefusesWhatIsNotOne() throws {
        let scratch = try ScratchDirectory("override-state")
        defer { scratch.remove() }
        let path = scratch.path + "/state.json"
        XCTAssertEqual(try OverrideState.load(path: path), OverrideState(), "no file: nothing overridden")
        var state = OverrideState(overrides: BundleOverrides([try BundleOverride(parsing: "experiment:e=b"), try BundleOverride(parsing: #"config:m={"x":[1]}"#)]))
        try state.countChange()
        try state.save(path: path)
        XCTAssertEqual(try OverrideState.load(path: path), state)
        for bad in ["[]", #"{"format": 2, "changes": 0, "overrides": []}"#, #"{"format": 1, "changes": -1, "overrides": []}"#,
                    #"{"format": 1, "changes": 99999999999999999999, "overrides": []}"#,
                    #"{"format": 1, "changes": 0, "overrides": [{"kind": "experiment", "key": "e", "value": 3}]}"#] {
            _ = try scratch.file("state.json", Array(bad.utf8))
            XCTAssertThrowsError(try OverrideState.load(path: path), bad)
        }
    }
}
