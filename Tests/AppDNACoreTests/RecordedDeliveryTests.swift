import XCTest
@testable import AppDNACore

/// The `listen --record` line format and the request-head parsing `listen` uses.
final class RecordedDeliveryTests: XCTestCase {
    func roundTrip(_ body: [UInt8], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let delivery = RecordedDelivery(receivedAt: "2026-02-19T10:00:00.123Z", method: "POST", target: "/hook?x=1",
                                        headers: [("Content-Type", "application/json"), ("X-Empty", ""), ("X-AppDNA-Signature", "sha256=ab")],
                                        body: body, valid: false)
        let encoded = delivery.jsonLine()
        XCTAssertEqual(encoded.last, 10, file: file, line: line)
        XCTAssertFalse(encoded.dropLast().contains(10), "one record, one line", file: file, line: line)
        let decoded = try RecordedDelivery.parse(line: Array(encoded.dropLast()))
        XCTAssertEqual(decoded.body, body, file: file, line: line)
        XCTAssertEqual(decoded.headers.map(\.name), ["Content-Type", "X-Empty", "X-AppDNA-Signature"], file: file, line: line)
        XCTAssertEqual(decoded.headers.map(\.value), ["application/json", "", "sha256=ab"], file: file, line: line)
        XCTAssertEqual(decoded.header("x-appdna-signature"), "sha256=ab", file: file, line: line)
        XCTAssertEqual(decoded.target, "/hook?x=1", file: file, line: line)
        XCTAssertEqual(decoded.valid, false, file: file, line: line)
        return String(decoding: encoded, as: UTF8.self)
    }

    func testBodiesComeBackByteForByte() throws {
        // UTF-8 bodies are kept as a string, whatever they contain.
        let text = try roundTrip(Array("{\"a\":\"é\u{2028}\\n\"}\n\r\n\u{0}\t\u{1F600}".utf8))
        XCTAssertTrue(text.contains("\"body\":"))
        // Anything else as base64.
        XCTAssertTrue(try roundTrip([0xFF, 0xFE, 0x00, 0xC3]).contains("\"body_base64\":\"//4Aww==\""))
        XCTAssertTrue(try roundTrip([]).contains("\"body\":\"\""))
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            _ = try roundTrip((0..<Int.random(in: 0..<300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
    }

    func testMalformedRecordsAreReported() {
        for (line, expected) in [("{", "not JSON"), ("{\"method\":\"POST\"}", "not a recorded delivery"),
                                 (#"{"method":"POST","target":"/","headers":[["a"]],"body":""}"#, "[name, value]"),
                                 (#"{"method":"POST","target":"/","headers":[]}"#, "neither body nor body_base64")] {
            XCTAssertThrowsError(try RecordedDelivery.parse(line: Array(line.utf8))) { error in
                XCTAssertTrue((error as! Failure).message.contains(expected), "\(line): \(error)")
            }
        }
    }

    func testRequestHeadGivesTheFramingBeforeTheBodyArrives() throws {
        let text = "POST /w HTTP/1.1\r\nContent-Length: 120\r\nX-AppDNA-Event: a.b\r\n\r\n"
        let head = try RawHTTPRequest.parseHead(Array(text.utf8))
        XCTAssertEqual(head.framing, .contentLength(120))
        XCTAssertEqual(head.value(of: "x-appdna-event"), "a.b")
        XCTAssertEqual(head.bodyOffset, text.utf8.count)
        XCTAssertEqual(try RawHTTPRequest.parseHead(Array("POST / HTTP/1.1\nTransfer-Encoding: chunked\n\n".utf8)).framing, .chunked)
        XCTAssertEqual(try RawHTTPRequest.parseHead(Array("GET / HTTP/1.1\r\n\r\n".utf8)).framing, .untilEnd)
        XCTAssertThrowsError(try RawHTTPRequest.parseHead(Array("POST / HTTP/1.1\r\nContent-Length: x\r\n\r\n".utf8)))
        XCTAssertThrowsError(try RawHTTPRequest.parseHead(Array("BAD METHOD / HTTP/1.1\r\n\r\n".utf8)))
    }

    func testEveryDocumentedTypeHasAWellFormedDemoBody() throws {
        XCTAssertEqual(Set(WebhookEventCatalog.all.map(\.name)).count, WebhookEventCatalog.all.count)
        for type in WebhookEventCatalog.all {
            let body = WebhookEventCatalog.body(type: type.name, id: WebhookEventCatalog.demoID(type.name),
                                                createdAt: WebhookEventCatalog.demoTime, data: type.data)
            XCTAssertEqual(WebhookBodyShape.check(body), [], type.name)
            XCTAssertEqual(WebhookBodyShape.eventType(body), type.name)
        }
        XCTAssertEqual(WebhookEventCatalog.demoID("paywall.purchase_completed"), "evt_demo_paywall_purchase_completed")
    }
}
