import Foundation
import TestSupport
import XCTest
@testable import AppDNACore

/// The trait operators are one enum (issue 45.5): the names the bundle spells, read by bytes,
/// each with one meaning in the CLI and the warehouse SQL.
final class TraitOperatorTests: XCTestCase {
    func testEveryDocumentedOperatorIsACaseAndNothingElseIs() throws {
        XCTAssertEqual(TraitOperator.allCases.map(\.rawValue), ["eq", "neq", "in", "exists", "gt", "gte", "lt", "lte"])
        let docs = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/assignment-rules.md"), encoding: .utf8)
        for op in TraitOperator.allCases {
            XCTAssertTrue(docs.contains("`\(op.rawValue)`"), "docs/assignment-rules.md does not name \(op.rawValue)")
            XCTAssertEqual(TraitOperator(bundleName: op.rawValue), op)
        }
        // Not an operator: other cases, spaces, a canonically equivalent spelling, another script.
        for name in ["EQ", "Eq", " eq", "eq ", "e\u{0301}q", "ｅｑ", "", "=", "ne", "not_in", "exist", "gt\u{0}"] {
            XCTAssertNil(TraitOperator(bundleName: name), name)
        }
    }

    func testOrderingsHoldExactlyForTheirSigns() {
        let expected: [TraitOperator: [Bool]] = [.gt: [false, false, true], .gte: [false, true, true], .lt: [true, false, false], .lte: [true, true, false]]
        for op in TraitOperator.allCases {
            let signs = [-1, 0, 1].map(op.holds)
            XCTAssertEqual(signs, expected[op] ?? [false, false, false], "\(op)")
            XCTAssertEqual(op.orderSymbol != nil, expected[op] != nil, "\(op)")
        }
    }

    /// An unknown operator fails closed, in the CLI's rule and in its reason.
    func testAnUnknownOperatorFailsClosed() throws {
        let rule = try JSONValue(parsing: Array(#"{"trait": "plan", "operator": "EQ", "value": "pro"}"#.utf8))
        XCTAssertEqual(TraitRule.unsatisfiable(rule), "unknown operator 'EQ'")
        let context = UserContext(traits: [ByteKey("plan"): "pro"], traitsComplete: true)
        XCTAssertFalse(TraitRule.evaluate(rule, context: context).passed)
    }
}
