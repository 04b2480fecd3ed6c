import AppDNACore

/// One request on a connection of `HTTPServer`, in a worker thread: the head is already in
/// `buffer` (the accept loop waited for it); reads the body, enforcing the limits, and writes
/// the answer. Keep-alive connections go back to the accept loop between requests. Every way a request can be bad ends in an
/// error status (or, for a silent peer, just a close) and the end of this connection only.
struct ServerConnection {
    let fd: Int32
    let peer: String
    let limits: HTTPServer.Limits
    let isStopping: () -> Bool
    /// Bytes received and not yet consumed (the start of the next request, after a body).
    var buffer: [UInt8] = []

    /// Why reading stopped before a whole request arrived.
    enum ReadFailure: Error {
        /// The peer closed the connection (or reset it).
        case closed
        /// No bytes within the time allowed.
        case timedOut
    }

    init(fd: Int32, peer: String, limits: HTTPServer.Limits, buffer: [UInt8], isStopping: @escaping () -> Bool) {
        self.fd = fd
        self.peer = peer
        self.limits = limits
        self.buffer = buffer
        self.isStopping = isStopping
    }

    /// Settings of a newly accepted socket (close-on-exec and no SIGPIPE are set by
    /// `Sockets.accept`): blocking, no Nagle delay, and a send timeout so that a peer that stops
    /// reading our answer cannot hold a worker forever.
    static func prepare(_ fd: Int32, limits: HTTPServer.Limits) {
        Sockets.prepareConnection(fd, sendTimeout: Int(limits.idleTimeout.rounded(.up)))
    }

    /// Reads the request whose head is in `buffer` (and its body, from the socket), answers it;
    /// true when the connection stays open for another request (the accept loop then waits for
    /// its next head).
    mutating func serveOne(handle: (HTTPServer.Request) -> HTTPServer.Response, rejected: (HTTPServer.Rejection) -> Void) -> Bool {
        switch readRequest() {
        case .closed:
            return false
        case .refused(let refusal):
            reject(refusal.status, refusal.reason, rejected)
            return false
        case .request(let request):
            var response = handle(request)
            let keepAlive = wantsKeepAlive(request.head) && !isStopping()
            response.headers.append(("Connection", keepAlive ? "keep-alive" : "close"))
            return write(response) && keepAlive
        }
    }

    /// A refused request: the status it is answered with, and why.
    struct Refusal: Error {
        let status: Int
        let reason: String
    }

    enum ReadOutcome {
        case request(HTTPServer.Request)
        case refused(Refusal)
        /// The peer went away, or stayed idle between requests, or the server is stopping.
        case closed
    }

    func reject(_ status: Int, _ reason: String, _ rejected: (HTTPServer.Rejection) -> Void) {
        rejected(HTTPServer.Rejection(status: status, reason: reason, peer: peer))
        _ = write(.text(status, reason).with(("Connection", "close")))
    }

    func wantsKeepAlive(_ head: RawHTTPRequest.Head) -> Bool {
        let connection = head.value(of: "Connection")?.lowercased() ?? ""
        if head.version == "HTTP/1.0" { return connection.contains("keep-alive") }
        return !connection.contains("close")
    }

    // MARK: - Reading

    mutating func readRequest() -> ReadOutcome {
        // The accept loop hands over a connection once its head is complete (or too large); the
        // loop below only matters when it is too large.
        let headerDeadline = Deadline(secondsFromNow: limits.headerTimeout)
        var headEnd: Int? = Self.endOfHead(buffer)
        while headEnd == nil {
            if buffer.count > limits.maxHeaderBytes {
                return .refused(Refusal(status: 431, reason: "the request line and headers are larger than \(limits.maxHeaderBytes >> 10) KiB"))
            }
            do {
                try fill(until: headerDeadline)
            } catch .timedOut {
                return .refused(Refusal(status: 408, reason: "the headers did not arrive within \(NumberText.wholeOrTenthSeconds(limits.headerTimeout)) (header timeout)"))
            } catch {
                return .closed
            }
            headEnd = Self.endOfHead(buffer)
        }
        let head: RawHTTPRequest.Head
        do {
            head = try RawHTTPRequest.parseHead(Array(buffer[..<headEnd!]), strict: true)
        } catch {
            return .refused(Refusal(status: 400, reason: "malformed request: \(error.what)"))
        }
        buffer.removeFirst(headEnd!)
        guard head.version == "HTTP/1.1" || head.version == "HTTP/1.0" else {
            return .refused(Refusal(status: 505, reason: "\(head.version) is not supported; send HTTP/1.1"))
        }
        let bodyDeadline = Deadline(secondsFromNow: limits.maxBodySeconds)
        let body: [UInt8]
        switch head.framing {
        case .untilEnd:
            // RFC 9112 §6.3: a request with neither Content-Length nor chunked has no body.
            body = []
        case .contentLength(let length):
            if length > limits.maxBodyBytes {
                return .refused(Refusal(status: 413, reason: "the body (\(length) bytes) is larger than \(limits.bodyLimitText(limits.maxBodyBytes))"))
            }
            continueIfExpected(head)
            do {
                while buffer.count < length { try fill(idleUntil: bodyDeadline) }
            } catch {
                return bodyFailure(error, got: buffer.count, of: length)
            }
            body = Array(buffer[..<length])
            buffer.removeFirst(length)
        case .chunked:
            continueIfExpected(head)
            do {
                body = try readChunkedBody(deadline: bodyDeadline)
            } catch let refusal as Refusal {
                return .refused(refusal)
            } catch {
                return bodyFailure(error as? ReadFailure ?? .closed, got: nil, of: nil)
            }
        }
        return .request(HTTPServer.Request(head: head, body: body, peer: peer))
    }

