import XCTest
@testable import AppDNACore

/// Devices hash ids' UTF-8 bytes; Swift's `String ==` is canonical equivalence. An id that
/// changes only in Unicode normalisation (`café` U+00E9 → `cafe` + U+0301) is a new
/// experiment, salt or variant to every device, and `bundle diff` must say so.
final class ByteIdentityTests: XCTestCase {
    static let nfc = "caf\u{E9}", nfd = "cafe\u{301}"

    func testTheTwoSpellingsAreEqualToSwiftAndDifferentBytes() {
        XCTAssertEqual(Self.nfc, Self.nfd, "the premise: Swift's == is canonical equivalence")
        XCTAssertFalse(ByteIdentity.same(Self.nfc, Self.nfd))
        XCTAssertNotEqual(ByteKey(Self.nfc), ByteKey(Self.nfd))
        XCTAssertEqual(Set([ByteKey(Self.nfc), ByteKey(Self.nfd), ByteKey(Self.nfc)]).count, 2)
        XCTAssertEqual(ByteIdentity.normalisationDifference(Self.nfd, from: Self.nfc), "differs from café only in Unicode normalisation: NFD vs NFC")
        XCTAssertNil(ByteIdentity.normalisationDifference(Self.nfc, from: Self.nfc))
        XCTAssertNil(ByteIdentity.normalisationDifference("cafe", from: Self.nfc))
        XCTAssertTrue(ByteKey("a") < ByteKey("b") && ByteKey(Self.nfd) < ByteKey(Self.nfc), "byte order: 'e' (0x65) before 'é' (0xC3 0xA9)")
    }

    func testJSONObjectsKeepBothSpellingsAsTwoMembers() throws {
        let document = try JSONDocument(bytes: Array("{\"\(Self.nfc)\": 1, \"\(Self.nfd)\": 2}".utf8))
        let value = document.root.value
        guard case let .object(object) = value else { return XCTFail() }
        XCTAssertEqual(object.count, 2)
        XCTAssertEqual(object[Self.nfc], 1)
        XCTAssertEqual(object[Self.nfd], 2)
        XCTAssertEqual(JSONWriter().writeString(value), "{\"\(Self.nfc)\":1,\"\(Self.nfd)\":2}")
        XCTAssertNotEqual(JSONValue.string(Self.nfc), JSONValue.string(Self.nfd))
    }

    func bundle(experiment: String, salt: String = "s", variants: [String] = ["a", "b"], version: Int) -> String {
        let list = variants.map { "{\"id\": \"\($0)\", \"weight\": \(1.0 / Double(variants.count))}" }.joined(separator: ", ")
        return "{\"bundle_version\": \(version), \"experiments\": {\"\(experiment)\": {\"status\": \"running\", \"salt\": \"\(salt)\", \"variants\": [\(list)]}}}"
    }

    func diff(_ old: String, _ new: String) throws -> (BundleDiff, JSONDocument, JSONDocument) {
        let a = try JSONDocument(bytes: Array(old.utf8)), b = try JSONDocument(bytes: Array(new.utf8))
        return (BundleDiff(old: a.root, new: b.root), a, b)
    }

    func testAnExperimentRenamedOnlyInNormalisationIsRemovedAddedAndReRandomised() throws {
        let old = bundle(experiment: "\(Self.nfc)-exp", version: 1), new = bundle(experiment: "\(Self.nfd)-exp", version: 2)
        let (result, a, b) = try diff(old, new)
        let paths = result.changes.map { "\($0.kind) \($0.path)" }
        XCTAssertEqual(paths, ["replace /bundle_version", "remove /experiments/\(Self.nfc)-exp", "add /experiments/\(Self.nfd)-exp"])
        let kinds = result.notes.map(\.kind)
        XCTAssertEqual(kinds, [.experimentAdded, .saltChanged, .experimentRemoved])
        XCTAssertTrue(result.notes[0].message.contains("only in Unicode normalisation: NFD vs NFC"), result.notes[0].message)
        XCTAssertEqual(result.notes[1].share ?? 0, 0.5, accuracy: 0.01)
        // The gate sees it, as running in both: the old status is read under the old bytes.
        let shares = SwitchingShare.all(in: result, old: a.root, new: b.root)
        XCTAssertEqual(shares.count, 1)
        XCTAssertTrue(shares[0].running)
        XCTAssertTrue(shares[0].exceeds(percent: 10))
        // And the patch, applied to OLD, gives NEW.
        let patched = try IndependentPatch.apply(BundleDiffTests.patchValues(result.structure), to: JSONValue(parsing: Array(old.utf8)))
        XCTAssertTrue(IndependentPatch.same(patched, try JSONValue(parsing: Array(new.utf8))))
    }

    func testASaltReEncodedInNFDIsASaltChange() throws {
        let (result, a, b) = try diff(bundle(experiment: "e", salt: Self.nfc, version: 1), bundle(experiment: "e", salt: Self.nfd, version: 2))
        let salt = try XCTUnwrap(result.notes.first { $0.kind == .saltChanged })
        XCTAssertTrue(salt.message.contains("differs from café only in Unicode normalisation: NFD vs NFC"), salt.message)
        XCTAssertTrue(try XCTUnwrap(SwitchingShare.all(in: result, old: a.root, new: b.root).first).exceeds(percent: 10))
    }

    func testAVariantIdReEncodedInNFDIsAddedAndRemoved() throws {
        let (result, _, _) = try diff(bundle(experiment: "e", variants: ["a", Self.nfc], version: 1), bundle(experiment: "e", variants: ["a", Self.nfd], version: 2))
        let kinds = result.notes.map(\.kind)
        XCTAssertTrue(kinds.contains(.variantAdded) && kinds.contains(.variantRemoved) && kinds.contains(.assignmentChanged), "\(kinds)")
        XCTAssertTrue(result.notes.first { $0.kind == .variantAdded }!.message.contains("only in Unicode normalisation"))
        XCTAssertEqual(result.notes.first { $0.kind == .assignmentChanged }?.buckets, 5000)
    }
}
