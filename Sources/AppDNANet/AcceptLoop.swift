import AppDNACore

/// `HTTPServer.serve`'s thread: accepts connections and polls every one whose request is still
/// arriving, reading without blocking; hands complete requests to the workers; answers the
/// refused ones itself (small answers, sent without blocking) and closes them gently; applies
/// the timeouts; and, when descriptors or the memory budget run short, closes the stalest
/// connections first.
struct AcceptLoop {
    let server: HTTPServer
    let limits: HTTPServer.Limits
    let admit: HTTPServer.Admit
    let handle: @Sendable (HTTPServer.Request) -> HTTPServer.Response
    let rejected: @Sendable (HTTPServer.Rejection) -> Void
    var polled = PolledConnections()
    private var scratch = [UInt8](repeating: 0, count: 64 << 10)
    /// Set when descriptors ran out with nothing to close: the listener is not polled until then.
    private var listenerPausedUntil: Deadline?
    /// When this turn of the loop began (monotonic nanoseconds): every byte received in it
    /// counts as progress at this time, so order of arrival breaks the ties.
    private var turn = Deadline.now()

    init(server: HTTPServer, admit: @escaping HTTPServer.Admit, handle: @escaping @Sendable (HTTPServer.Request) -> HTTPServer.Response,
         rejected: @escaping @Sendable (HTTPServer.Rejection) -> Void) {
        self.server = server
        self.limits = server.limits
        self.admit = admit
        self.handle = handle
        self.rejected = rejected
    }

    /// Serves until a stop; returns the deadline by which whatever is still under way must
    /// end (`limits.stopGraceSeconds` after the stop).
    mutating func run() -> Deadline {
        SystemFile.setNonBlocking(server.listener, true)
        var fds: [PollDescriptor] = []
        // Set by a stop: bodies already arriving may still complete until then; nothing else is read.
        var stopGrace: Deadline? = nil
        while true {
            if let grace = stopGrace {
                // Stopping: only requests whose body is arriving are waited for, within the grace.
                for index in stride(from: polled.count - 1, through: 0, by: -1) where !polled.isArrivingBody(at: index) {
                    _ = drop(at: index)
                }
                if polled.count == 0 || grace.hasPassed { return grace }
            }
            takeHandedBack()
            // While complete requests in line fill the budget, bodies wait (backpressure).
            let bodiesPaused = server.shared.withLock { $0.readyBytes } >= limits.maxBufferedBytes
            if let paused = listenerPausedUntil, paused.hasPassed { listenerPausedUntil = nil }
            fds.removeAll(keepingCapacity: true)
            let listening = listenerPausedUntil == nil && stopGrace == nil
            fds.append(listening ? PollDescriptor(server.listener) : .skipped)
            fds.append(PollDescriptor(server.wakeRead))
            for entry in polled.entries {
                switch entry.state {
                case .answering: fds.append(PollDescriptor(entry.fd, .output))
                case .reading where bodiesPaused && entry.reader.isInBody: fds.append(PollDescriptor(entry.fd, .closeOnly))
                default: fds.append(PollDescriptor(entry.fd))
                }
            }
            var timeout = polled.pollTimeout
            if listenerPausedUntil != nil || stopGrace != nil { timeout = timeout < 0 ? 50 : min(timeout, 50) }
            if Poll.wait(&fds, milliseconds: timeout) < 0 {
                if SystemError.last == .interrupted { continue }
                return stopGrace ?? Deadline(secondsFromNow: limits.stopGraceSeconds)
            }
            turn = Deadline.now()
            if fds[1].isReady {
                // A stop (1), or a worker handing a connection back (0): drain the pipe and see which.
                var drained = [UInt8](repeating: 0, count: 256)
                let count = (try? SystemFile.read(server.wakeRead, into: &drained)) ?? 0
                if count > 0 && drained[..<count].contains(1) && stopGrace == nil {
                    stopGrace = Deadline(secondsFromNow: limits.stopGraceSeconds)
                    // Answers from now on close their connections; workers end once the line is empty.
                    server.shared.withLock { $0.stopping = true }
                    continue
                }
            }
            // From the back: removal swaps the last entry in, which was looked at already.
            for index in stride(from: polled.count - 1, through: 0, by: -1) {
                if fds[index + 2].isReady && !serviceEvent(at: index) { continue }
                if polled[index].deadline.hasPassed { timedOut(at: index) }
            }
            if fds[0].isReady { acceptAll() }
            let held = polled.heldBytes
            server.shared.withLock { $0.arrivingBytes = held }
        }
    }

    /// Closes every connection still polled (the server is stopping).
    mutating func closeAll() {
        while polled.count > 0 { server.closeConnection(polled.remove(at: polled.count - 1).fd) }
    }

    // MARK: - Events

