import XCTest
@testable import AppDNACore

/// Variant ids repeat only when their code points do (NFC and NFD spellings are different ids),
/// with a few variants (the list) and with many (the dictionary); and several experiments in a
/// row (the validator reuses its buffers between them) do not see each other's ids.
final class BundleVariantIDTests: XCTestCase {
    private func codes(_ variantLists: [[String]]) -> [String] {
        var experiments: [String] = []
        for (n, ids) in variantLists.enumerated() {
            let weight = 1.0 / Double(ids.count)
            let variants = ids.map { #"{"id": "\#($0)", "weight": \#(weight)}"# }.joined(separator: ", ")
            experiments.append(#""e\#(n)": {"status": "running", "salt": "s", "variants": [\#(variants)]}"#)
        }
        let text = #"{"bundle_version": 1, "experiments": {\#(experiments.joined(separator: ", "))}}"#
        return BundleValidator.validate(bytes: Array(text.utf8)).filter { $0.rule == .duplicateVariantID }.map { "\($0.pointer)" }
    }

    func testRepeatedIDsAreFoundByCodePoints() {
        XCTAssertEqual(codes([["a", "b", "a"]]), ["/experiments/e0/variants/2/id"])
        XCTAssertEqual(codes([["\u{E9}", "e\u{301}"]]), [], "NFC and NFD are different ids")
        XCTAssertEqual(codes([["a", "b"], ["a", "b"]]), [], "ids of the previous experiment do not count")
        let many = (0..<20).map { "v\($0)" } + ["v3", "v19"]
        XCTAssertEqual(codes([many]), ["/experiments/e0/variants/20/id", "/experiments/e0/variants/21/id"])
        XCTAssertEqual(codes([many, ["v3", "v3"]]), ["/experiments/e0/variants/20/id", "/experiments/e0/variants/21/id", "/experiments/e1/variants/1/id"])
    }
}
