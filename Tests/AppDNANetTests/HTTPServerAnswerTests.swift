import Foundation
import TestSupport
import XCTest
@testable import AppDNANet
import AppDNACore

/// What `HTTPServer` answers at its edges: a 413 that reaches a sender still sending its body
/// (not lost to a reset), the documented 64 KiB head limit however the head arrives, no body
/// after HEAD, and 503, not a crash, when no thread can be started.
extension HTTPServerTests {
    /// The sender writes its whole body before it reads, in pieces as a network delivers them,
    /// and gives up at the first failed write (curl's "send failure", exit 55): a server that
    /// closes right after its 413 resets the connection under the next piece, so the answer
    /// reaches such a sender only when the server reads and drops the rest first.
    func testA413ReachesASenderThatIsStillSendingItsBody() throws {
        try start(maxBody: 64 << 10)
        let piece = [UInt8](repeating: UInt8(ascii: "x"), count: 64 << 10)
        let pieces = 16
        for attempt in 1...5 {
            let fd = connectRaw()
            defer { close(fd) }
            let head = Array("POST /hook HTTP/1.1\r\nHost: x\r\nContent-Length: \(pieces * piece.count)\r\n\r\n".utf8)
            var failedWrite: Int32? = nil
            for bytes in [head] + Array(repeating: piece, count: pieces) where failedWrite == nil {
                if bytes.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, TestSocket.sendFlags) }) < 0 { failedWrite = errno }
                usleep(20_000)   // the 413 is on its way before the next piece
            }
            XCTAssertNil(failedWrite, "attempt \(attempt): the connection was reset while the sender was still sending (errno \(failedWrite ?? 0))")
            let answer = readAll(fd)
            XCTAssertTrue(answer.hasPrefix("HTTP/1.1 413 Content Too Large\r\n"),
                          "attempt \(attempt): \(answer.isEmpty ? "no answer (reset)" : String(answer.prefix(60)))")
        }
    }

    func testAHeadOver64KiBIs431EvenWhenItArrivesWhole() throws {
        try start()
        let pad = String(repeating: "p", count: 80_000)
        let answer = try exchange("POST / HTTP/1.1\r\nHost: x\r\nX-Pad: \(pad)\r\nContent-Length: 2\r\n\r\nok")
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 431 "), String(answer.prefix(80)))
        // Just under the limit is read.
        let under = String(repeating: "p", count: 60_000)
        XCTAssertTrue(try exchange("POST / HTTP/1.1\r\nHost: x\r\nX-Pad: \(under)\r\nContent-Length: 2\r\n\r\nok").hasPrefix("HTTP/1.1 200 OK\r\n"))
    }

    func testHEADGetsTheHeadersOfAGETAndNoBody() throws {
        try start(handle: { _ in HTTPServer.Response(status: 200, headers: [("Content-Type", "text/plain")], body: Array("hello".utf8)) })
        // A pipelined GET behind the HEAD: a body after the HEAD answer would be read as its answer.
        let answer = try exchange("HEAD /x HTTP/1.1\r\nHost: x\r\n\r\nGET /y HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: keep-alive\r\nContent-Length: 5\r\n\r\nHTTP/1.1 200 OK\r\n"), answer)
        XCTAssertTrue(answer.hasSuffix("Content-Length: 5\r\n\r\nhello"), answer)
    }

    func testNoThreadForARequestIs503AndTheServerCarriesOn() throws {
        let refusals = Refusals(count: 1)
        try start(startThread: { body in
            refusals.take() ? false : ThreadSpawner.trySpawnDetached(body)
        })
        let refused = try exchange("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nok")
        XCTAssertTrue(refused.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"), refused)
        XCTAssertTrue(refused.contains("cannot start a thread"), refused)
        XCTAssertTrue(try exchange("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nok").hasSuffix("\r\n\r\nok"))
    }
}

/// The first `count` thread starts are refused, as a system out of memory or threads refuses them.
final class Refusals: @unchecked Sendable {
    private let lock = NSLock()
    private var left: Int
    init(count: Int) { left = count }
    func take() -> Bool {
        lock.lock(); defer { lock.unlock() }
        guard left > 0 else { return false }
        left -= 1
        return true
    }
}
