import XCTest
@testable import AppDNACore

final class WebhookRequestDumpTests: XCTestCase {
    let body = #"{"id":"evt-1","type":"webhook.test","created_at":"2026-02-19T10:00:00Z","data":{}}"#
    let signature = "sha256=71628b85afbc57bb4de81422809534ae822ed79d64aa043d57b45a2dd78694a3"

    func parse(_ text: String) throws(RequestDumpError) -> RawHTTPRequest { try RawHTTPRequest.parse(Array(text.utf8)) }

    func error(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> RequestDumpError? {
        do {
            _ = try parse(text)
            XCTFail("should not parse", file: file, line: line)
            return nil
        } catch {
            XCTAssertEqual(error.kind, .malformedInput, file: file, line: line)
            return error
        }
    }

    func testContentLengthWithCRLFVerifiesFixture() throws {
        let dump = "POST /hooks HTTP/1.1\r\nHost: example.com\r\nX-AppDNA-Signature: \(signature)\r\nx-appdna-signature: second\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        let request = try parse(dump)
        XCTAssertEqual(request.method, "POST")
        XCTAssertEqual(request.target, "/hooks")
        XCTAssertEqual(request.version, "HTTP/1.1")
        XCTAssertEqual(request.body, Array(body.utf8))
        XCTAssertEqual(request.framing, .contentLength(body.utf8.count))
        XCTAssertEqual(request.extraBytesAfterBody, 0)
        XCTAssertEqual(request.values(of: "X-APPDNA-SIGNATURE"), [signature, "second"])
        XCTAssertEqual(request.value(of: "host"), "example.com")
        XCTAssertEqual(request.headers[1].line, 3)
        let secret = try WebhookSecret("whsec_test_secret", source: "test")
        let result = try request.body.withUnsafeBytes {
            try WebhookVerifier.verify(body: $0, signature: try WebhookSignature.parse(request.value(of: "x-appdna-signature")!), secrets: [secret])
        }
        XCTAssertTrue(result.isValid)
    }

    func testBareLFAndExtraBytesReported() throws {
        let request = try parse("POST / HTTP/1.1\nContent-Length: 3\n\nabc\n")
        XCTAssertEqual(request.body, Array("abc".utf8))
        XCTAssertEqual(request.extraBytesAfterBody, 1)
        XCTAssertEqual(request.bodyOffset, 35)
    }

    func testNoLengthMeansRestOfInput() throws {
        let request = try parse("POST / HTTP/1.1\r\nA: b\r\n\r\nline1\r\nline2\r\n")
        XCTAssertEqual(request.framing, .untilEnd)
        XCTAssertEqual(request.body, Array("line1\r\nline2\r\n".utf8))
        XCTAssertEqual(try parse("POST / HTTP/1.1\r\n\r\n").body, [])
    }

    func testFoldedHeaderAndBinaryBody() throws {
        var dump = Array("POST / HTTP/1.1\r\nX-Long: a\r\n  b\r\nContent-Length: 4\r\n\r\n".utf8)
        dump += [0x00, 0xff, 0x0d, 0x0a]
        let request = try RawHTTPRequest.parse(dump)
        XCTAssertEqual(request.value(of: "x-long"), "a b")
        XCTAssertEqual(request.body, [0x00, 0xff, 0x0d, 0x0a])
    }

    func testChunkedWithExtensionsAndTrailers() throws {
        let dump = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 999\r\n\r\n5;name=value\r\nhello\r\nA\r\n, world!!!\r\n0\r\nX-Trailer: yes\r\n\r\n"
        let request = try parse(dump)
        XCTAssertEqual(request.framing, .chunked)
        XCTAssertEqual(String(decoding: request.body, as: UTF8.self), "hello, world!!!")
        XCTAssertEqual(request.trailers.map(\.name), ["X-Trailer"])
        XCTAssertEqual(request.extraBytesAfterBody, 0)
        // Bare LF framing and a dump that stops right after the last chunk are accepted too.
        XCTAssertEqual(try parse("POST / HTTP/1.1\nTransfer-Encoding: chunked\n\n3\nabc\n0\n").body, Array("abc".utf8))
    }

    func testMissingBlankLine() throws {
        let failure = try XCTUnwrap(error("POST / HTTP/1.1\r\nContent-Length: 3"))
        XCTAssertTrue(failure.message.contains("not followed by a blank line"), failure.message)
        XCTAssertEqual(failure.line, 2)
        let bodyAsHeader = try XCTUnwrap(error("POST / HTTP/1.1\r\nContent-Type: application/json\r\n{\"id\":1}\r\n"))
        XCTAssertTrue(bodyAsHeader.message.hasPrefix("line 3 (byte 49): "), bodyAsHeader.message)
        let noColon = try XCTUnwrap(error("POST / HTTP/1.1\r\nContent-Type: application/json\r\n{}\r\n"))
        XCTAssertEqual(noColon.message, "line 3 (byte 49): header line '{}' has no colon")
        XCTAssertEqual(noColon.hint, "is the blank line before the body missing?")
        XCTAssertEqual(bodyAsHeader.hint, "is the blank line before the body missing?")
    }

    func testBadRequestLines() throws {
        XCTAssertTrue(try XCTUnwrap(error("")).message.contains("empty"))
        XCTAssertTrue(try XCTUnwrap(error("{\"id\": 1}\n")).message.contains("expected a request line"))
        XCTAssertTrue(try XCTUnwrap(error("POST / FTP/1\r\n\r\n")).message.contains("not an HTTP version"))
    }

    func testContentLengthLargerThanBody() throws {
        let failure = try XCTUnwrap(error("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc"))
        XCTAssertEqual(failure.message, "line 4 (byte 39): Content-Length is 10 but only 3 bytes follow the headers")
        XCTAssertTrue(try XCTUnwrap(error("POST / HTTP/1.1\r\nContent-Length: ten\r\n\r\n")).message.contains("is not a number of bytes"))
        XCTAssertTrue(try XCTUnwrap(error("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab")).message.contains("conflicting"))
        XCTAssertTrue(try XCTUnwrap(error("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n")).message.contains("not a number"))
    }

    func testBadChunkSizes() throws {
        let head = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
        let bad = try XCTUnwrap(error(head + "xyz\r\nabc\r\n0\r\n\r\n"))
        XCTAssertEqual(bad.line, 4)
        XCTAssertTrue(bad.message.contains("'xyz' is not a chunk size"), bad.message)
        XCTAssertTrue(try XCTUnwrap(error(head + "\r\nabc\r\n0\r\n\r\n")).message.contains("is not a chunk size"))
        XCTAssertTrue(try XCTUnwrap(error(head + "-3\r\nabc\r\n0\r\n\r\n")).message.contains("is not a chunk size"))
        XCTAssertTrue(try XCTUnwrap(error(head + "fffffffffffffffffff\r\n")).message.contains("too large"))
        let overrun = try XCTUnwrap(error(head + "2\r\nabc\r\n0\r\n\r\n"))
        XCTAssertTrue(overrun.message.contains("expected CRLF after 2 bytes of chunk data"), overrun.message)
        XCTAssertEqual(overrun.byteOffset, 52)
        XCTAssertTrue(try XCTUnwrap(error("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n")).message.contains("'gzip' is not supported"))
    }

    func testTruncatedChunkedBody() throws {
        let head = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
        let cut = try XCTUnwrap(error(head + "10\r\nabc"))
        XCTAssertTrue(cut.message.contains("a chunk of 16 bytes is cut off: only 3 bytes remain"), cut.message)
        XCTAssertEqual(cut.hint, "the capture is probably truncated")
        XCTAssertTrue(try XCTUnwrap(error(head + "3\r\nabc\r\n")).message.contains("ends before its last"))
        XCTAssertTrue(try XCTUnwrap(error(head + "3\r\nabc")).message.contains("ends right after a chunk's data"))
        XCTAssertTrue(try XCTUnwrap(error(head + "3")).message.contains("inside a chunk-size line"))
        XCTAssertTrue(try XCTUnwrap(error(head + "0\r\nX-T: 1\r\n")).message.contains("trailers are not followed by a blank line"))
    }

    func testHugeHeaderSectionRejected() throws {
        var dump = Array("POST / HTTP/1.1\r\n".utf8)
        let line = Array("X-Padding: \(String(repeating: "a", count: 1000))\r\n".utf8)
        for _ in 0..<1100 { dump += line }
        dump += Array("\r\nbody".utf8)
        XCTAssertThrowsError(try RawHTTPRequest.parse(dump)) { error in
            XCTAssertTrue((error as! RequestDumpError).message.contains("larger than 1 MiB"))
        }
        let single = Array("POST / HTTP/1.1\r\nX: ".utf8) + [UInt8](repeating: 0x61, count: 1_100_000) + Array("\r\n\r\n".utf8)
        XCTAssertThrowsError(try RawHTTPRequest.parse(single)) { error in
            XCTAssertTrue((error as! RequestDumpError).message.contains("longer than 1 MiB"))
        }
    }
}
