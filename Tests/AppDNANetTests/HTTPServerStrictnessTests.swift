import Foundation
import XCTest
@testable import AppDNANet
import AppDNACore

/// The listener reads requests as a proxy must (RFC 9112): what a capture is forgiven
/// (`webhook verify --request` still accepts folded lines) is refused here with 400, and the
/// connection is closed after any request refused for its framing, so that nothing pipelined
/// behind it is read with the wrong boundaries.
extension HTTPServerTests {
    func testFramingAmbiguitiesAre400AndCloseTheConnection() throws {
        try start()
        let valid = "POST /next HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nok"
        let refused: [(String, String)] = [
            // RFC 9112 §6.1: HTTP/1.0 has no chunked framing.
            ("HTTP/1.0 with Transfer-Encoding: chunked", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n"),
            ("chunked applied twice in one field", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n"),
            // RFC 9112 §3.2: exactly one Host in HTTP/1.1.
            ("HTTP/1.1 without Host", "POST / HTTP/1.1\r\nContent-Length: 2\r\n\r\nab"),
            ("two Host fields", "POST / HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\nContent-Length: 2\r\n\r\nab"),
            ("a NUL in the target", "POST /a\u{0}b HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nab"),
            ("a CR in the target", "POST /a\rb HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nab"),
            ("a space in the target", "POST /a b HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nab"),
            ("two spaces before the target", "POST  /a HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nab"),
            ("an escape in a value", "POST / HTTP/1.1\r\nHost: x\r\nX-Note: a\u{1B}[31mred\r\nContent-Length: 2\r\n\r\nab"),
            ("obsolete line folding", "POST / HTTP/1.1\r\nHost: x\r\nX-Long: part one\r\n  part two\r\nContent-Length: 2\r\n\r\nab"),
            ("two Transfer-Encoding fields", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n"),
            ("Content-Length with Transfer-Encoding", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
            ("a NUL in a value", "POST / HTTP/1.1\r\nHost: x\r\nX-Note: a\u{0}b\r\nContent-Length: 2\r\n\r\nab"),
            ("a bare CR in a value", "POST / HTTP/1.1\r\nHost: x\r\nX-Note: a\rX-Injected: 1\r\nContent-Length: 2\r\n\r\nab"),
            ("a name that is not a token", "POST / HTTP/1.1\r\nHost: x\r\nX Note: a\r\nContent-Length: 2\r\n\r\nab"),
            ("space before the colon", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length : 2\r\n\r\nab"),
        ]
        for (what, request) in refused {
            let answer = try exchange(request + valid)
            XCTAssertTrue(answer.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(what) → \(answer.prefix(80))")
            XCTAssertTrue(answer.contains("Connection: close"), "\(what): \(answer)")
            XCTAssertEqual(answer.matches(of: #/HTTP/1\.1 \d{3} /#).count, 1, "\(what): the request behind it was read: \(answer)")
        }
        // Folded lines in a capture are still read (the dump parser's forgiving mode).
        let capture = try RawHTTPRequest.parse(Array("POST / HTTP/1.1\r\nX-Long: part one\r\n  part two\r\nContent-Length: 2\r\n\r\nab".utf8))
        XCTAssertEqual(capture.value(of: "X-Long"), "part one part two")
    }

    func testHTTP10WithoutHostAndOneHostAreServed() throws {
        try start()
        XCTAssertTrue(try exchange("POST / HTTP/1.0\r\nContent-Length: 2\r\n\r\nok").hasPrefix("HTTP/1.1 200 OK\r\n"))
        XCTAssertTrue(try exchange("POST /a?b=c%20d HTTP/1.1\r\nHost: x\r\nX-Tab: a\tb\r\nX-UTF8: é\r\nContent-Length: 2\r\n\r\nok")
                        .hasPrefix("HTTP/1.1 200 OK\r\n"))
    }

    func testUnsupportedVersionIsAnswered505WithItsPhrase() throws {
        try start()
        let answer = try exchange("POST / HTTP/2.0\r\n\r\n")
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 505 HTTP Version Not Supported\r\n"), answer)
    }
}
