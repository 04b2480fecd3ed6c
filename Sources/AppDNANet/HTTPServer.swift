import AppDNACore

/// A small HTTP/1.1 server over POSIX sockets, for `webhook listen` and `api serve`.
///
/// One thread (the accept loop, `serve`) polls every connection whose request is still
/// arriving, head *and* body, reading what comes without blocking; a request gets a worker
/// thread only once it is complete, and up to `limits.maxConnections` workers (started as
/// needed, then kept) run the handler and write the answers. So a sender that stops half way,
/// anywhere before the end of its body, costs a descriptor and its buffered bytes, never a
/// slot: a thousand of them cannot keep a real delivery waiting. Keep-alive, Content-Length and
/// chunked request bodies, and the limits a server facing the internet through a tunnel needs
/// (body cap → 413, header, idle and whole-body timeouts, a budget for buffered bytes). A bad
/// request gets its error status and the connection is closed; the server always keeps serving.
public final class HTTPServer: Sendable {
    public struct Limits: Sendable {
        /// Larger bodies are answered 413 (their bytes are not kept).
        public var maxBodyBytes: Int
        /// The request line and headers must arrive within this many seconds of the first byte.
        public var headerTimeout: Double
        /// A connection with no bytes arriving for this long (between requests, or in a body:
        /// each read of a body must come within it) is closed.
        public var idleTimeout: Double
        /// Requests processed at the same time (handler and answer); more wait in line.
        /// Connections whose request is still arriving do not count.
        public var maxConnections: Int
        /// Request line plus headers (the documented 64 KiB).
        public var maxHeaderBytes = 64 << 10
        /// A whole body must arrive within this long, however steadily it trickles.
        public var maxBodySeconds = 60.0
        /// Bytes of requests still arriving that the server holds at once. Over it, the body
        /// that made progress longest ago is refused (503), and while complete requests waiting
        /// for a worker fill it, bodies are not read further (their senders wait).
        public var maxBufferedBytes: Int
        /// After a refusal, what the sender still sends is read and dropped for up to this long
        /// and this many bytes before the connection closes, so that the answer is not lost to a
        /// reset (closing a socket with unread bytes resets it).
        public var lingerSeconds = 2.0
        public var lingerBytes = 8 << 20
        /// On stop, bodies already arriving may complete, and answers being written may be
        /// read, for this long; then they are cut off (a stalled sender or a peer that does not
        /// read cannot hold the stop for its timeouts). Connections with no request under way
        /// are closed at once.
        public var stopGraceSeconds = 1.5
        /// What sets the body limit, named after it in a 413's reason (`the 1 MiB limit
        /// (--max-body)`): the CLI says which of its flags, so Net names none. Data, not code: a
        /// command's plan holds these limits (issue 54.1).
        public var bodyLimitSetting: String? = nil

        /// How a 413's reason names the body limit of `maxBodyBytes`.
        public func bodyLimitText(_ maxBodyBytes: Int) -> String {
            "the \(NumberText.binarySize(maxBodyBytes)) limit" + (bodyLimitSetting.map { " (\($0))" } ?? "")
        }

        /// `handlerBytes`: what a handler may hold beyond its request while it runs (a forward's
        /// relayed answer), reserved with `reserve`; the default budget leaves room for it.
        public init(maxBodyBytes: Int, headerTimeout: Double, idleTimeout: Double, maxConnections: Int, handlerBytes: Int = 0) {
            self.maxBodyBytes = maxBodyBytes
            self.headerTimeout = headerTimeout
            self.idleTimeout = idleTimeout
            self.maxConnections = maxConnections
            // What the workers could hold at once, within bounds: never less than one whole
            // request and what its handler holds.
            // Saturating: the flags that set these are range-checked, but a product must not wrap.
            let (sum, sumOverflow) = maxBodyBytes.addingReportingOverflow(handlerBytes)
            let perWorker = sumOverflow ? Int.max - (64 << 10) : min(sum, Int.max - (64 << 10))
            let (all, allOverflow) = maxConnections.multipliedReportingOverflow(by: perWorker)
            maxBufferedBytes = max(perWorker + (64 << 10), allOverflow ? 256 << 20 : min(all, 256 << 20))
        }

        /// These limits within an address space of `bytes` (`ulimit -v`; nil: none): the
        /// workers' stacks and the buffered bytes each take at most a quarter of it, so that
        /// what the server holds at its limits leaves room for everything else. A Swift
        /// allocation that fails is fatal, so past these the server answers 503 instead.
        public func fitted(toAddressSpace bytes: Int?) -> Limits {
            guard let bytes else { return self }
            var fitted = self
            fitted.maxConnections = max(1, min(maxConnections, bytes / 4 / HTTPServer.workerStackBytes))
            fitted.maxBufferedBytes = max(min(maxBodyBytes + (64 << 10), bytes / 4), min(maxBufferedBytes, bytes / 4))
            return fitted
        }
    }

