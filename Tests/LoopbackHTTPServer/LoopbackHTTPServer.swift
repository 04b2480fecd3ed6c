import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real HTTP/1.1 server on 127.0.0.1 (an ephemeral port) for the tests: every connection is
/// served on its own thread, one request per connection (`Connection: close`), and each
/// response is scripted: status, headers, body, a delay, a trickle, a cut-off, no answer.
public final class LoopbackHTTPServer: @unchecked Sendable {
    /// What to do with one request.
    public struct Reply: Sendable {
        public var status: Int
        public var reason: String
        public var headers: [(String, String)]
        public var body: [UInt8]
        /// Wait this long before sending anything.
        public var delay: Double = 0
        /// Send the body in pieces of `bytes` every `interval` seconds.
        public var trickle: (bytes: Int, interval: Double)? = nil
        /// Send only this many body bytes (Content-Length still promises all), then close.
        public var cutOffAfter: Int? = nil
        /// Accept, read the request, and never answer (until the server stops).
        public var neverAnswer = false
        /// Close the connection right after reading the request, without answering.
        public var closeWithoutAnswer = false
        /// Send these bytes instead of an HTTP response (a broken proxy, another protocol).
        public var raw: [UInt8]? = nil
        /// Send a body of this many bytes ('x'), generated as it goes (Content-Length set), in
        /// place of `body`: answers of gigabytes without holding them.
        public var streamedBodyBytes: Int? = nil

        public init(status: Int = 200, reason: String? = nil, headers: [(String, String)] = [], body: [UInt8] = []) {
            self.status = status
            self.reason = reason ?? LoopbackHTTPServer.reasonPhrase(status)
            self.headers = headers
            self.body = body
        }

        public init(status: Int = 200, headers: [(String, String)] = [], json: String) {
            self.init(status: status, headers: [("Content-Type", "application/json")] + headers, body: Array(json.utf8))
        }

        public static var hang: Reply { var r = Reply(); r.neverAnswer = true; return r }
    }

    /// A request as received.
    public struct Request: Sendable {
        public var method: String
        public var path: String
        public var headers: [(String, String)]
        public var body: [UInt8]
        /// Seconds on a monotonic clock (`ProcessInfo.systemUptime`).
        public var receivedAt: Double

        public func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
    }

    public let port: Int
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    private let listener: Int32
    private let lock = NSLock()
    private var received: [Request] = []
    private var stopped = false
    private let handler: @Sendable (Request, Int) -> Reply

    /// `handler` gets each request and its index (0-based, in arrival order) and says what to do.
    public init(_ handler: @escaping @Sendable (Request, Int) -> Reply) throws {
        self.handler = handler
        let fd = try Self.tcpSocket()
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = fd
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    deinit { stop() }

    /// A TCP socket.
    static func tcpSocket() throws -> Int32 {
        #if os(Linux)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw POSIXError(.EIO) }
        return fd
    }

    /// 127.0.0.1:`port`.
    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    /// Sends `request` over a raw socket to 127.0.0.1:`port` (bytes a well-behaved client would
    /// not send), closes the sending side, and returns what came back before the peer closed.
    public static func sendRaw(port: Int, _ request: [UInt8]) throws -> [UInt8] {
        let fd = try tcpSocket()
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        #if canImport(Glibc)
        _ = request.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
        #else
        _ = request.withUnsafeBytes { Darwin.send(fd, $0.baseAddress, $0.count, 0) }
        #endif
        shutdown(fd, Int32(SHUT_WR))
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            answer.append(contentsOf: buffer[0..<n])
        }
        return answer
    }

    /// Every request received so far, in arrival order.
    public var requests: [Request] { lock.lock(); defer { lock.unlock() }; return received }

    public func stop() {
        lock.lock()
        let wasStopped = stopped
        stopped = true
        lock.unlock()
        if !wasStopped {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }
    }

    private var isStopped: Bool { lock.lock(); defer { lock.unlock() }; return stopped }

