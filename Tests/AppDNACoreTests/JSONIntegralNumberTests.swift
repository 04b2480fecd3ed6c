@testable import AppDNACore
import XCTest

/// JSON Schema's `integer` is a value: 10582.0 and 1.0582e4 are 10582 (schemathesis sends such
/// numbers to `api serve` for an event's `ts_ms`); a fraction or a value past Int64 is not one.
final class JSONIntegralNumberTests: XCTestCase {
    func testWholeValuesHoweverWritten() {
        let cases: [(String, Int64?)] = [("10582", 10582), ("10582.0", 10582), ("1.0582e4", 10582), ("1.0582E+4", 10582), ("-3.00", -3),
                                         ("0.0", 0), ("-0e5", 0), ("1e18", 1_000_000_000_000_000_000), ("123000e-3", 123),
                                         ("9223372036854775807.0", .max), ("-9223372036854775808", .min),
                                         ("1.5", nil), ("1e-1", nil), ("9223372036854775808", nil), ("1e19", nil), ("1e400", nil), ("1e-400", nil),
                                         ("12.01e1", nil)]
        for (text, expected) in cases {
            XCTAssertEqual(JSONNumber.integralInt64(text), expected, text)
        }
    }
}
