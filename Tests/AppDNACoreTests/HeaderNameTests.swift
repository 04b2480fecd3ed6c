import XCTest
import AppDNACore

/// `HeaderName`: the one case-insensitive header lookup every header list uses.
final class HeaderNameTests: XCTestCase {
    let headers: [(name: String, value: String)] = [
        ("Content-Type", "application/json"), ("X-AppDNA-Event", "first"), ("x-appdna-event", "second"), ("X-Other", "o"),
    ]

    func testFirstFindsTheEarliestHeaderWhateverTheCase() {
        XCTAssertEqual(HeaderName.first("X-APPDNA-EVENT", in: headers, nameOf: \.name)?.value, "first")
        XCTAssertEqual(HeaderName.first("content-type", in: headers, nameOf: \.name)?.value, "application/json")
        XCTAssertNil(HeaderName.first("X-AppDNA", in: headers, nameOf: \.name), "a prefix is another name")
    }

    func testAllKeepsEveryMatchInOrder() {
        XCTAssertEqual(HeaderName.all("x-AppDNA-event", in: headers, nameOf: \.name).map(\.value), ["first", "second"])
        XCTAssertEqual(HeaderName.all("missing", in: headers, nameOf: \.name).count, 0)
    }

    func testSameComparesNamesCaseInsensitively() {
        XCTAssertTrue(HeaderName.same("X-AppDNA-Signature", "x-appdna-signature"))
        XCTAssertFalse(HeaderName.same("X-AppDNA-Signature", "X-AppDNA-Signature2"))
    }

    func testTheHeaderListsOfTheToolUseIt() throws {
        let request = try RawHTTPRequest.parse(Array("POST / HTTP/1.1\r\ncontent-length: 2\r\nX-A: 1\r\nx-a: 2\r\n\r\n{}".utf8))
        XCTAssertEqual(request.values(of: "X-a"), ["1", "2"])
        XCTAssertEqual(request.value(of: "X-A"), "1")
        XCTAssertEqual(request.framing, .contentLength(2), "Content-Length found under any case")
        let delivery = RecordedDelivery(receivedAt: "t", method: "POST", target: "/", headers: headers, body: [], valid: nil)
        XCTAssertEqual(delivery.header("X-APPDNA-EVENT"), "first")
    }
}
