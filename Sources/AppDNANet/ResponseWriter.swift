import AppDNACore

/// How `HTTPServer` puts answers on the wire: the head, then the body as it is (never copied
/// into one buffer with the head: a handler's large answer is held once), no body after a
/// HEAD request or for the statuses that have none.
enum ResponseWriter {
    /// Settings of a newly accepted socket (close-on-exec and no SIGPIPE are set by
    /// `SocketCalls.accept`): blocking for the workers' writes (Darwin's accept passes the
    /// listener's O_NONBLOCK on, Linux's does not; the accept loop reads with MSG_DONTWAIT), no
    /// Nagle delay, and a send timeout so that a peer that stops reading our answer cannot hold
    /// a worker forever.
    static func prepare(_ fd: Int32, limits: HTTPServer.Limits) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        SocketCalls.setSendTimeout(fd, seconds: Int(limits.idleTimeout.rounded(.up)))
        SocketCalls.setOption(fd, SocketCalls.tcpProtocol, TCP_NODELAY, 1)
    }

    /// Writes `response` (blocking, within the socket's send timeout); false when the peer went away.
    static func write(_ fd: Int32, _ response: HTTPServer.Response, headOnly: Bool) -> Bool {
        let hasBody = !headOnly && Self.hasBody(response.status) && !response.body.isEmpty
        // A small answer goes out in one segment; a large body is sent from where it is.
        if hasBody && response.body.count <= 16 << 10 {
            return sendAll(fd, serialise(response, headOnly: false))
        }
        guard sendAll(fd, head(response)) else { return false }
        return !hasBody || sendAll(fd, response.body)
    }

    /// Head and body in one buffer: for the small answers the server gives itself.
    static func serialise(_ response: HTTPServer.Response, headOnly: Bool) -> [UInt8] {
        headOnly || !hasBody(response.status) ? head(response) : head(response) + response.body
    }

    /// The status line and headers, with the Content-Length the body has (also for a HEAD
    /// request, RFC 9110 §9.3.2: what a GET would have answered).
    static func head(_ response: HTTPServer.Response) -> [UInt8] {
        var head = "HTTP/1.1 \(response.status) \(HTTPStatus.reasonPhrase(response.status))\r\n"
        for header in response.headers { head += "\(header.name): \(header.value)\r\n" }
        if hasBody(response.status) { head += "Content-Length: \(response.body.count)\r\n" }
        head += "\r\n"
        return Array(head.utf8)
    }

    /// 1xx, 204 and 304 answers have no body (RFC 9110 §6.4.1).
    static func hasBody(_ status: Int) -> Bool {
        !(100...199).contains(status) && status != 204 && status != 304
    }

    static func sendAll(_ fd: Int32, _ bytes: [UInt8], flags: Int32 = 0) -> Bool {
        bytes.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let n = SocketCalls.sendWithoutSignal(fd, raw.baseAddress! + sent, raw.count - sent, flags: flags)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                sent += n
            }
            return true
        }
    }
}

extension HTTPServer.Response {
    func with(_ header: (name: String, value: String)) -> HTTPServer.Response {
        var copy = self
        copy.headers.append(header)
        return copy
    }
}