    /// Reads, writes or drains what `polled[index]`'s descriptor is ready for; false when the
    /// entry was removed (closed, or handed to a worker).
    private mutating func serviceEvent(at index: Int) -> Bool {
        switch polled[index].state {
        case .reading:
            let count = receive(polled[index].fd)
            if count == 0 { return drop(at: index) }   // closed (mid-request: nothing to answer)
            if count < 0 { return true }                // nothing after all
            polled[index].lastProgress = turn
            let wasEmpty = polled[index].reader.isEmpty
            polled[index].reader.received(scratch[..<count])
            if wasEmpty { polled[index].headStarted = turn }
            let stillPolled = step(at: index)
            enforceBudget(keeping: stillPolled ? index : nil)
            return stillPolled
        case .answering(let bytes, let sent):
            let count = bytes[sent...].withUnsafeBytes { Sockets.send(polled[index].fd, $0.baseAddress!, $0.count, dontWait: true) }
            if count < 0 && (SystemError.last == .wouldBlock || SystemError.last == .interrupted) { return true }
            if count <= 0 { return drop(at: index) }
            if sent + count < bytes.count {
                polled[index].state = .answering(bytes: bytes, sent: sent + count)
                return true
            }
            // Answered: no more from us; read what the sender still sends until it closes.
            Sockets.shutdown(polled[index].fd, .sending)
            polled[index].state = .draining(discarded: 0)
            return true
        case .draining(let discarded):
            let count = receive(polled[index].fd)
            if count == 0 { return drop(at: index) }
            if count < 0 { return true }
            if discarded + count >= limits.lingerBytes { return drop(at: index) }
            polled[index].state = .draining(discarded: discarded + count)
            return true
        }
    }

    /// One non-blocking `recv` into the scratch buffer: the count, 0 when the peer closed or
    /// reset, -1 when nothing was there after all.
    private mutating func receive(_ fd: Int32) -> Int {
        let count = scratch.withUnsafeMutableBytes { Sockets.receive(fd, into: $0, dontWait: true) }
        if count < 0 { return SystemError.last == .interrupted || SystemError.last == .wouldBlock ? -1 : 0 }
        return count
    }

