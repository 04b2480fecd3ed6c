import Foundation
import XCTest
@testable import AppDNACore

final class JSONDuplicateKeyTests: XCTestCase {
    private let record = JSONParseOptions(duplicateKeys: .record)

    func testRecordListsEveryDuplicateWithPointerAndLocations() throws {
        let text = """
        {
          "a": 1,
          "list": [0, {"x": 1, "y": 2, "x": 3}],
          "a": 4,
          "a/b": {"~": 1, "~": 2}
        }
        """
        let doc = try parse(text, options: record)
        XCTAssertEqual(doc.duplicateKeys.count, 3)
        XCTAssertEqual(doc.duplicateKeys.map(\.key), ["x", "a", "~"])
        XCTAssertEqual(doc.duplicateKeys.map(\.objectPointer.description), ["/list/1", "", "/a~1b"])
        XCTAssertEqual(doc.duplicateKeys[0].first, SourceLocation(line: 3, column: 16))
        XCTAssertEqual(doc.duplicateKeys[0].duplicate, SourceLocation(line: 3, column: 32))
        XCTAssertEqual(doc.duplicateKeys[1].first, SourceLocation(line: 2, column: 3))
        XCTAssertEqual(doc.duplicateKeys[1].duplicate, SourceLocation(line: 4, column: 3))
        // The last value wins for lookups and for the owned copy, at the first position.
        XCTAssertEqual(doc.root["a"]?.int64, 4)
        XCTAssertEqual(doc.root.count, 4)
        XCTAssertEqual(compact(doc.root.value), #"{"a":4,"list":[0,{"x":3,"y":2}],"a/b":{"~":2}}"#)
    }

    func testThirdOccurrencePointsAtTheFirst() throws {
        let doc = try parse(#"{"k":1,"k":2,"k":3}"#, options: record)
        XCTAssertEqual(doc.duplicateKeys.map(\.firstByteOffset), [1, 1])
        XCTAssertEqual(doc.duplicateKeys.map(\.duplicateByteOffset), [7, 13])
    }

    func testNoDuplicatesRecordsNothing() throws {
        XCTAssertEqual(try parse(#"{"a":1,"b":{"a":2}}"#, options: record).duplicateKeys, [])
    }

    /// Beyond the linear-scan limit the parser switches to a hash table; both must agree.
    func testDuplicatesFoundInLargeObjects() throws {
        for size in [15, 16, 17, 40, 1000] {
            for duplicateOf in [0, size / 2, size - 1] {
                var members = (0..<size).map { "\"key\($0)\": \($0)" }
                members.append("\"key\(duplicateOf)\": -1")
                let text = "{" + members.joined(separator: ",") + "}"
                let error = syntaxError(text)
                XCTAssertEqual(error?.reason, .duplicateKey(key: "key\(duplicateOf)", firstAt: try XCTUnwrap(
                    try parse("{" + members.dropLast().joined(separator: ",") + "}").root["key\(duplicateOf)"]).locationOfKey),
                               "size \(size) duplicate of \(duplicateOf)")
                XCTAssertEqual(try parse(text, options: record).duplicateKeys.count, 1)
            }
        }
    }

    func testEscapedKeysInLargeObjectsCompareByValue() throws {
        var members = (0..<100).map { "\"k\($0)\": 0" }
        members.append("\"\\u006b50\": 1")  // "k50" spelled with an escape
        XCTAssertEqual(syntaxError("{" + members.joined(separator: ",") + "}")?.reason,
                       .duplicateKey(key: "k50", firstAt: SourceLocation(line: 1, column: 2 + (0..<50).map { "\"k\($0)\": 0,".count }.reduce(0, +))))
    }

    /// (That duplicate detection is not quadratic is timed by bench/bundle.sh: `bundle validate`
    /// of the many-small shape, about 80,000 experiments in one object, at 25 and 50 MB.)
    func testHundredThousandKeysParseAndADuplicateAmongThemIsFound() throws {
        var text = "{"
        for i in 0..<100_000 { text += (i == 0 ? "" : ",") + "\"key-\(i)\":\(i)" }
        text += "}"
        let doc = try parse(text)
        XCTAssertEqual(doc.root.count, 100_000)
        XCTAssertEqual(doc.root["key-99999"]?.int64, 99_999)
        let error = syntaxError(String(text.dropLast()) + ",\"key-4242\":0}")
        XCTAssertEqual(error?.reason, .duplicateKey(key: "key-4242", firstAt: doc.root.members.first { $0.key == "key-4242" }!.keyNode.location))
    }
}

extension JSONNode {
    /// The location of the key naming this value (the tape puts it just before the value).
    var locationOfKey: SourceLocation { JSONNode(document: document, index: index - 1).location }
}
