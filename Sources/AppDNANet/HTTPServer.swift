import AppDNACore

/// A small HTTP/1.1 server over POSIX sockets, for `webhook listen`: one thread polls every
/// connection waiting for a request head, and up to `limits.maxConnections` worker threads
/// (started as needed, then kept) serve the requests whose head is complete. Keep-alive,
/// Content-Length and chunked request bodies, and the limits a server facing the internet through a tunnel needs (body cap → 413,
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
        /// Requests processed at the same time (head complete, body being read, handler, answer);
        /// more wait in line. Connections still waiting for a head do not count.
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
    /// Signalled when a connection is put in line for the workers, and when a worker ends.
    private let changed = PthreadCondition()
    /// Worker threads started (at most `maxConnections`; each serves one request at a time).
    private var workers = 0
    /// Workers waiting for a connection in line.
    private var idleWorkers = 0
    private var stopping = false

    /// Binds and listens (status 73-like configuration errors are the caller's to word).
    public init(host: String, port: Int, limits: Limits) throws(HTTPError) {
        self.limits = limits
        self.host = host
        let listening: (fd: Int32, port: Int)
        do {
            listening = try Sockets.listen(host: host, port: port)
        } catch {
            switch error {
            case .notIPv4:
                throw HTTPError(.configuration, "'\(host)' is not an IPv4 address to listen on", hint: "use 127.0.0.1 (the default) or 0.0.0.0 for all interfaces",
                                settingFact: .listenAddressNotIPv4(host))
            case .socket(let code):
                throw HTTPError(.internalError, "socket: \(code)")
            case .bind(let code):
                throw HTTPError(.unavailable, "cannot listen on \(host):\(port): \(code)",
                                remedy: code == .addressInUse ? .otherPort : nil)
            }
        }
        self.port = listening.port
        listener = listening.fd
        let wake: (read: Int32, write: Int32)
        do {
            wake = try SystemFile.makePipe(nonBlockingWrites: true)
        } catch {
            SystemFile.close(listening.fd)
            throw HTTPError(.internalError, "pipe: \(error)")
        }
        wakeRead = wake.read
        wakeWrite = wake.write
    }

    deinit {
        Interruption.stopWaking(wakeWrite)
        SystemFile.close(listener)
        SystemFile.close(wakeRead)
        SystemFile.close(wakeWrite)
    }

    /// Makes SIGINT and SIGTERM stop this server (as `stop()` does). The handler only writes
    /// one byte to a pipe, which is all a signal handler may safely do. A second signal, while
    /// requests are still being finished, exits at once with 128 + that signal (130 for
    /// SIGINT, 143 for SIGTERM): every acknowledged delivery is already recorded.
    public func stopOnInterrupt() {
        Interruption.install()
        Interruption.exitOnSecondSignal(saying: "appdna: interrupted again: quitting without finishing the requests under way\n")
        Interruption.wake(wakeWrite)
    }

    /// Stops accepting; `serve` returns once the connections' in-flight requests are answered.
    public func stop() {
        withUnsafeBytes(of: UInt8(1)) { _ = try? SystemFile.write(wakeWrite, $0) }
    }

    private var isStopping: Bool {
        lock.locked { stopping }
    }

    /// A connection between the accept loop and the workers, with the bytes read so far.
    typealias Handover = (fd: Int32, peer: String, buffer: [UInt8])
    /// Connections a worker finished a keep-alive request on, handed back to the accept loop
    /// (with what it read past that request) to wait for the next head.
    private var handedBack: [Handover] = []
    /// Connections whose head is complete, in line for a worker.
    private var ready: [Handover] = []

    /// Accepts connections until `stop()` or a signal, calling `handle` for each complete request
    /// (from several threads at once) and `rejected` for each refused one. Returns after every
    /// connection has finished its current request.
    ///
    /// One thread (this one) polls the listener and every connection that is still waiting for
    /// a request head; a connection gets a worker thread only once its head is complete, and only
    /// those count against `maxConnections`. So clients that send half a request and stop cost
    /// a descriptor each, not a slot; when descriptors run out, the oldest of them is closed to
    /// make room for a new client.
    public func serve(handle: @escaping @Sendable (Request) -> Response, rejected: @escaping @Sendable (Rejection) -> Void) {
        SystemFile.setNonBlocking(listener, true)
        var waiting = WaitingConnections()
        var scratch = [UInt8](repeating: 0, count: 16 << 10)
        var fds: [PollDescriptor] = []
        serving: while true {
            for returned in lock.locked({ () -> [Handover] in defer { handedBack = [] }; return handedBack }) {
                waiting.add(fd: returned.fd, peer: returned.peer, buffer: returned.buffer,
                            idleTimeout: limits.idleTimeout, headerTimeout: limits.headerTimeout)
                // A pipelined request may be there already.
                if waiting.entries[waiting.count - 1].headIsComplete {
                    let entry = waiting.remove(at: waiting.count - 1)
                    queueReady((entry.fd, entry.peer, entry.buffer), handle: handle, rejected: rejected)
                }
            }
            fds.removeAll(keepingCapacity: true)
            fds.append(PollDescriptor(listener))
            fds.append(PollDescriptor(wakeRead))
            for entry in waiting.entries { fds.append(PollDescriptor(entry.fd)) }
            if Poll.wait(&fds, milliseconds: waiting.pollTimeout) < 0 { if SystemError.last == .interrupted { continue } else { break } }
            if fds[1].isReady {
                // A stop, or a worker handing a connection back: drain the pipe and see which.
                // Workers write 0, `stop()` and the signal handler 1.
                var drained = [UInt8](repeating: 0, count: 256)
                let count = (try? SystemFile.read(wakeRead, into: &drained)) ?? 0
                if count > 0 && drained[..<count].contains(1) { break serving }
            }
            // Connections: new bytes, closes, timeouts. From the back, as removal swaps.
            for index in stride(from: waiting.count - 1, through: 0, by: -1) {
                if fds[index + 2].isReady {
                    guard waiting.receive(at: index, into: &scratch, headerTimeout: limits.headerTimeout) else {
                        SystemFile.close(waiting.remove(at: index).fd)
                        continue
                    }
                    if waiting.entries[index].headIsComplete || waiting.entries[index].buffer.count > limits.maxHeaderBytes {
                        let entry = waiting.remove(at: index)
                        queueReady((entry.fd, entry.peer, entry.buffer), handle: handle, rejected: rejected)
                        continue
                    }
                }
                if waiting.entries[index].deadline.hasPassed {
                    let entry = waiting.remove(at: index)
                    if !entry.buffer.isEmpty {
                        let reason = "the headers did not arrive within \(NumberText.wholeOrTenthSeconds(limits.headerTimeout)) (header timeout)"
                        rejected(Rejection(status: 408, reason: reason, peer: entry.peer))
                        _ = ServerConnection.sendAll(entry.fd, ServerConnection.serialise(.text(408, reason).with(("Connection", "close"))), dontWait: true)
                    }
                    SystemFile.close(entry.fd)
                }
            }
            if fds[0].isReady { acceptAll(into: &waiting) }
        }
        for entry in waiting.entries { SystemFile.close(entry.fd) }
        lock.locked {
            stopping = true
            for queued in ready { SystemFile.close(queued.fd) }
            ready = []
            changed.broadcast()
            while workers > 0 { lock.wait(changed) }
            for returned in handedBack { SystemFile.close(returned.fd) }
            handedBack = []
        }
    }

    /// Takes every pending connection off the listener. When descriptors run out, the oldest
    /// connection still waiting for its head is closed to make room.
    private func acceptAll(into waiting: inout WaitingConnections) {
        for _ in 0..<256 {
            let client: (fd: Int32, peer: String)
            do {
                client = try Sockets.accept(listener)
            } catch {
                if error == .interrupted || error == .connectionAborted { continue }
                if error == .tooManyOpenFiles || error == .fileTableFull, let oldest = waiting.oldest {
                    SystemFile.close(waiting.remove(at: oldest).fd)
                    continue
                }
                return   // EAGAIN: none left; anything else: try again on the next wake-up
            }
            ServerConnection.prepare(client.fd, limits: limits)
            waiting.add(fd: client.fd, peer: client.peer, buffer: [],
                        idleTimeout: limits.idleTimeout, headerTimeout: limits.headerTimeout)
        }
    }

    /// A connection with a complete head, put in line for a worker: an idle one takes it, or a
    /// new one starts while fewer than `maxConnections` exist; otherwise it waits its turn.
    private func queueReady(_ connection: Handover, handle: @escaping @Sendable (Request) -> Response,
                            rejected: @escaping @Sendable (Rejection) -> Void) {
        let startWorker = lock.locked { () -> Bool in
            ready.append(connection)
            if idleWorkers > 0 {
                changed.broadcast()
                return false
            }
            guard workers < limits.maxConnections else { return false }
            workers += 1
            return true
        }
        if startWorker {
            ThreadSpawner.spawnDetached { [self] in work(handle: handle, rejected: rejected) }
        }
    }

    /// One worker: serves the connections in line, one request at a time, until the server
    /// stops. A keep-alive connection goes back to the accept loop to wait for its next head.
    private func work(handle: @escaping @Sendable (Request) -> Response, rejected: @escaping @Sendable (Rejection) -> Void) {
        while true {
            let next = lock.locked { () -> Handover? in
                while ready.isEmpty && !stopping {
                    idleWorkers += 1
                    lock.wait(changed)
                    idleWorkers -= 1
                }
                guard !ready.isEmpty else {
                    workers -= 1
                    changed.broadcast()
                    return nil
                }
                return ready.removeFirst()
            }
            guard let connection = next else { return }
            var worker = ServerConnection(fd: connection.fd, peer: connection.peer, limits: limits, buffer: connection.buffer,
                                          isStopping: { [self] in isStopping })
            let keepAlive = worker.serveOne(handle: handle, rejected: rejected)
            let handedOver = lock.locked { () -> Bool in
                guard keepAlive && !stopping else { return false }
                handedBack.append((connection.fd, connection.peer, worker.buffer))
                return true
            }
            if handedOver {
                // Wakes the accept loop to wait for the connection's next head.
                withUnsafeBytes(of: UInt8(0)) { _ = try? SystemFile.write(wakeWrite, $0) }
            } else {
                SystemFile.close(connection.fd)
            }
        }
    }
}
