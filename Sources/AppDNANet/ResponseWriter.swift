import AppDNACore

/// How `HTTPServer` puts answers on the wire: the head, then the body as it is (never copied
/// into one buffer with the head: a handler's large answer is held once), no body after a
/// HEAD request or for the statuses that have none.
enum ResponseWriter {
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

    /// Sends every byte (blocking, within the socket's send timeout; with `dontWait`, only
    /// what fits now); false when the peer went away or the time ran out.
    static func sendAll(_ fd: Int32, _ bytes: [UInt8], dontWait: Bool = false) -> Bool {
        bytes.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let n = Sockets.send(fd, raw.baseAddress! + sent, raw.count - sent, dontWait: dontWait)
                if n < 0 && SystemError.last == .interrupted { continue }
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