    /// A worker's stack. A handler parses JSON (the parser keeps its own stack), computes an
    /// HMAC and runs libcurl: none recurses deeply, and 400 workers with the default 8 MiB each
    /// reserve 3.2 GB of address space.
    public static let workerStackBytes = 512 << 10

    /// One complete request.
    public struct Request: Sendable {
        public let head: RawHTTPRequest.Head
        /// Exactly as sent (chunk framing removed).
        public let body: [UInt8]
        /// "127.0.0.1:53122"
        public let peer: String

        public init(head: RawHTTPRequest.Head, body: [UInt8], peer: String) {
            self.head = head
            self.body = body
            self.peer = peer
        }
    }

    public struct Response: Sendable {
        public var status: Int
        public var headers: [(name: String, value: String)]
        /// Written once, after the head, as it is (never copied into one buffer with the head).
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

        public init(status: Int, reason: String, peer: String) {
            self.status = status
            self.reason = reason
            self.peer = peer
        }
    }

    /// Starts a detached thread running the body; false when the system refuses one.
    public typealias ThreadStarter = @Sendable (@escaping @Sendable () -> Void) -> Bool

    public let limits: Limits
    /// The port actually bound (differs from the one asked for when that was 0).
    public let port: Int
    public let host: String

    let listener: Int32
    /// Written to by `stop()` (and the signal handler) to wake the accept loop: 1 means stop;
    /// workers write 0 when they hand a keep-alive connection back.
    let wakeRead: Int32
    let wakeWrite: Int32
    let startThread: ThreadStarter

    /// What the accept loop and the workers share; broadcast when a request is put in line
    /// for the workers, and when a worker ends.
    let shared = Locked(Shared())

    struct Shared {
        /// Worker threads started (at most `maxConnections`; each serves one request at a time).
        var workers = 0
        /// Workers waiting for a request in line.
        var idleWorkers = 0
        var stopping = false
        /// Complete requests in line for a worker, and the bytes their bodies hold.
        var ready: [ReadyRequest] = []
        var readyBytes = 0
        /// Keep-alive connections a worker finished a request on, back to the accept loop with
        /// what was read past that request.
        var handedBack: [(fd: Int32, peer: String, leftover: [UInt8])] = []
        /// Connections a worker is writing an answer to (cut off when a stop outlasts its grace).
        var answering: Set<Int32> = []
        /// Every connection the server holds open, wherever it is (polled, in line, in a worker).
        var openCount = 0
        /// Bytes the accept loop holds for requests still arriving, as of its last turn.
        var arrivingBytes = 0
        /// Bytes the workers hold: the bodies of the requests they handle (until the answer is
        /// written), and what handlers hold beyond them (a forward's answer, an inflated batch),
        /// reserved with `reserve` against the same budget.
        var reservedBytes = 0
    }

    /// A complete request and its connection, in line for a worker.
    struct ReadyRequest: Sendable {
        let fd: Int32
        let request: Request
        /// Bytes that came after the request (the start of a pipelined one).
        let leftover: [UInt8]
    }

