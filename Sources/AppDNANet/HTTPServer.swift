import AppDNACore

/// A small HTTP/1.1 server over POSIX sockets, for `webhook listen`: one thread per connection
/// (at most `limits.maxConnections` at a time), keep-alive, Content-Length and chunked request
/// bodies, and the limits a server facing the internet through a tunnel needs (body cap → 413,
/// header and idle timeouts against slow senders). A bad request gets its error status and
/// the connection is closed; the server itself always keeps serving.
public final class HTTPServer: @unchecked Sendable {
    public struct Limits: Sendable {
        /// Larger bodies are answered 413 without being read.
        public var maxBodyBytes: Int
        /// The request line and headers must arrive within this many seconds of the first byte.
        public var headerTimeout: Double
        /// A connection with no bytes arriving for this long (between requests, or in a body)
        /// is closed.
        public var idleTimeout: Double
        /// Connections served at the same time; more wait in the kernel's accept queue.
        public var maxConnections: Int
        /// Request line plus headers.
        public var maxHeaderBytes = 64 << 10
        /// A whole body must arrive within this long, however steadily it trickles.
        public var maxBodySeconds = 60.0
        /// How a 413's reason names the body limit (`the 1 MiB limit`): the CLI says which of
        /// its flags sets it, so Net names no flag.
        public var bodyLimitText: @Sendable (_ maxBodyBytes: Int) -> String = { "the \(NumberText.binarySize($0)) limit" }

        public init(maxBodyBytes: Int, headerTimeout: Double, idleTimeout: Double, maxConnections: Int) {
            self.maxBodyBytes = maxBodyBytes
            self.headerTimeout = headerTimeout
            self.idleTimeout = idleTimeout
            self.maxConnections = maxConnections
        }
    }

    /// One complete request.
    public struct Request: Sendable {
        public let head: RawHTTPRequest.Head
        /// Exactly as sent (chunk framing removed).
        public let body: [UInt8]
        /// "127.0.0.1:53122"
        public let peer: String
    }

    public struct Response: Sendable {
        public var status: Int
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]

