import AppDNACore

/// The worker threads of `HTTPServer`: each takes a complete request in line, runs the
/// handler, writes the answer, and hands a keep-alive connection back to the accept loop.
extension HTTPServer {
    /// Puts a complete request in line: an idle worker takes it, or a new one starts while fewer
    /// than `maxConnections` exist, or it waits its turn. False when no worker exists and
    /// none can be started (the system refuses a thread): the caller answers 503.
    func queue(_ item: ReadyRequest, handle: @escaping @Sendable (Request) -> Response,
               rejected: @escaping @Sendable (Rejection) -> Void) -> Bool {
        let startWorker = shared.withLock { shared -> Bool in
            shared.ready.append(item)
            shared.readyBytes += item.request.body.count
            if shared.idleWorkers > 0 {
                self.shared.broadcast()
                return false
            }
            guard shared.workers < limits.maxConnections else { return false }
            shared.workers += 1
            return true
        }
        guard startWorker else { return true }
        if startThread({ [self] in work(handle: handle) }) { return true }
        return shared.withLock { shared -> Bool in
            shared.workers -= 1
            // The workers there are will take it in turn; with none, it cannot be served.
            guard shared.workers == 0, let index = shared.ready.firstIndex(where: { $0.fd == item.fd }) else { return true }
            shared.ready.remove(at: index)
            shared.readyBytes -= item.request.body.count
            return false
        }
    }

    /// One worker: serves the requests in line, one at a time, until the server stops.
    func work(handle: @escaping @Sendable (Request) -> Response) {
        while true {
            // Idle (counted in `idleWorkers`) until a request is in line or the server stops.
            let next = shared.withLock(until: { !$0.ready.isEmpty || $0.stopping },
                                       counting: \.idleWorkers) { shared -> ReadyRequest? in
                guard !shared.ready.isEmpty else {
                    shared.workers -= 1
                    self.shared.broadcast()
                    return nil
                }
                let item = shared.ready.removeFirst()
                // The body is held until its answer is written: still counted (issue 49).
                shared.readyBytes -= item.request.body.count
                shared.reservedBytes += item.request.body.count
                return item
            }
            guard let item = next else { return }
            let keepAlive = answer(item, handle: handle)
            release(item.request.body.count)
            let handedOver = shared.withLock { shared -> Bool in
                guard keepAlive && !shared.stopping else { return false }
                shared.handedBack.append((item.fd, item.request.peer, item.leftover))
                return true
            }
            if handedOver {
                // Wakes the accept loop to poll the connection for its next request.
                wake(stopping: false)
            } else {
                closeConnection(item.fd)
            }
        }
    }

    /// Runs the handler and writes its answer; true when the connection stays open for another request.
    func answer(_ item: ReadyRequest, handle: (Request) -> Response) -> Bool {
        var response = handle(item.request)
        let keepAlive = Self.wantsKeepAlive(item.request.head) && !isStopping
        response.headers.append(("Connection", keepAlive ? "keep-alive" : "close"))
        shared.withLock { _ = $0.answering.insert(item.fd) }
        let written = ResponseWriter.write(item.fd, response, headOnly: item.request.head.method == "HEAD")
        shared.withLock { _ = $0.answering.remove(item.fd) }
        return written && keepAlive
    }

    static func wantsKeepAlive(_ head: RawHTTPRequest.Head) -> Bool {
        let connection = head.value(of: "Connection")?.lowercased() ?? ""
        if head.version == "HTTP/1.0" { return connection.contains("keep-alive") }
        return !connection.contains("close")
    }
}
