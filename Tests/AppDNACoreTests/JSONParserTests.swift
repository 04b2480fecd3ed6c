import XCTest
@testable import AppDNACore

final class JSONParserTests: XCTestCase {
    func testScalars() throws {
        XCTAssertEqual(try parse("null").root.kind, .null)
        XCTAssertEqual(try parse("true").root.bool, true)
        XCTAssertEqual(try parse(" false ").root.bool, false)
        XCTAssertEqual(try parse("\"hi\"").root.string, "hi")
        XCTAssertEqual(try parse("-12").root.int64, -12)
        XCTAssertEqual(try parse("0").root.int64, 0)
        XCTAssertEqual(try parse("2.5e3").root.double, 2500)
        XCTAssertNil(try parse("1").root.string)
        XCTAssertNil(try parse("\"1\"").root.int64)
    }

    func testExactNumberText() throws {
        let doc = try parse(#"[1.0, -0, 1e400, 123456789012345678901234567890, 1E+2, -0.000e-0]"#)
        let texts = doc.root.elements.map { $0.numberText }
        XCTAssertEqual(texts, ["1.0", "-0", "1e400", "123456789012345678901234567890", "1E+2", "-0.000e-0"])
        XCTAssertEqual(compact(doc.root.value), "[1.0,-0,1e400,123456789012345678901234567890,1E+2,-0.000e-0]")
        let nodes = Array(doc.root.elements)
        XCTAssertFalse(nodes[0].isInteger)
        XCTAssertTrue(nodes[1].isInteger)
        XCTAssertNil(nodes[0].int64, "1.0 has a fraction in its text")
        XCTAssertEqual(nodes[1].int64, 0)
        XCTAssertNil(nodes[2].double, "1e400 is not a finite Double")
        XCTAssertNil(nodes[3].int64, "too large for Int64; never rounded")
        XCTAssertEqual(nodes[4].double, 100)
    }

    func testInt64Bounds() throws {
        XCTAssertEqual(try parse("9223372036854775807").root.int64, Int64.max)
        XCTAssertEqual(try parse("-9223372036854775808").root.int64, Int64.min)
        XCTAssertNil(try parse("9223372036854775808").root.int64)
    }

    func testStringsAndEscapes() throws {
        let doc = try parse(#"["a\"b\\c\/d\b\f\n\r\t", "\u00e9\u65E5", "\ud83d\ude80", "café 日本 🚀", ""]"#)
        let strings = doc.root.elements.map { $0.string }
        XCTAssertEqual(strings, ["a\"b\\c/d\u{8}\u{c}\n\r\t", "é日", "🚀", "café 日本 🚀", ""])
    }

    func testKeyOrderAndLookup() throws {
        let doc = try parse(#"{"z": 1, "a": {"y": [true, null]}, "m": "x", "e\u0073c": 2}"#)
        XCTAssertEqual(doc.root.members.map(\.key), ["z", "a", "m", "esc"])
        XCTAssertEqual(doc.root.count, 4)
        XCTAssertEqual(doc.root["m"]?.string, "x")
        XCTAssertEqual(doc.root["esc"]?.int64, 2)
        XCTAssertNil(doc.root["missing"])
        XCTAssertEqual(doc.root["a"]?["y"]?[1]?.kind, .null)
        XCTAssertEqual(doc.root["a"]?["y"]?[0]?.bool, true)
        XCTAssertNil(doc.root["a"]?["y"]?[2])
        XCTAssertNil(doc.root["a"]?["y"]?[-1])
        XCTAssertEqual(doc.root["a"]?["y"]?.count, 2)
        XCTAssertEqual(compact(doc.root.value), #"{"z":1,"a":{"y":[true,null]},"m":"x","esc":2}"#)
    }

    func testSiblingsSkipWholeSubtrees() throws {
        let doc = try parse(#"[[1,[2,[3]]],{"a":{"b":{}}},[],4]"#)
        XCTAssertEqual(doc.root.count, 4)
        XCTAssertEqual(doc.root.elements.map(\.kind), [.array, .object, .array, .number])
        XCTAssertEqual(doc.root[3]?.int64, 4)
        XCTAssertEqual(doc.root[2]?.count, 0)
    }

    func testByteRangesAndLocations() throws {
        let text = "{\n  \"k\": [1, \"é\", true],\n  \"é\": \"x\"\n}"
        let doc = try parse(text)
        let array = doc.root["k"]!
        XCTAssertEqual(array.byteRange, 9..<24)
        XCTAssertEqual(array.location, SourceLocation(line: 2, column: 8))
        XCTAssertEqual(array[2]!.location, SourceLocation(line: 2, column: 17))
        XCTAssertEqual(doc.root["é"]!.location, SourceLocation(line: 3, column: 8))
        XCTAssertEqual(doc.root.members.map(\.keyNode.location), [SourceLocation(line: 2, column: 3), SourceLocation(line: 3, column: 3)])
        XCTAssertEqual(doc.location(ofByteOffset: Array(text.utf8).count), SourceLocation(line: 4, column: 2))
    }

    func testByteOrderMarkIsSkippedAndRecorded() throws {
        let doc = try JSONDocument(bytes: [0xEF, 0xBB, 0xBF] + Array("\n [1]".utf8))
        XCTAssertTrue(doc.hadByteOrderMark)
        XCTAssertEqual(doc.root.count, 1)
        XCTAssertEqual(doc.root.location, SourceLocation(line: 2, column: 2))
        XCTAssertFalse(try parse("[]").hadByteOrderMark)
        let error = syntaxError([0xEF, 0xBB, 0xBF] + Array("x".utf8))
        XCTAssertEqual(error?.byteOffset, 3)
        XCTAssertEqual(error?.location, SourceLocation(line: 1, column: 1))
    }

    func testValueConversionAndPointerResolution() throws {
        let doc = try parse(#"{"a/b": [0, {"m~n": "deep"}], "": 1}"#)
        XCTAssertEqual(doc.root.resolve(try JSONPointer(parsing: "/a~1b/1/m~0n"))?.string, "deep")
        XCTAssertEqual(doc.root.resolve(try JSONPointer(parsing: "/"))?.int64, 1)
        XCTAssertEqual(doc.root.resolve(.root)?.kind, .object)
        XCTAssertNil(doc.root.resolve(try JSONPointer(parsing: "/a~1b/01")))
        XCTAssertNil(doc.root.resolve(try JSONPointer(parsing: "/a~1b/-")))
        XCTAssertNil(doc.root.resolve(try JSONPointer(parsing: "/a~1b/2")))
        XCTAssertNil(doc.root.resolve(try JSONPointer(parsing: "/a~1b/0/x")))
        let value: JSONValue = ["a/b": [0, ["m~n": "deep"]], "": 1]
        XCTAssertEqual(doc.root.value, value)
        XCTAssertEqual(try JSONValue(parsing: Array(#"{"a/b":[0,{"m~n":"deep"}],"":1}"#.utf8)), value)
    }

    func testMaxDepthOption() throws {
        XCTAssertNoThrow(try parse(String(repeating: "[", count: 1000) + String(repeating: "]", count: 1000)))
        let error = syntaxError(String(repeating: "[", count: 1001) + String(repeating: "]", count: 1001))
        XCTAssertEqual(error?.reason, .tooDeep(limit: 1000))
        XCTAssertEqual(error?.byteOffset, 1000)
        XCTAssertNoThrow(try parse(#"{"a":{"b":1}}"#, options: JSONParseOptions(maxDepth: 2)))
        XCTAssertEqual(syntaxError(#"{"a":{"b":[]}}"#, options: JSONParseOptions(maxDepth: 2))?.column, 11)
    }

    func testErrorIsClassifiedAsMalformedInput() {
        let error = syntaxError("[1,]")
        XCTAssertEqual(error?.kind, .malformedInput)
        XCTAssertEqual(error?.message, "line 1, column 4: expected a value after ',', found ']'")
    }
}