        public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// A plain-text answer (errors the server gives itself).
        public static func text(_ status: Int, _ text: String) -> Response {
            Response(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array((text + "\n").utf8))
        }
    }

    /// A request refused before the handler saw it (the status it got and why).
    public struct Rejection: Sendable {
        public let status: Int
        public let reason: String
        public let peer: String
    }

    public let limits: Limits
    /// The port actually bound (differs from the one asked for when that was 0).
    public let port: Int
    public let host: String

    private let listener: Int32
    /// Written to by `stop()` (and the signal handler) to wake the accept loop.
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let lock = PthreadLock()
    private let changed = PthreadCondition()
    private var active = 0
    private var stopping = false

    /// Binds and listens (status 73-like configuration errors are the caller's to word).
    public init(host: String, port: Int, limits: Limits) throws(HTTPError) {
        self.limits = limits
        self.host = host
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let resolved = host == "localhost" ? "127.0.0.1" : host
        guard inet_pton(AF_INET, resolved, &address.sin_addr) == 1 else {
            throw HTTPError(.configuration, "'\(host)' is not an IPv4 address to listen on", hint: "use 127.0.0.1 (the default) or 0.0.0.0 for all interfaces",
                            settingFact: .listenAddressNotIPv4(host))
        }
        let fd = SocketCalls.streamSocket()
        guard fd >= 0 else { throw HTTPError(.internalError, "socket: \(SystemError.describe(errno))") }
        SocketCalls.setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 128) == 0 else {
            let code = errno
            close(fd)
            throw HTTPError(.unavailable, "cannot listen on \(host):\(port): \(SystemError.describe(code))",
                            remedy: code == EADDRINUSE ? .otherPort : nil)
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.port = Int(UInt16(bigEndian: actual.sin_port))
        listener = fd
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            close(fd)
            throw HTTPError(.internalError, "pipe: \(SystemError.describe(errno))")
        }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(pipeEnds[1], F_SETFL, O_NONBLOCK)
        wakeRead = pipeEnds[0]
        wakeWrite = pipeEnds[1]
    }

    deinit {
        close(listener)
        close(wakeRead)
        close(wakeWrite)
    }

    /// Makes SIGINT and SIGTERM stop this server (as `stop()` does). The handler only writes
    /// one byte to a pipe, which is all a signal handler may safely do. A second signal, while
    /// requests are still being finished, exits at once (status 130): every acknowledged
    /// delivery is already recorded.
    public func stopOnInterrupt() {
        SignalWake.descriptor = wakeWrite
        // Prepared now: a signal handler must not allocate.
        let farewell = Array("appdna: interrupted again: quitting without finishing the requests under way\n".utf8)
        let message = UnsafeMutablePointer<UInt8>.allocate(capacity: farewell.count)
        message.initialize(from: farewell, count: farewell.count)
        SignalWake.farewell = (UnsafePointer(message), farewell.count)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            SignalWake.received += 1
            if SignalWake.received > 1 {
                _ = write(2, SignalWake.farewell.bytes, SignalWake.farewell.count)
                _exit(130)
            }
            var byte: UInt8 = 1
            _ = write(SignalWake.descriptor, &byte, 1)
        }
        sigemptyset(&action.sa_mask)
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
    }

    /// Stops accepting; `serve` returns once the connections' in-flight requests are answered.
    public func stop() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    private var isStopping: Bool {
        lock.locked { stopping }
    }

    /// Accepts connections until `stop()` or a signal, calling `handle` for each complete request
    /// (from several threads at once) and `rejected` for each refused one. Returns after every
    /// connection has finished its current request.
    public func serve(handle: @escaping @Sendable (Request) -> Response, rejected: @escaping @Sendable (Rejection) -> Void) {
        var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        while true {
            fds[0].revents = 0
            fds[1].revents = 0
            let ready = poll(&fds, 2, -1)
            if ready < 0 { if errno == EINTR { continue } else { break } }
            if fds[1].revents != 0 { break }
            guard fds[0].revents != 0 else { continue }
            // Bounded concurrency: wait for a free slot before taking the next connection,
            // still noticing a stop while all slots are busy.
            if !waitForFreeSlot() { break }
            var peerAddress = sockaddr_in()
            let client = SocketCalls.accept(listener, &peerAddress)
            guard client >= 0 else {
                // Out of descriptors (EMFILE) and the like: back off instead of spinning.
                if errno != EINTR && errno != ECONNABORTED { usleep(50_000) }
                continue
            }
            let peer = Self.describe(peerAddress)
            lock.locked { active += 1 }
            ThreadSpawner.spawnDetached { [self] in
                var connection = ServerConnection(fd: client, peer: peer, limits: limits, isStopping: { [self] in isStopping })
                connection.run(handle: handle, rejected: rejected)
                close(client)
                lock.locked {
                    active -= 1
                    changed.broadcast()
                }
            }
        }
        lock.locked {
            stopping = true
            while active > 0 { lock.wait(changed) }
        }
    }

    /// Waits until fewer than `maxConnections` are served; false when a stop came first.
    private func waitForFreeSlot() -> Bool {
        while true {
            let full = lock.locked { active >= limits.maxConnections }
            if !full { return true }
            var wake = pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
            if poll(&wake, 1, 20) > 0 { return false }
        }
    }

    static func describe(_ address: sockaddr_in) -> String {
        var copy = address.sin_addr
        var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        inet_ntop(AF_INET, &copy, &text, socklen_t(text.count))
        return String(decoding: text.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self) + ":\(UInt16(bigEndian: address.sin_port))"
    }

    /// "413 Content Too Large"
    public static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 204: return "No Content"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 404: return "Not Found"
        case 408: return "Request Timeout"
        case 413: return "Content Too Large"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return ""
        }
    }
}

/// Where the signal handler writes; a C function pointer cannot capture the server.
enum SignalWake {
    nonisolated(unsafe) static var descriptor: Int32 = -1
    nonisolated(unsafe) static var received: Int32 = 0
    /// The line written before quitting on a second signal.
    nonisolated(unsafe) static var farewell: (bytes: UnsafePointer<UInt8>?, count: Int) = (nil, 0)
}
