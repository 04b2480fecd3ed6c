import Foundation
import TestSupport
import XCTest
@testable import AppDNANet
import AppDNACore

/// `HTTPServer` in-process, spoken to over a raw socket: framing (pipelined keep-alive requests,
/// chunked bodies with extensions and trailers, bare-LF heads), the limits, and carrying on
/// after every kind of bad request.
final class HTTPServerTests: XCTestCase {
    var server: HTTPServer!
    /// Signalled when `serve` returns.
    let finished = DispatchSemaphore(value: 0)

    func start(maxBody: Int = 1000, headerTimeout: Double = 2, idleTimeout: Double = 2, maxConnections: Int = 8,
               adjust: (inout HTTPServer.Limits) -> Void = { _ in },
               startThread: @escaping HTTPServer.ThreadStarter = { ThreadSpawner.trySpawnDetached($0) },
               handle: (@Sendable (HTTPServer.Request) -> HTTPServer.Response)? = nil) throws {
        var limits = HTTPServer.Limits(maxBodyBytes: maxBody, headerTimeout: headerTimeout, idleTimeout: idleTimeout, maxConnections: maxConnections)
        adjust(&limits)
        server = try HTTPServer(host: "127.0.0.1", port: 0, limits: limits, startThread: startThread)
        let server = server!, finished = finished
        // Answers with the body's length and its bytes, so framing mistakes show.
        let handle = handle ?? { request in
            HTTPServer.Response(status: 200, headers: [("X-Length", String(request.body.count))], body: request.body)
        }
        Thread {
            server.serve(handle: handle, rejected: { _ in })
            finished.signal()
        }.start()
    }

    /// Waits (polling, up to `seconds`) until `condition` holds; whether it did.
    func eventually(within seconds: Double = 30, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() > deadline { return false }
            usleep(10_000)
        }
        return true
    }

    override func tearDown() {
        guard let server else { return }
        server.stop()
        XCTAssertEqual(finished.wait(timeout: .now() + 5), .success, "serve did not return after stop()")
    }

    /// Connects, sends `bytes`, half-closes, and reads everything the server answers.
    func exchange(_ bytes: String) throws -> String {
        let fd = connectRaw()
        defer { close(fd) }
        XCTAssertGreaterThanOrEqual(fd, 0)
        let data = Array(bytes.utf8)
        XCTAssertEqual(data.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }, data.count)
        shutdown(fd, Int32(SHUT_WR))
        return readAll(fd)
    }

    /// Everything the server sends on `fd` until it closes, or until nothing came for
    /// `seconds` (a generous "answered at all" bound).
    func readAll(_ fd: Int32, seconds: Int = 20) -> String {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += chunk[..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// A socket connected to the server; -1 when the connection failed.
    func connectRaw() -> Int32 {
        let fd = TestSocket.tcp(AF_INET)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(server.port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if connected != 0 { close(fd); return -1 }
        return fd
    }

    func testPipelinedChunkedAndBareLFRequestsOnOneConnection() throws {
        try start()
        let answer = try exchange(
            "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
            + "POST /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nX-Trailer: t\r\n\r\n"
            + "POST /c HTTP/1.1\nHost: x\nContent-Length: 2\n\nxy"
            + "GET /d HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let statuses = answer.components(separatedBy: "HTTP/1.1 ").dropFirst().map { $0.prefix(3) }
        XCTAssertEqual(statuses, ["200", "200", "200", "200"], answer)
        XCTAssertTrue(answer.contains("X-Length: 5\r\nConnection: keep-alive\r\nContent-Length: 5\r\n\r\nhello"), answer)
        XCTAssertTrue(answer.contains("X-Length: 5\r\nConnection: keep-alive\r\nContent-Length: 5\r\n\r\nabcde"), answer)
        XCTAssertTrue(answer.contains("\r\n\r\nxy"), answer)
        XCTAssertTrue(answer.hasSuffix("X-Length: 0\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"), answer)
    }

    func testBadRequestsGetTheirStatusAndTheServerCarriesOn() throws {
        try start(maxBody: 10, headerTimeout: 0.3, idleTimeout: 0.3)
        let cases: [(String, String)] = [
            ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n12345678901", "413"),
            ("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n12345678\r\n8\r\n12345678\r\n0\r\n\r\n", "413"),
            ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", "400"),
            ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", "400"),
            ("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", "400"),
            ("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "400"),
            ("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabXX0\r\n\r\n", "400"),
            ("NOT HTTP AT ALL\r\n\r\n", "400"),
            ("POST / HTTP/2.0\r\n\r\n", "505"),
            ("POST / HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n", "400"),
            ("POST / HTTP/1.1\r\nHost: x\r\n" + String(repeating: "X-Pad: " + String(repeating: "p", count: 1000) + "\r\n", count: 70), "431"),
            ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nab", ""),  // peer half-closed mid-body: just closed
        ]
        for (request, status) in cases {
            let answer = try exchange(request)
            if status.isEmpty {
                XCTAssertEqual(answer, "", request)
            } else {
                XCTAssertTrue(answer.hasPrefix("HTTP/1.1 \(status) "), "\(request.prefix(60)) → \(answer.prefix(80))")
                XCTAssertTrue(answer.contains("Connection: close"), answer)
            }
        }
        XCTAssertTrue(try exchange("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nok").contains("\r\n\r\nok"))
    }
}
