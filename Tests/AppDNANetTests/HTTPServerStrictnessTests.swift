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

    /// An origin server serves its own paths: the proxy forms of a target, tunnels, echoes and a
    /// Host that is not a host are refused before any handler sees them (a forward or an
    /// inspector's re-send command built from such a target would name another host).
    func testOnlyOriginFormTargetsAndValidHostsReachTheHandler() throws {
        final class Reached: @unchecked Sendable {
            let lock = NSLock()
            var count = 0
        }
        let reached = Reached()
        try start(handle: { request in
            reached.lock.lock()
            reached.count += 1
            reached.lock.unlock()
            return HTTPServer.Response(status: 200, body: request.body)
        })
        let valid = "POST /next HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nok"
        let refused: [(what: String, request: String, status: String)] = [
            ("absolute-form", "POST http://127.0.0.2:19011/steal HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nab", "400 Bad Request"),
            ("authority-form", "POST 127.0.0.2:19011 HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nab", "400 Bad Request"),
            ("userinfo-like target", "POST @127.0.0.2:19011/steal HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nab", "400 Bad Request"),
            ("asterisk-form", "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", "400 Bad Request"),
            ("CONNECT", "CONNECT /x HTTP/1.1\r\nHost: x:443\r\n\r\n", "405 Method Not Allowed"),
            ("CONNECT authority", "CONNECT x:443 HTTP/1.1\r\nHost: x:443\r\n\r\n", "405 Method Not Allowed"),
            ("TRACE", "TRACE / HTTP/1.1\r\nHost: x\r\n\r\n", "405 Method Not Allowed"),
            ("an empty Host", "POST / HTTP/1.1\r\nHost: \r\nContent-Length: 2\r\n\r\nab", "400 Bad Request"),
            ("a Host with userinfo", "POST / HTTP/1.1\r\nHost: 127.0.0.1:19000@127.0.0.2\r\nContent-Length: 2\r\n\r\nab", "400 Bad Request"),
            ("a Host with a path", "POST / HTTP/1.1\r\nHost: x/y\r\nContent-Length: 2\r\n\r\nab", "400 Bad Request"),
            ("a Host with a port over 65535", "POST / HTTP/1.1\r\nHost: x:65536\r\nContent-Length: 2\r\n\r\nab", "400 Bad Request"),
            ("a Host with 30 port digits", "POST / HTTP/1.1\r\nHost: x:\(String(repeating: "9", count: 30))\r\nContent-Length: 2\r\n\r\nab", "400 Bad Request"),
            ("a Host with an empty port", "POST / HTTP/1.1\r\nHost: x:\r\nContent-Length: 2\r\n\r\nab", "400 Bad Request"),
            ("a Host with a negative port", "POST / HTTP/1.1\r\nHost: x:-1\r\nContent-Length: 2\r\n\r\nab", "400 Bad Request"),
            ("an unclosed IPv6 Host", "POST / HTTP/1.1\r\nHost: [::1\r\nContent-Length: 2\r\n\r\nab", "400 Bad Request"),
            // RFC 9112 §7.1: chunk-size is 1*HEXDIG; the loose forms parse differently elsewhere.
            ("whitespace after a chunk size", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2 \r\nab\r\n0\r\n\r\n", "400 Bad Request"),
            ("whitespace before a chunk size", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n 2\r\nab\r\n0\r\n\r\n", "400 Bad Request"),
            ("a tab before an extension", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\t;a=b\r\nab\r\n0\r\n\r\n", "400 Bad Request"),
            ("a bare CR in a chunk-size line", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\rX\r\nab\r\n0\r\n\r\n", "400 Bad Request"),
            ("a bare CR in an extension", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2;a\rb\r\nab\r\n0\r\n\r\n", "400 Bad Request"),
        ]
        for (what, request, status) in refused {
            let answer = try exchange(request + valid)
            XCTAssertTrue(answer.hasPrefix("HTTP/1.1 \(status)\r\n"), "\(what) → \(answer.prefix(120))")
            XCTAssertEqual(answer.matches(of: #/HTTP/1\.1 \d{3} /#).count, 1, "\(what): the request behind it was read: \(answer)")
            if status.hasPrefix("405") { XCTAssertTrue(answer.contains("\r\nAllow: "), "\(what): \(answer)") }
        }
        XCTAssertEqual(reached.lock.withLock { reached.count }, 0, "no refused request reached the handler")
        for accepted in ["Host: x", "Host: x:8080", "Host: 127.0.0.1:0", "Host: [::1]:65535", "Host: [::1]", "Host: a-b.example_c~d"] {
            let answer = try exchange("POST /ok HTTP/1.1\r\n\(accepted)\r\nTransfer-Encoding: chunked\r\n\r\n2;ext=v\r\nok\r\n0\r\n\r\n")
            XCTAssertTrue(answer.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(accepted) → \(answer.prefix(120))")
        }
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

/// What a handler holds beyond its request counts against the same budget, and the limits fit
/// inside an address-space limit (`ulimit -v`): past them the answer is 503, never a failed
/// allocation, which stops a Swift process (issue 42.5; bench/inspector-budget.sh floods a
/// listener under `ulimit -v 420000`).
final class HTTPServerBudgetTests: XCTestCase {
    func testReservationsShareTheBufferedBytesBudget() throws {
        var limits = HTTPServer.Limits(maxBodyBytes: 1 << 20, headerTimeout: 2, idleTimeout: 2, maxConnections: 4)
        limits.maxBufferedBytes = 3 << 20
        let server = try HTTPServer(host: "127.0.0.1", port: 0, limits: limits)
        XCTAssertTrue(server.reserve(1 << 20))
        XCTAssertTrue(server.reserve(2 << 20))
        XCTAssertFalse(server.reserve(1), "the budget is spent")
        XCTAssertFalse(server.reserve(-1), "a negative reservation is refused, not added")
        XCTAssertFalse(server.reserve(Int.max), "no overflow at the extremes")
        XCTAssertEqual(server.bufferedRequestBytes, 3 << 20)
        server.release(2 << 20)
        XCTAssertTrue(server.reserve(1 << 20))
        server.release(1 << 20)
        server.release(1 << 20)
        XCTAssertEqual(server.bufferedRequestBytes, 0)
    }

    func testLimitsFitInsideAnAddressSpaceLimit() {
        let limits = HTTPServer.Limits(maxBodyBytes: 1 << 20, headerTimeout: 2, idleTimeout: 2, maxConnections: 400)
        XCTAssertEqual(limits.maxBufferedBytes, 256 << 20)
        let unlimited = limits.fitted(toAddressSpace: nil)
        XCTAssertEqual(unlimited.maxConnections, 400)
        XCTAssertEqual(unlimited.maxBufferedBytes, 256 << 20)
        // ulimit -v 420000 (KiB): a quarter each for the stacks and the buffered bytes.
        let fitted = limits.fitted(toAddressSpace: 420_000 * 1024)
        XCTAssertEqual(fitted.maxConnections, 420_000 * 1024 / 4 / HTTPServer.workerStackBytes)
        XCTAssertEqual(fitted.maxBufferedBytes, 420_000 * 1024 / 4)
        XCTAssertLessThanOrEqual(fitted.maxConnections * HTTPServer.workerStackBytes + fitted.maxBufferedBytes, 420_000 * 1024 / 2)
        // Tiny or hostile limits: one worker and one body at least, no trap.
        for space in [0, 1, 4096, Int.max] {
            let tiny = limits.fitted(toAddressSpace: space)
            XCTAssertGreaterThanOrEqual(tiny.maxConnections, 1)
            XCTAssertGreaterThanOrEqual(tiny.maxBufferedBytes, min(limits.maxBodyBytes + (64 << 10), space / 4))
        }
    }
}