    private func acceptLoop() {
        while !isStopped {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            var noSigPipe: Int32 = 1
            _ = noSigPipe
            #if canImport(Darwin)
            setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &noSigPipe, socklen_t(MemoryLayout<Int32>.size))
            #endif
            let thread = Thread { [self] in serve(connection) }
            thread.start()
        }
    }

    private func serve(_ fd: Int32) {
        defer { close(fd) }
        guard let request = readRequest(fd) else { return }
        let index: Int = {
            lock.lock(); defer { lock.unlock() }
            received.append(request)
            return received.count - 1
        }()
        let reply = handler(request, index)
        if reply.closeWithoutAnswer { return }
        if reply.neverAnswer {
            while !isStopped { usleep(20_000) }
            return
        }
        if reply.delay > 0 { sleepUnlessStopped(reply.delay) }
        if let raw = reply.raw {
            _ = send(fd, raw)
            shutdown(fd, Int32(SHUT_WR))
            return
        }
        var head = "HTTP/1.1 \(reply.status) \(reply.reason)\r\n"
        var headers = reply.headers
        if !headers.contains(where: { $0.0.lowercased() == "content-length" }) {
            headers.append(("Content-Length", String(reply.streamedBodyBytes ?? reply.body.count)))
        }
        headers.append(("Connection", "close"))
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        guard send(fd, Array(head.utf8)) else { return }
        if var left = reply.streamedBodyBytes {
            let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
            while left > 0, !isStopped {
                let piece = min(left, chunk.count)
                guard send(fd, piece == chunk.count ? chunk : Array(chunk[..<piece])) else { return }
                left -= piece
            }
            shutdown(fd, Int32(SHUT_WR))
            return
        }
        let body = reply.cutOffAfter.map { Array(reply.body.prefix($0)) } ?? reply.body
        if let trickle = reply.trickle {
            var offset = 0
            while offset < body.count, !isStopped {
                let end = min(body.count, offset + trickle.bytes)
                guard send(fd, Array(body[offset..<end])) else { return }
                offset = end
                sleepUnlessStopped(trickle.interval)
            }
        } else {
            _ = send(fd, body)
        }
        shutdown(fd, Int32(SHUT_WR))
        // Let the client read everything before the close.
        var scratch = [UInt8](repeating: 0, count: 4096)
        var tv = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        while recv(fd, &scratch, scratch.count, 0) > 0 {}
    }

    private func sleepUnlessStopped(_ seconds: Double) {
        let end = ProcessInfo.processInfo.systemUptime + seconds
        while !isStopped, ProcessInfo.processInfo.systemUptime < end { usleep(10_000) }
    }

    private func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            #if os(Linux)
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            #else
            let n = bytes.withUnsafeBytes { Darwin.send(fd, $0.baseAddress! + offset, bytes.count - offset, 0) }
            #endif
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    private func readRequest(_ fd: Int32) -> Request? {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var headerEnd: Int? = nil
        while headerEnd == nil {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { return nil }
            data += buffer[0..<n]
            if let range = findCRLFCRLF(data) { headerEnd = range }
        }
        let head = String(decoding: data[0..<headerEnd!], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [(String, String)] = []
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        let length = Int(headers.first { $0.0.lowercased() == "content-length" }?.1 ?? "0") ?? 0
        var body = Array(data[(headerEnd! + 4)...])
        while body.count < length {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            body += buffer[0..<n]
        }
        return Request(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers, body: body,
                       receivedAt: ProcessInfo.processInfo.systemUptime)
    }

    private func findCRLFCRLF(_ data: [UInt8]) -> Int? {
        guard data.count >= 4 else { return nil }
        for i in 0...(data.count - 4) where data[i] == 13 && data[i + 1] == 10 && data[i + 2] == 13 && data[i + 3] == 10 {
            return i
        }
        return nil
    }

    public static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 304: return "Not Modified"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 408: return "Request Timeout"
        case 413: return "Content Too Large"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        default: return "Status"
        }
    }
}
