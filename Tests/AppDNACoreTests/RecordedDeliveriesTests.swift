import XCTest
@testable import AppDNACore

/// A record file as replay reads it: each line a delivery or a skip with its line number; a
/// record whose method, target or headers cannot go on the wire as they are is skipped; a torn
/// last line costs that line only.
final class RecordedDeliveriesTests: XCTestCase {
    func line(method: String = "POST", target: String = "/hook", headers: [(String, String)] = [("Content-Type", "application/json")]) -> String {
        String(decoding: RecordedDelivery(receivedAt: "t", method: method, target: target, headers: headers, body: Array("{}".utf8), valid: true)
                .jsonLine().dropLast(), as: UTF8.self)
    }

    func testBadRecordsAreSkippedWithTheirLineNumbers() {
        let lines = [
            line(),
            line(headers: [("X-Note", "a\r\nX-Smuggled: 1")]),
            "not json",
            "",
            line(method: "GET / HTTP/1.1\r\n\r\nPOST"),
            line(target: "/a b"),
            line(headers: [("X Bad", "v")]),
            line(headers: [("X-Esc", "\u{1B}[2J")]),
            line(),
        ]
        let contents = RecordedDeliveries(fileBytes: Array((lines.joined(separator: "\n") + "\n").utf8))
        XCTAssertEqual(contents.deliveries.map(\.line), [1, 9])
        XCTAssertEqual(contents.skipped.map(\.line), [2, 3, 5, 6, 7, 8])
        XCTAssertFalse(contents.skipped.contains(where: \.torn))
        XCTAssertEqual(contents.skipped[0].reason, "the value of 'X-Note' holds a bare CR")
        XCTAssertEqual(contents.skipped[2].reason, "the method 'GET / HTTP/1.1????POST' is not a token")
        XCTAssertEqual(contents.skipped[3].reason, "the request target holds a space")
    }

    func testATornLastLineIsSkippedAndNamedTorn() {
        let complete = line()
        let torn = RecordedDeliveries(fileBytes: Array((complete + "\n" + complete + "\n" + complete.prefix(30)).utf8))
        XCTAssertEqual(torn.deliveries.count, 2)
        XCTAssertEqual(torn.skipped, [.init(line: 3, reason: "the file ends inside this record (torn: the listener was stopped or the disk filled while writing it)", torn: true)])
        // A last line without its newline that is whole is a record all the same (a hand-edited file).
        XCTAssertEqual(RecordedDeliveries(fileBytes: Array(complete.utf8)).deliveries.count, 1)
        let empty = RecordedDeliveries(fileBytes: [])
        XCTAssertTrue(empty.deliveries.isEmpty && empty.skipped.isEmpty)
    }
}