    func bodyFailure(_ failure: ReadFailure, got: Int?, of length: Int?) -> ReadOutcome {
        switch failure {
        case .timedOut:
            let progress = got.map { " (\($0) of \(length!) bytes came)" } ?? ""
            return .refused(Refusal(status: 408, reason: "the body stopped arriving\(progress): idle or body timeout"))
        case .closed:
            return .closed
        }
    }

    /// curl sends `Expect: 100-continue` for larger bodies and waits a second for this.
    func continueIfExpected(_ head: RawHTTPRequest.Head) {
        guard head.value(of: "Expect")?.lowercased() == "100-continue" else { return }
        _ = Self.sendAll(fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
    }

    /// A chunked body as it arrives (the framing read by `ChunkedFraming`, shared with the
    /// request-dump parser), within the body limit; trailer fields are read and ignored.
    mutating func readChunkedBody(deadline: Deadline) throws -> [UInt8] {
        var body: [UInt8] = []
        let tooLarge = Refusal(status: 413, reason: "the chunked body is larger than \(limits.bodyLimitText(limits.maxBodyBytes))")
        while true {
            switch ChunkedFraming.next(in: buffer, at: 0) {
            case .chunk(let data, let next):
                guard body.count + data.count <= limits.maxBodyBytes else { throw tooLarge }
                body.append(contentsOf: buffer[data])
                buffer.removeFirst(next)
            case .last(let next):
                buffer.removeFirst(next)
                while !(try readLine(deadline: deadline)).isEmpty {}
                return body
            case .incomplete(.sizeLine):
                if buffer.count > limits.maxHeaderBytes {
                    throw Refusal(status: 400, reason: "malformed chunked body: a chunk-size line is too long")
                }
                try fill(idleUntil: deadline)
            case .incomplete(.data(let size, _)):
                // Refused before the data is read.
                guard body.count + size <= limits.maxBodyBytes else { throw tooLarge }
                try fill(idleUntil: deadline)
            case .incomplete(.lineEndAfterData):
                try fill(idleUntil: deadline)
            case .malformed(.notASize(let line), _):
                throw Refusal(status: 400, reason: "malformed chunked body: '\(line.prefix(40))' is not a chunk size")
            case .malformed(.sizeTooLarge, _):
                throw tooLarge
            case .malformed(.noLineEndAfterData(let size), _):
                throw Refusal(status: 400, reason: "malformed chunked body: no CRLF after \(size) bytes of chunk data")
            }
        }
    }

    /// One trailer line (CRLF or LF ended) of a chunked body, without its terminator.
    mutating func readLine(deadline: Deadline) throws -> [UInt8] {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                var line = Array(buffer[..<newline])
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                buffer.removeFirst(newline + 1)
                return line
            }
            if buffer.count > limits.maxHeaderBytes {
                throw Refusal(status: 400, reason: "malformed chunked body: a chunk-size or trailer line is too long")
            }
            try fill(idleUntil: deadline)
        }
    }

    /// Offset just past the blank line ending the head (CRLF CRLF, or LF LF from hand-typed requests).
    /// `from`: where to start looking (bytes before it were looked at already, all but the
    /// last two), so a head trickling in byte by byte is scanned once, not once per byte.
    static func endOfHead(_ bytes: [UInt8], from start: Int = 0) -> Int? {
        var index = max(0, start)
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\n") {
                if index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "\n") { return index + 2 }
                if index + 2 < bytes.count && bytes[index + 1] == UInt8(ascii: "\r") && bytes[index + 2] == UInt8(ascii: "\n") { return index + 3 }
            }
            index += 1
        }
        return nil
    }

    /// More bytes, before `deadline`.
    mutating func fill(until deadline: Deadline) throws(ReadFailure) {
        let before = buffer.count
        while buffer.count == before {
            if deadline.hasPassed { throw .timedOut }
            try receive(waitingAtMost: deadline.remaining)
        }
    }

    /// More bytes, within the idle timeout and before `deadline`.
    mutating func fill(idleUntil deadline: Deadline) throws(ReadFailure) {
        let idle = Deadline(secondsFromNow: min(limits.idleTimeout, deadline.remaining))
        try fill(until: idle)
    }

    /// One `recv` after waiting up to `seconds` for data; returns with nothing on a timeout
    /// (the caller checks its deadline).
    mutating func receive(waitingAtMost seconds: Double) throws(ReadFailure) {
        var ready = [PollDescriptor(fd)]
        let waited = Poll.wait(&ready, milliseconds: Int32(max(1, (seconds * 1000).rounded(.up))))
        if waited == 0 || (waited < 0 && SystemError.last == .interrupted) { return }
        if waited < 0 { throw .closed }
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let count = chunk.withUnsafeMutableBytes { Sockets.receive(fd, into: $0) }
        if count < 0 && SystemError.last == .interrupted { return }
        if count <= 0 { throw .closed }
        buffer.append(contentsOf: chunk[..<count])
    }

    // MARK: - Writing

    func write(_ response: HTTPServer.Response) -> Bool {
        Self.sendAll(fd, Self.serialise(response))
    }

    static func serialise(_ response: HTTPServer.Response) -> [UInt8] {
        var head = "HTTP/1.1 \(response.status) \(HTTPStatus.reasonPhrase(response.status))\r\n"
        for header in response.headers { head += "\(header.name): \(header.value)\r\n" }
        head += "Content-Length: \(response.body.count)\r\n\r\n"
        return Array(head.utf8) + response.body
    }

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
