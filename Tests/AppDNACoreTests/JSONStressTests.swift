import Foundation
import XCTest
@testable import AppDNACore

final class JSONStressTests: XCTestCase {
    func testHundredThousandNestedArraysIsACleanError() {
        let bytes = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        let error = syntaxError(bytes)
        XCTAssertEqual(error?.reason, .tooDeep(limit: 1000))
        XCTAssertEqual(error?.byteOffset, 1000)
        XCTAssertEqual(syntaxError(String(repeating: "{\"a\":", count: 100_000))?.reason, .tooDeep(limit: 1000))
    }

    /// The parser itself is iterative: with the limit lifted, 100,000 levels parse.
    func testHundredThousandLevelsParseWhenAllowed() throws {
        let depth = 100_000
        let bytes = [UInt8](repeating: UInt8(ascii: "["), count: depth) + [UInt8](repeating: UInt8(ascii: "]"), count: depth)
        let document = try JSONDocument(bytes: bytes, options: JSONParseOptions(maxDepth: depth))
        XCTAssertEqual(document.nodeCount, depth)
        XCTAssertEqual(document.root.byteRange, 0..<(2 * depth))
        let unclosed = syntaxError([UInt8](bytes.dropLast()), options: JSONParseOptions(maxDepth: depth))
        XCTAssertEqual(unclosed?.reason, .unexpectedEndOfInput(expected: "',' or ']' after an array element", open: .array(SourceLocation(line: 1, column: 1))))
    }

    func testLargeStrings() throws {
        let plain = String(repeating: "abcdefghij", count: 500_000)
        XCTAssertEqual(try parse("\"\(plain)\"").root.string, plain)
        let unit = "x\\n\\u00e9é🚀\\ud83d\\ude80\\\"q"
        let decodedUnit = "x\né" + "é🚀🚀\"q"
        let document = try parse("[\"" + String(repeating: unit, count: 100_000) + "\"]")
        XCTAssertEqual(document.root[0]?.string, String(repeating: decodedUnit, count: 100_000))
        // An error deep inside a large string still gets its exact position.
        let error = syntaxError("\"" + plain + "\u{1}\"")
        XCTAssertEqual(error?.column, plain.count + 2)
    }

    func testManyLinesLocations() throws {
        let text = "[\n" + (0..<20_000).map { "  \($0)" }.joined(separator: ",\n") + "\n]"
        let document = try parse(text)
        XCTAssertEqual(document.root[19_999]?.location, SourceLocation(line: 20_001, column: 3))
        XCTAssertEqual(document.root[0]?.location, SourceLocation(line: 2, column: 3))
    }
}
