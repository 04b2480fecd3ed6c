import XCTest
@testable import AppDNACore

/// `JSONParseOptions.keepChildrenAboveDepth`: deep containers are still parsed and checked in
/// full but lose their children on the tape, except where a whole-document check needs them;
/// the validator (which uses it) finds exactly what it finds on a full tape.
final class JSONDroppedChildrenTests: XCTestCase {
    private func document(_ text: String, keepAbove depth: Int) throws -> JSONDocument {
        try JSONDocument(bytes: Array(text.utf8), options: JSONParseOptions(duplicateKeys: .record, keepChildrenAboveDepth: depth))
    }

    func testContainersAtTheDepthKeepTheirBytesButNotTheirChildren() throws {
        let text = #"{"a": {"b": [1, {"c": 2}], "d": {}}, "e": [true]}"#
        let doc = try document(text, keepAbove: 2)
        let b = try XCTUnwrap(doc.root["a"]?["b"])
        XCTAssertEqual(b.kind, .array)
        XCTAssertEqual(b.count, 0, "children of a depth-2 array are dropped")
        XCTAssertEqual(String(decoding: doc.bytes[b.byteRange], as: UTF8.self), #"[1, {"c": 2}]"#)
        XCTAssertEqual(doc.root["e"]?.count, 1, "a depth-1 array keeps its children")
        XCTAssertEqual(doc.root["a"]?.count, 2)
        XCTAssertEqual(doc.root["a"]?["d"]?.kind, .object)
        XCTAssertEqual(doc.tape.count, 10, "root, a, {…}, b, [1, …] alone, d, {}, e, [true], true")
        // Unlimited by default: the same text keeps every node.
        XCTAssertEqual(try JSONDocument(bytes: Array(text.utf8)).root["a"]?["b"]?.count, 2)
    }

    func testSyntaxErrorsInsideDroppedContainersAreStillReported() {
        XCTAssertThrowsError(try document(#"{"a": {"b": [1, {"c": 2,}]}}"#, keepAbove: 1)) { error in
            let error = error as! JSONSyntaxError
            XCTAssertEqual(error.line, 1)
            XCTAssertEqual(error.column, 25)
        }
    }

    func testDuplicateKeysAndLongIntegersKeepTheirContainers() throws {
        let text = #"{"a": {"b": [{"x": 1, "x": 2}], "c": [12345678901234567890], "d": [[1, 2]]}}"#
        let doc = try document(text, keepAbove: 2)
        XCTAssertEqual(doc.duplicateKeys.count, 1)
        XCTAssertEqual(doc.duplicateKeys.first?.objectPointer.description, "/a/b/0")
        XCTAssertEqual(doc.duplicateKeys.first?.key, "x")
        XCTAssertEqual(doc.root["a"]?["b"]?.count, 1, "kept: it holds a duplicate key")
        XCTAssertEqual(doc.root["a"]?["c"]?.count, 1, "kept: it holds a long integer")
        XCTAssertEqual(doc.root["a"]?["d"]?.count, 0, "dropped")
        XCTAssertEqual(doc.longIntegerCount, 1)
    }

    /// Defects deep inside payloads (deeper than the validator reads) and at every level it
    /// reads, in both bundle shapes: the findings equal those from a full tape.
    func testValidatorFindsTheSameAsOnAFullTape() throws {
        let payload = #"{"deep": {"deeper": [[1, 2, {"k": 1, "k": 2}], [99999999999999999999], {"s": "\u00e9"}]}, "rows": [[1], [2]]}"#
        let variants = #"[{"id": "a", "weight": 0.5, "payload": \#(payload)}, {"id": "a", "weight": {"x": [1]}, "payload": [[[]]]}, {"id": [1], "weight": 0.5}]"#
        let experiment = #"{"status": "running", "salt": "s", "traffic_allocation": [0.5], "variants": \#(variants)}"#
        let experiments = #"{"e1": \#(experiment), "e2": {"status": {"x": 1}, "variants": {"v": [1]}}}"#
        let sdk = #"{"bundle_version": 1, "experiments": {"experiments": \#(experiments)}, "remote_config": {"f": {"value": [[1]], "type": "x"}}}"#
        let api = #"{"bundle_version": 2, "content": {"experiments": {"experiments": \#(experiments)}, "onboarding": {"flows": {"f": {"a": [[1]]}}, "active_flow_id": "g"}}}"#
        for text in [sdk, api] {
            let bytes = Array(text.utf8)
            let full = BundleValidator.validate(document: try JSONDocument(bytes: bytes, options: JSONParseOptions(duplicateKeys: .record)))
            let findings = BundleValidator.validate(bytes: bytes)
            XCTAssertEqual(findings, full)
            XCTAssertTrue(findings.contains { $0.code == "W008" } && findings.contains { $0.rule == .duplicateKey }, "\(findings)")
            XCTAssertGreaterThan(findings.count, 6)
        }
    }

    /// `unreadKeys`: `platforms` and `payload` at depth 4+ keep no children unless they hold a
    /// finding, and the validator finds the same as on a full tape.
    func testUnreadKeysDropTheirChildrenButNotTheirFindings() throws {
        let variants = #"[{"id": "a", "weight": 0.5, "payload": {"on": true, "rows": [1, 2]}}, {"id": "b", "weight": 0.5, "payload": {"k": 1, "k": 2}}]"#
        let text = #"{"bundle_version": 1, "experiments": {"experiments": {"e1": {"status": "running", "salt": "s", "platforms": ["ios", 99999999999999999999], "variants": \#(variants)}, "e2": {"status": "paused", "salt": "t", "platforms": ["ios", "android"], "variants": \#(variants)}}}}"#
        let bytes = Array(text.utf8)
        let full = BundleValidator.validate(document: try JSONDocument(bytes: bytes, options: JSONParseOptions(duplicateKeys: .record)))
        XCTAssertEqual(BundleValidator.validate(bytes: bytes), full)
        var options = JSONParseOptions(duplicateKeys: .record)
        options.unreadKeys = ["payload", "platforms"]
        options.unreadKeysFromDepth = 4
        let fullCount = try JSONDocument(bytes: bytes, options: JSONParseOptions(duplicateKeys: .record)).nodeCount
        // e2's platforms (2 values) and the first payload of each experiment (6 nodes each: on,
        // true, rows, [ ], 1, 2) go; the payload with the duplicate key stays whole.
        XCTAssertEqual(try JSONDocument(bytes: bytes, options: options).nodeCount, fullCount - 14)
    }
}