    /// Binds and listens (status 73-like configuration errors are the caller's to word).
    /// `startThread` starts the workers (the system's threads; tests make it fail).
    public init(host: String, port: Int, limits: Limits,
                startThread: @escaping ThreadStarter = { ThreadSpawner.trySpawnDetached(stackBytes: HTTPServer.workerStackBytes, $0) }) throws(HTTPError) {
        let addressSpace = ProcessLimits.addressSpaceBytes
        self.limits = limits.fitted(toAddressSpace: addressSpace)
        if let addressSpace { ProcessLimits.fitMallocArenas(toAddressSpace: addressSpace) }
        self.host = host
        self.startThread = startThread
        let listening: (fd: Int32, port: Int)
        do {
            // A long backlog: a burst of connections waits in the kernel's queue instead of
            // being made to repeat its handshake seconds later.
            listening = try Sockets.listen(host: host, port: port, backlog: 4096)
        } catch {
            switch error {
            case .notAnAddress:
                throw Self.notAnAddress(host)
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

    /// Stops accepting; `serve` returns once the requests being handled are answered.
    public func stop() {
        wake(stopping: true)
    }

    /// Wakes the accept loop: 1 to stop, 0 to take the connections handed back.
    func wake(stopping: Bool) {
        withUnsafeBytes(of: UInt8(stopping ? 1 : 0)) { _ = try? SystemFile.write(wakeWrite, $0) }
    }

    var isStopping: Bool {
        shared.withLock { $0.stopping }
    }

    /// Connections the server holds open right now: arriving, between requests, in line, being
    /// handled or answered. What it owns, counted by itself (a process's descriptor count
    /// also moves with everything else the process does).
    public var openConnections: Int {
        shared.withLock { $0.openCount }
    }

    /// Bytes held for requests still arriving (as of the accept loop's last turn), for
    /// complete requests waiting for a worker, and reserved by handlers: what
    /// `limits.maxBufferedBytes` bounds.
    public var bufferedRequestBytes: Int {
        shared.withLock { $0.arrivingBytes + $0.readyBytes + $0.reservedBytes }
    }

    /// Takes `bytes` of the buffered-bytes budget for what a handler is about to hold (a
    /// forward's body and answer: up to 1 MiB each, times every worker); false when the budget
    /// has no room, and the handler answers 503 instead of allocating. Give it back with
    /// `release`. Without this, 400 slow forwards held 400 answers and malloc failed.
    public func reserve(_ bytes: Int) -> Bool {
        shared.withLock { shared in
            guard bytes >= 0, shared.arrivingBytes + shared.readyBytes + shared.reservedBytes <= limits.maxBufferedBytes - bytes else { return false }
            shared.reservedBytes += bytes
            return true
        }
    }

    public func release(_ bytes: Int) {
        shared.withLock { $0.reservedBytes -= bytes }
    }

    /// Closes a connection the server accepted, and counts it closed.
    func closeConnection(_ fd: Int32) {
        SystemFile.close(fd)
        shared.withLock { $0.openCount -= 1 }
    }

    /// Accepts connections until `stop()` or a signal, calling `handle` for each complete request
    /// (from several threads at once) and `rejected` for each refused one. After a stop, returns
    /// once the requests being handled are answered; bodies still arriving and answers still
    /// being written get `limits.stopGraceSeconds`, connections without a request under way
    /// are closed at once.
    /// `admit` decides each request when its head is complete, before its body is read (see
    /// `Admission`); a request it refuses reaches neither `handle` nor `rejected`.
    public func serve(admit: @escaping Admit = HTTPServer.admitAll, handle: @escaping @Sendable (Request) -> Response,
                      rejected: @escaping @Sendable (Rejection) -> Void) {
        var loop = AcceptLoop(server: self, admit: admit, handle: handle, rejected: rejected)
        let graceEnds = loop.run()
        loop.closeAll()
        finishWorkers(graceEnds: graceEnds)
    }

    /// Waits for the workers to end after a stop; answers still being written when the grace
    /// ends are cut off by shutting their sockets, which ends a blocked `send` at once.
    /// Handlers are not cut: they finish (and record) what they were given.
    func finishWorkers(graceEnds: Deadline) {
        var cut = false
        // Complete requests still in line are served: the workers end once it is empty.
        shared.withLock { shared in
            shared.stopping = true
            self.shared.broadcast()
        }
        while shared.withLock({ $0.workers > 0 }) {
            if !cut && graceEnds.hasPassed {
                cut = true
                shared.withLock { shared in for fd in shared.answering { Sockets.shutdown(fd, .both) } }
            }
            var nothing: [PollDescriptor] = []
            _ = Poll.wait(&nothing, milliseconds: 20)
        }
        shared.withLock { shared in
            for returned in shared.handedBack { SystemFile.close(returned.fd); shared.openCount -= 1 }
            shared.handedBack = []
        }
    }
}

extension HTTPServer {
    /// `http://HOST:PORT` of this server as a client writes it: an IPv6 address in brackets.
    public var baseURL: String { Self.baseURL(host: host, port: port) }

    /// Refuses a `host` that `init` could not listen on, as `init` would, without a socket (a
    /// command's plan checks it before anything is opened or bound).
    public static func checkHost(_ host: String) throws(HTTPError) {
        if !Sockets.isListenAddress(host) { throw notAnAddress(host) }
    }

    static func notAnAddress(_ host: String) -> HTTPError {
        // A usage error (64): 78 is what the help keeps for a missing secret or key.
        HTTPError(.usage, "'\(host)' is not an IPv4 or IPv6 address to listen on",
                  hint: "use 127.0.0.1 (the default), ::1, or 0.0.0.0 / :: for all interfaces",
                  settingFact: .listenAddressInvalid(host))
    }

    /// The same, on loopback when the server listens on every interface (`0.0.0.0`, `::`):
    /// the URL a command on this machine can send to.
    public var loopbackURL: String {
        Self.baseURL(host: host == "0.0.0.0" ? "127.0.0.1" : host == "::" ? "::1" : host, port: port)
    }

    static func baseURL(host: String, port: Int) -> String {
        host.utf8.contains(UInt8(ascii: ":")) ? "http://[\(host)]:\(port)" : "http://\(host):\(port)"
    }
}
