import XCTest
@testable import AppDNACore

final class RemoteConfigEntriesTests: XCTestCase {
    private func entries(_ text: String) throws -> RemoteConfigEntries {
        RemoteConfigEntries(root: try JSONDocument(bytes: Array(text.utf8)).root)
    }

    /// Every value type gets its accessor type; objects, arrays and null fall back to JSON.
    func testTypesFollowTheValues() throws {
        let config = try entries(#"{"remote_config":{"b":true,"i":3,"d":1.5,"e":1e3,"s":"x","o":{"n":[1]},"a":[],"z":null}}"#)
        XCTAssertEqual(config.section, "remote_config")
        XCTAssertEqual(config.entries.map(\.key), ["a", "b", "d", "e", "i", "o", "s", "z"])
        XCTAssertEqual(config.entries.map(\.type), [.json, .bool, .double, .double, .int, .json, .string, .json])
    }

    /// An empty remote_config falls back to feature_flags, as the SDK does; a type that
    /// differs between the two sections is reported.
    func testEmptyRemoteConfigFallsBackToFeatureFlags() throws {
        let config = try entries(#"{"remote_config":{},"feature_flags":{"on":true}}"#)
        XCTAssertEqual(config.section, "feature_flags")
        XCTAssertEqual(config.entries.map(\.key), ["on"])
        XCTAssertEqual(config.typeChanges, [])
        let changed = try entries(#"{"remote_config":{"limit":"10","same":1},"feature_flags":{"limit":10,"same":2}}"#)
        XCTAssertEqual(changed.section, "remote_config")
        XCTAssertEqual(changed.typeChanges, [.init(key: "limit", remoteConfigType: .string, featureFlagsType: .int)])
    }

    /// Keys that differ only in Unicode normalisation stay two entries.
    func testCanonicallyEquivalentKeysStayTwoEntries() throws {
        let config = try entries("{\"remote_config\":{\"caf\u{E9}\":1,\"cafe\u{301}\":2}}")
        XCTAssertEqual(config.entries.count, 2)
    }
}
