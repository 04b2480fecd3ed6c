import AppDNACore

/// The worker threads of `HTTPServer`: each takes a complete request in line, runs the
/// handler, writes the answer, and hands a keep-alive connection back to the accept loop.
extension HTTPServer {
    /// Puts a complete request in line: an idle worker takes it, or a new one starts while fewer
    /// than `maxConnections` exist, or it waits its turn. False when no worker exists and
    /// none can be started (the system refuses a thread): the caller answers 503.
    func queue(_ item: ReadyRequest, handle: @escaping @Sendable (Request) -> Response,
               rejected: @escaping @Sendable (Rejection) -> Void) -> Bool {
        let startWorker = lock.locked { () -> Bool in
            ready.append(item)
            readyBytes += item.request.body.count
            if idleWorkers > 0 {
                changed.broadcast()
                return false
            }
            guard workers < limits.maxConnections else { return false }
            workers += 1
            return true
        }
        guard startWorker else { return true }
        if startThread({ [self] in work(handle: handle) }) { return true }
        return lock.locked { () -> Bool in
            workers -= 1
            // The workers there are will take it in turn; with none, it cannot be served.
            guard workers == 0, let index = ready.firstIndex(where: { $0.fd == item.fd }) else { return true }
            ready.remove(at: index)
            readyBytes -= item.request.body.count
            return false
        }
    }

    /// One worker: serves the requests in line, one at a time, until the server stops.
    func work(handle: @escaping @Sendable (Request) -> Response) {
        while true {
            let next = lock.locked { () -> ReadyRequest? in
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
                let item = ready.removeFirst()
                readyBytes -= item.request.body.count
                return item
            }
            guard let item = next else { return }
            let keepAlive = answer(item, handle: handle)
            let handedOver = lock.locked { () -> Bool in
                guard keepAlive && !stopping else { return false }
                handedBack.append((item.fd, item.request.peer, item.leftover))
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
        lock.locked { _ = answering.insert(item.fd) }
        let written = ResponseWriter.write(item.fd, response, headOnly: item.request.head.method == "HEAD")
        lock.locked { _ = answering.remove(item.fd) }
        return written && keepAlive
    }

    static func wantsKeepAlive(_ head: RawHTTPRequest.Head) -> Bool {
        let connection = head.value(of: "Connection")?.lowercased() ?? ""
        if head.version == "HTTP/1.0" { return connection.contains("keep-alive") }
        return !connection.contains("close")
    }
}
