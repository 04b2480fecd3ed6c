import Foundation
import XCTest
import TestSupport
@testable import AppDNANet
import AppDNACore

/// Slow and hostile senders cannot starve `HTTPServer`: connections that stop half way, in the
/// request line or in the body, wait in the accept loop's poll holding no worker, so a delivery
/// from a new client is answered while a thousand of them are still open; the server's own
/// count of open connections (not the process's descriptors, which other code moves too) goes
/// back to zero once they close. Assertions are about order and accounting: "answered while
/// every held connection was still open", never "within N ms" (the figure is in
/// bench/listen-slowloris.sh).
extension HTTPServerTests {
    /// Raises this process's open-file limit to hold `connections` (both ends are here).
    func allowOpenFiles(for connections: Int) throws {
        #if canImport(Glibc)
        let openFiles = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let openFiles = RLIMIT_NOFILE
        #endif
        var limit = rlimit()
        getrlimit(openFiles, &limit)
        let wanted = rlim_t(2 * connections + 256)
        if limit.rlim_cur < wanted {
            limit.rlim_cur = min(wanted, limit.rlim_max)
            setrlimit(openFiles, &limit)
            getrlimit(openFiles, &limit)
        }
        guard limit.rlim_cur >= wanted else {
            throw missing("an open-file limit of \(wanted)", because: "the hard limit is \(limit.rlim_max)", remedy: "raise it (ulimit -Hn)")
        }
    }

    /// `count` connections that each sent `bytes` and then nothing; waits until the server
    /// holds them all (by its own count), so that none is still in the kernel's queue.
    func hold(_ count: Int, sending bytes: String) throws -> [Int32] {
        var sockets: [Int32] = []
        let data = Array(bytes.utf8)
        for _ in 0..<count {
            let fd = connectRaw()
            XCTAssertGreaterThanOrEqual(fd, 0)
            XCTAssertEqual(data.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }, data.count)
            sockets.append(fd)
        }
        XCTAssertTrue(eventually { server.openConnections >= count }, "the server holds \(server.openConnections) of \(count)")
        return sockets
    }

    /// Connects and sends `bytes` with a receive timeout of `seconds` (a generous "answered at
    /// all" bound: the server under test would otherwise hold it for its idle timeout).
    func exchange(_ bytes: String, answeredWithin seconds: Int) throws -> String {
        let fd = connectRaw()
        defer { close(fd) }
        let data = Array(bytes.utf8)
        XCTAssertEqual(data.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }, data.count)
        return readAll(fd, seconds: seconds)
    }

    func testAThousandHalfSentRequestLinesDoNotDelayANewClient() throws {
        let held = 1000
        try allowOpenFiles(for: held)
        // The header timeout is far away: the delivery must not wait for it to free a slot.
        try start(headerTimeout: 60, idleTimeout: 60)
        let sockets = try hold(held, sending: "POST /webhooks HT")
        let answer = try exchange("POST /hook HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok", answeredWithin: 20)
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 200 OK\r\n") && answer.hasSuffix("\r\n\r\nok"), answer)
        // Answered while every held connection was still open: none was closed to make room.
        XCTAssertGreaterThanOrEqual(server.openConnections, held)

        for fd in sockets { close(fd) }
        // The server sees each close in its poll loop and closes its end; its own count says so.
        XCTAssertTrue(eventually { server.openConnections == 0 }, "\(server.openConnections) connections left open after the clients closed")
    }

    func testAThousandStalledBodiesDoNotDelayANewClient() throws {
        let held = 1000
        try allowOpenFiles(for: held)
        // Two workers and a long idle timeout: stalled bodies holding workers would keep the
        // delivery waiting for a minute.
        try start(headerTimeout: 60, idleTimeout: 60, maxConnections: 2)
        let sockets = try hold(held, sending: "POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"id\":")
        let answer = try exchange("POST /hook HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok", answeredWithin: 20)
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 200 OK\r\n") && answer.hasSuffix("\r\n\r\nok"), answer)
        XCTAssertGreaterThanOrEqual(server.openConnections, held, "stalled bodies were closed to make room")
        for fd in sockets { close(fd) }
        XCTAssertTrue(eventually { server.openConnections == 0 }, "\(server.openConnections) connections left open")
    }

    func testStopIsPromptWithStalledSendersAndAPeerThatDoesNotRead() throws {
        try allowOpenFiles(for: 100)
        let bigAnswer = [UInt8](repeating: UInt8(ascii: "x"), count: 32 << 20)
        try start(headerTimeout: 60, idleTimeout: 60, handle: { _ in HTTPServer.Response(status: 200, body: bigAnswer) })
        let heads = try hold(40, sending: "POST /webhooks HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        let bodies = try hold(40, sending: "POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
        // A client that asks for the large answer and never reads it: its worker blocks in send.
        let reader = connectRaw()
        _ = "GET / HTTP/1.1\r\nHost: x\r\n\r\n".withCString { send(reader, $0, strlen($0), 0) }
        XCTAssertTrue(eventually { server.shared.withLock { !$0.answering.isEmpty } }, "the large answer is not being written")
        server.stop()
        // Generous "at all" bound: without the fix the stop waits out the 60 s timeouts.
        XCTAssertEqual(finished.wait(timeout: .now() + 15), .success, "serve did not return after stop()")
        server = nil   // stopped already (tearDown would wait for a second signal)
        for fd in heads + bodies + [reader] { close(fd) }
    }

    func testBodiesOverTheMemoryBudgetRefuseTheOneThatMadeTheLeastProgress() throws {
        try start(maxBody: 8000, headerTimeout: 60, idleTimeout: 60, adjust: { $0.maxBufferedBytes = 10_000 })
        let head = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 8000\r\n\r\n"
        let first = try hold(1, sending: head + String(repeating: "a", count: 6000))[0]
        XCTAssertTrue(eventually { server.bufferedRequestBytes >= 6000 }, "the first body did not arrive")
        // A second body that takes the held bytes over the budget: the first, stalled, is refused.
        let second = connectRaw()
        let start = head + String(repeating: "b", count: 5000)
        XCTAssertEqual(Array(start.utf8).withUnsafeBytes { send(second, $0.baseAddress, $0.count, 0) }, start.utf8.count)
        XCTAssertTrue(readAll(first).hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"))
        // The second goes on arriving and is served.
        let rest = String(repeating: "b", count: 3000)
        XCTAssertEqual(Array(rest.utf8).withUnsafeBytes { send(second, $0.baseAddress, $0.count, 0) }, rest.utf8.count)
        shutdown(second, Int32(SHUT_WR))
        XCTAssertTrue(readAll(second).hasPrefix("HTTP/1.1 200 OK\r\n"))
        close(first)
        close(second)
    }
}
