import Foundation
import XCTest
import TestSupport
@testable import AppDNANet

/// Slow clients cannot starve `HTTPServer`: a thousand connections that sent half a request
/// line and stopped wait in the accept loop's poll, holding no slot, so a delivery from a new
/// client is answered long before their header timeout; and once they close, every descriptor
/// the server had for them is closed too.
extension HTTPServerTests {
    /// Open descriptors of this process.
    func openDescriptors() -> Int {
        #if os(Linux)
        let directory = "/proc/self/fd"
        #else
        let directory = "/dev/fd"
        #endif
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).count
    }

    func testAThousandHalfSentRequestLinesDoNotDelayANewClient() throws {
        let held = 1000
        // Both ends of every connection are in this process: 2,000 descriptors and some.
        #if canImport(Glibc)
        let openFiles = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let openFiles = RLIMIT_NOFILE
        #endif
        var limit = rlimit()
        getrlimit(openFiles, &limit)
        let wanted = rlim_t(2 * held + 256)
        if limit.rlim_cur < wanted {
            limit.rlim_cur = min(wanted, limit.rlim_max)
            setrlimit(openFiles, &limit)
            getrlimit(openFiles, &limit)
        }
        guard limit.rlim_cur >= wanted else {
            throw missing("an open-file limit of \(wanted)", because: "the hard limit is \(limit.rlim_max)", remedy: "raise it (ulimit -Hn)")
        }
        // The header timeout is far away: the delivery must not wait for it to free a slot.
        try start(headerTimeout: 30, idleTimeout: 30)
        let before = openDescriptors()
        var sockets: [Int32] = []
        for _ in 0..<held {
            let fd = connectRaw()
            XCTAssertGreaterThanOrEqual(fd, 0)
            _ = "POST /webhooks HT".withCString { send(fd, $0, 17, 0) }
            sockets.append(fd)
        }
        let started = Date()
        let answer = try exchange("POST /hook HTTP/1.1\r\nContent-Length: 2\r\n\r\nok")
        let waited = Date().timeIntervalSince(started)
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 200 OK\r\n") && answer.hasSuffix("\r\n\r\nok"), answer)
        XCTAssertLessThan(waited, 5, "the delivery waited for the held connections (header timeout 30 s)")
        print("valid delivery answered in \(Int(waited * 1000)) ms with \(held) half-sent request lines held")

        for fd in sockets { close(fd) }
        // The server sees each close in its poll loop and closes its end.
        let deadline = Date().addingTimeInterval(5)
        while openDescriptors() > before && Date() < deadline { usleep(20_000) }
        // At most as many as before: other tests of this process may close theirs meanwhile.
        XCTAssertLessThanOrEqual(openDescriptors(), before, "descriptors left open after the clients closed")
    }
}