    /// Advances `polled[index]`'s request as far as its bytes allow; false when the entry was
    /// removed (handed to a worker).
    private mutating func step(at index: Int) -> Bool {
        while true {
            switch polled[index].reader.advance() {
            case .needMore:
                if polled[index].reader.isInBody && polled[index].bodyStarted == nil { polled[index].bodyStarted = Deadline.now() }
                polled[index].deadline = readingDeadline(polled[index])
                return true
            case .head(let head):
                // Decided now, before the body: a refusal is answered and nothing more is read.
                switch admit(HTTPServer.Request(head: head, body: [], peer: polled[index].peer)) {
                case .admit(let maxBodyBytes):
                    polled[index].reader.admit(maxBodyBytes: maxBodyBytes)
                case .refuse(let response):
                    answer(at: index, response.with(("Connection", "close")), headOnly: head.method == "HEAD")
                    return true
                }
            case .sendContinue:
                _ = ResponseWriter.sendAll(polled[index].fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8), dontWait: true)
                polled[index].bodyStarted = Deadline.now()
            case .request(let head, let body):
                let entry = polled.remove(at: index)
                let request = HTTPServer.Request(head: head, body: body, peer: entry.peer)
                if !server.queue(HTTPServer.ReadyRequest(fd: entry.fd, request: request, leftover: entry.reader.leftover),
                                 handle: handle, rejected: rejected) {
                    // No worker exists and none can be started: say so rather than hang or crash.
                    var refused = entry
                    refused.reader = RequestReader(limits: limits)
                    polled.add(refused)
                    refuse(at: polled.count - 1, 503, "the server cannot start a thread to answer this request; try again")
                }
                return false
            case .refused(let refusal):
                refuse(at: index, refusal.status, refusal.reason, allow: refusal.allow)
                return true
            }
        }
    }

    /// When a connection still reading is given up: the idle timeout while nothing of a
    /// request came, the header timeout from the head's first byte, and in a body the idle
    /// timeout from the last byte within the whole-body limit.
    private func readingDeadline(_ entry: PolledConnections.Entry) -> Deadline {
        let now = Deadline.now()
        func from(_ start: Int64, _ seconds: Double) -> Double { Double(start - now) / 1e9 + seconds }
        if entry.reader.isEmpty { return Deadline(secondsFromNow: from(entry.lastProgress, limits.idleTimeout)) }
        if entry.reader.isInBody {
            let bodyStart = entry.bodyStarted ?? entry.lastProgress
            return Deadline(secondsFromNow: min(from(entry.lastProgress, limits.idleTimeout), from(bodyStart, limits.maxBodySeconds)))
        }
        return Deadline(secondsFromNow: from(entry.headStarted ?? entry.lastProgress, limits.headerTimeout))
    }

    private mutating func timedOut(at index: Int) {
        let entry = polled[index]
        guard case .reading = entry.state, !entry.reader.isEmpty else {
            // Idle between requests, or a refusal's linger is over: just close.
            _ = drop(at: index)
            return
        }
        if entry.reader.isInBody {
            let progress = entry.reader.bodyProgress.map { " (\($0.received) of \($0.expected) bytes came)" } ?? ""
            refuse(at: index, 408, "the body stopped arriving\(progress): idle or body timeout")
        } else {
            refuse(at: index, 408, "the headers did not arrive within \(NumberText.wholeOrTenthSeconds(limits.headerTimeout)) (header timeout)")
        }
    }

    /// Answers `polled[index]` with `status` (small, sent without blocking, the rest when the
    /// socket is writable), then drains and closes it; reported through `rejected`.
    private mutating func refuse(at index: Int, _ status: Int, _ reason: String, allow: String? = nil) {
        rejected(HTTPServer.Rejection(status: status, reason: reason, peer: polled[index].peer))
        var answer = HTTPServer.Response.text(status, reason).with(("Connection", "close"))
        if let allow { answer.headers.append(("Allow", allow)) }
        self.answer(at: index, answer, headOnly: false)
    }

    /// Sends `answer` to `polled[index]` (without blocking, the rest when the socket is
    /// writable), then drains and closes the connection: nothing more of its request is kept.
    private mutating func answer(at index: Int, _ answer: HTTPServer.Response, headOnly: Bool) {
        polled[index].reader = RequestReader(limits: limits)   // its bytes are not needed any more
        polled[index].state = .answering(bytes: ResponseWriter.serialise(answer, headOnly: headOnly), sent: 0)
        polled[index].deadline = Deadline(secondsFromNow: limits.lingerSeconds)
    }

    private mutating func drop(at index: Int) -> Bool {
        server.closeConnection(polled.remove(at: index).fd)
        return false
    }

    // MARK: - Short of memory or descriptors

    /// Over the memory budget, the bodies (other than `keeping`'s) that made progress longest
    /// ago are refused until the held bytes fit again.
    private mutating func enforceBudget(keeping: Int?) {
        let inLine = server.shared.withLock { $0.readyBytes + $0.reservedBytes }
        while polled.heldBytes + inLine > limits.maxBufferedBytes, let stalest = polled.stalestBody(excluding: keeping) {
            refuse(at: stalest, 503, "the server holds as many request bytes as it may; this body made the least progress")
        }
    }

    /// Takes every pending connection off the listener. When descriptors run out, the stalest
    /// polled connection is closed to make room; with none to close, the listener rests a moment.
    private mutating func acceptAll() {
        for _ in 0..<256 {
            let client: (fd: Int32, peer: String)
            do {
                client = try Sockets.accept(server.listener)
            } catch {
                if error == .interrupted || error == .connectionAborted { continue }
                if error == .tooManyOpenFiles || error == .fileTableFull {
                    if let stalest = polled.stalest {
                        _ = drop(at: stalest)
                        continue
                    }
                    listenerPausedUntil = Deadline(secondsFromNow: 0.05)
                }
                return   // EAGAIN: none left; anything else: try again on the next wake-up
            }
            Sockets.prepareConnection(client.fd, sendTimeout: Int(limits.idleTimeout.rounded(.up)))
            server.shared.withLock { $0.openCount += 1 }
            polled.add(PolledConnections.Entry(fd: client.fd, peer: client.peer, reader: RequestReader(limits: limits),
                                               state: .reading, deadline: Deadline(secondsFromNow: limits.idleTimeout),
                                               lastProgress: turn, sequence: polled.takeSequence(), headStarted: nil, bodyStarted: nil))
        }
    }

    /// Keep-alive connections back from the workers, polled again for their next request
    /// (which may be there already, pipelined).
    private mutating func takeHandedBack() {
        let returned = server.shared.withLock { shared -> [(fd: Int32, peer: String, leftover: [UInt8])] in
            defer { shared.handedBack = [] }
            return shared.handedBack
        }
        for connection in returned {
            let now = Deadline.now()
            polled.add(PolledConnections.Entry(fd: connection.fd, peer: connection.peer,
                                               reader: RequestReader(limits: limits, buffer: connection.leftover),
                                               state: .reading, deadline: Deadline(secondsFromNow: limits.idleTimeout),
                                               lastProgress: now, sequence: polled.takeSequence(),
                                               headStarted: connection.leftover.isEmpty ? nil : now, bodyStarted: nil))
            _ = step(at: polled.count - 1)
        }
    }
}
