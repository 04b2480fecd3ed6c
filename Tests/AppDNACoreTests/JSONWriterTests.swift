import XCTest
@testable import AppDNACore

final class JSONWriterTests: XCTestCase {
    let sample: JSONValue = ["b": [1, 2.5, "x"], "a": ["nested": true, "empty": [], "none": [:]], "c": nil]

    func testCompactKeepsOrder() {
        XCTAssertEqual(JSONWriter().writeString(sample), #"{"b":[1,2.5,"x"],"a":{"nested":true,"empty":[],"none":{}},"c":null}"#)
    }

    func testSortKeysByUTF8Bytes() {
        let value: JSONValue = ["b": 1, "B": 2, "é": 3, "a": ["z": 1, "y": 2], "aa": 4]
        XCTAssertEqual(JSONWriter(sortKeys: true).writeString(value), #"{"B":2,"a":{"y":2,"z":1},"aa":4,"b":1,"é":3}"#)
    }

    func testPretty() {
        let expected = """
        {
          "b": [
            1,
            2.5,
            "x"
          ],
          "a": {
            "nested": true,
            "empty": [],
            "none": {}
          },
          "c": null
        }
        """
        XCTAssertEqual(JSONWriter(indent: 2).writeString(sample), expected)
        XCTAssertEqual(JSONWriter(indent: 4).writeString([1]), "[\n    1\n]")
        XCTAssertEqual(JSONWriter(indent: 2).writeString("s"), "\"s\"")
    }

    func testEscaping() {
        let s = "q\" b\\ / \n\r\t\u{8}\u{C}\u{0}\u{1F}\u{7F} é 🚀"
        XCTAssertEqual(JSONWriter().writeString(.string(s)), #""q\" b\\ / \n\r\t\b\f\u0000\u001f\u007f é 🚀""#, "DEL as an escape too: nothing in JSON output acts on a terminal")
        XCTAssertEqual(JSONWriter(escapesInvisible: false).writeString(.string("\u{7F}")), "\"\u{7F}\"")
        XCTAssertEqual(try JSONValue(parsing: JSONWriter().write(.string(s))), .string(s))
        XCTAssertEqual(JSONWriter().writeString(["\n": 1]), #"{"\n":1}"#)
    }

    func testRoundTripToCanonicalForm() throws {
        let text = """
        \u{FEFF}{ "z" : [ 1.50 , -0 , 1e400 , 123456789012345678901234567890 ] ,
          "a" : { "\\u00e9\\/" : "x\\u0041\\ud83d\\ude80" , "e" : { } , "f" : [ ] } , "t" : true , "n" : null }
        """
        let value = try parse(text).root.value
        let canonical = #"{"z":[1.50,-0,1e400,123456789012345678901234567890],"a":{"é/":"xA🚀","e":{},"f":[]},"t":true,"n":null}"#
        XCTAssertEqual(compact(value), canonical)
        XCTAssertEqual(try JSONValue(parsing: JSONWriter().write(value)), value)
        XCTAssertEqual(try JSONValue(parsing: JSONWriter(indent: 2, sortKeys: true).write(value)).kind, .object)
        XCTAssertEqual(compact(try JSONValue(parsing: JSONWriter(indent: 3).write(value))), canonical)
    }

    func testDeterministic() {
        var object = JSONObject()
        for i in (0..<50).reversed() { object["k\(i)"] = .number(JSONNumber(i)) }
        let a = JSONWriter(sortKeys: true).write(.object(object))
        let b = JSONWriter(sortKeys: true).write(.object(object))
        XCTAssertEqual(a, b)
    }
}

final class JSONValueTests: XCTestCase {
    func testNumberFromDouble() {
        XCTAssertEqual(JSONNumber(1.0).text, "1.0")
        XCTAssertEqual(JSONNumber(0.1).text, "0.1")
        XCTAssertEqual(JSONNumber(-0.0).text, "-0.0")
        XCTAssertEqual(JSONNumber(1e-5).text, "1e-5")
        XCTAssertEqual(JSONNumber(1e20).text, "1e20")
        XCTAssertEqual(JSONNumber(Double.leastNonzeroMagnitude).text, "5e-324")
        XCTAssertEqual(JSONNumber(Double.greatestFiniteMagnitude).text, "1.7976931348623157e308")
        XCTAssertNil(JSONNumber.finite(.nan))
        XCTAssertNil(JSONNumber.finite(.infinity))
        var rng = SplitMix64(seed: 7)
        for _ in 0..<2000 {
            let d = Double(bitPattern: rng.next())
            guard d.isFinite else { continue }
            let n = JSONNumber(d)
            XCTAssertNotNil(JSONNumber(text: n.text), n.text)
            XCTAssertEqual(Double(n.text), d, n.text)
        }
    }

    func testNumberTextValidation() {
        for good in ["0", "-0", "1.5", "1e5", "1E-5", "-12.34e+56", "123456789012345678901234567890"] {
            XCTAssertEqual(JSONNumber(text: good)?.text, good)
        }
        for bad in ["", "-", "+1", "01", "1.", ".5", "1e", "1e+", "NaN", "Infinity", " 1", "1 ", "0x10", "1_000"] {
            XCTAssertNil(JSONNumber(text: bad), bad)
        }
        XCTAssertEqual(JSONNumber(42).text, "42")
        XCTAssertEqual(JSONNumber(text: "9223372036854775807")?.int64, Int64.max)
        XCTAssertNil(JSONNumber(text: "1.0")?.int64)
        XCTAssertEqual(JSONNumber(text: "1.0")?.double, 1)
    }

    func testObjectKeepsOrderAndEdits() {
        var o: JSONObject = ["b": 1, "a": 2]
        o["c"] = 3
        o["b"] = 10
        XCTAssertEqual(o.keys, ["b", "a", "c"])
        XCTAssertEqual(o["b"], 10)
        XCTAssertEqual(o.removeValue(forKey: "b"), 10)
        XCTAssertNil(o.removeValue(forKey: "zz"))
        XCTAssertEqual(o.keys, ["a", "c"])
        XCTAssertEqual(o["c"], 3)
        o.append(key: "a", value: "moved")
        XCTAssertEqual(o.keys, ["c", "a"])
        o["c"] = nil
        XCTAssertEqual(o.keys, ["a"])
        XCTAssertEqual(o.count, 1)
        XCTAssertNotEqual(JSONValue.object(["a": 1, "b": 2]), JSONValue.object(["b": 2, "a": 1]), "order is part of the value")
    }
}

final class JSONPointerTests: XCTestCase {
    func testParsingAndEscaping() throws {
        XCTAssertEqual(try JSONPointer(parsing: "").tokens, [])
        XCTAssertEqual(try JSONPointer(parsing: "/").tokens, [""])
        XCTAssertEqual(try JSONPointer(parsing: "/a~1b/~0/0//x").tokens, ["a/b", "~", "0", "", "x"])
        XCTAssertEqual(try JSONPointer(parsing: "/~01").tokens, ["~1"])
        XCTAssertEqual(JSONPointer.root.description, "")
        XCTAssertEqual(JSONPointer.root.appending(key: "a/b").appending(index: 3).appending(key: "~").description, "/a~1b/3/~0")
        for text in ["", "/", "/a~1b/~0/0//x", "/~01", "/é/🚀"] {
            XCTAssertEqual(try JSONPointer(parsing: text).description, text)
        }
    }

    func testErrors() {
        XCTAssertThrowsError(try JSONPointer(parsing: "a")) { error in
            XCTAssertEqual((error as? JSONPointerError)?.message, "invalid JSON pointer \"a\": must be empty or start with '/'")
        }
        XCTAssertThrowsError(try JSONPointer(parsing: "/a~2"))
        XCTAssertThrowsError(try JSONPointer(parsing: "/a~"))
        XCTAssertEqual((try? JSONPointer(parsing: "x"))?.tokens, nil)
    }
}
