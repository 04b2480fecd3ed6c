import AppDNACore

/// One request of `HTTPServer`, assembled from the bytes of a connection as they arrive: the
/// head (read strictly, RFC 9112), then the body (Content-Length or chunked), within the
/// server's limits. No socket here: the accept loop feeds it what `recv` returned and asks what
/// to do next, so a thousand slow senders cost a buffer each and no thread.
struct RequestReader {
    let limits: HTTPServer.Limits
    /// Bytes received and not yet consumed; `start` is where the unconsumed part begins (bytes
    /// before it are dropped in batches, not one chunk at a time).
    private(set) var buffer: [UInt8]
    private var start = 0
    private var phase = Phase.head(scannedTo: 0)
    /// The body limit of the request being read: the server's until its head is admitted, then
    /// what the route allows (`admit`).
    private var bodyLimit: Int

    private enum Phase {
        /// Waiting for the blank line ending the head; bytes before `scannedTo` were looked at.
        case head(scannedTo: Int)
        /// The head is complete and waits for the server's decision (`admit`): no body byte is
        /// read for it before.
        case admitting(RawHTTPRequest.Head)
        /// Admitted: its framing decides what follows.
        case admitted(RawHTTPRequest.Head)
        case body(RawHTTPRequest.Head, Body)
    }

    private enum Body {
        case length(Int)
        /// The chunks decoded so far; `inTrailers` once the last chunk was read.
        case chunked(decoded: [UInt8], inTrailers: Bool)
    }

    /// What the reader wants next.
    enum Step {
        /// More bytes.
        case needMore
        /// The head is complete: the server decides (route, method, guard, body limit) and calls
        /// `admit`, or refuses it, before a byte of its body is read.
        case head(RawHTTPRequest.Head)
        /// The head asked for `100 Continue` and the body has not started: send it, then more bytes.
        case sendContinue
        /// A whole request; the bytes after it stay in the reader (see `leftover`).
        case request(RawHTTPRequest.Head, body: [UInt8])
        /// A request that cannot be served: answer `status` and close the connection.
        case refused(Refusal)
    }

    /// A refused request: the status it is answered with, and why (and, for 405, `Allow`).
    struct Refusal: Error, Equatable {
        let status: Int
        let reason: String
        var allow: String? = nil
    }

    init(limits: HTTPServer.Limits, buffer: [UInt8] = []) {
        self.limits = limits
        self.buffer = buffer
        bodyLimit = limits.maxBodyBytes
    }

    /// Lets the head `advance` returned go on to its body, of at most `maxBodyBytes` (within the
    /// server's own limit); the next `advance` reads it (or refuses a Content-Length over it).
    mutating func admit(maxBodyBytes: Int) {
        guard case .admitting(let head) = phase else { return }
        bodyLimit = max(0, min(maxBodyBytes, limits.maxBodyBytes))
        phase = .admitted(head)
    }

    /// The words of a 413 for `limit`: the server's own limit names its flag.
    private func limitText(_ limit: Int) -> String {
        if limit == 0 { return "this endpoint's limit (it takes no body)" }
        return limit == limits.maxBodyBytes ? limits.bodyLimitText(limit) : "this endpoint's \(NumberText.binarySize(limit)) limit"
    }

    /// Bytes held for this request (what a server-wide memory budget counts).
    var heldBytes: Int {
        if case .body(_, .chunked(let decoded, _)) = phase { return buffer.count - start + decoded.count }
        return buffer.count - start
    }

    /// Nothing received yet for this request (a connection between requests, or just accepted).
    var isEmpty: Bool {
        if case .head = phase { return buffer.count == start }
        return false
    }

    /// The head is complete and the body is being read.
    var isInBody: Bool {
        if case .body = phase { return true }
        return false
    }

    /// Of a Content-Length body being read: the bytes that came, and how many were announced.
    var bodyProgress: (received: Int, expected: Int)? {
        if case .body(_, .length(let length)) = phase { return (min(buffer.count - start, length), length) }
        return nil
    }

    /// The bytes after the request `advance` returned: the start of the next one.
    var leftover: [UInt8] { Array(buffer[start...]) }

    mutating func received(_ bytes: ArraySlice<UInt8>) {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeFirst(start)
            if case .head(let scanned) = phase { phase = .head(scannedTo: scanned - start) }
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Reads as far as the bytes received allow.
    mutating func advance() -> Step {
        while true {
            switch phase {
            case .head(let scanned):
                guard let headEnd = Self.endOfHead(buffer, from: max(start, scanned - 2)) else {
                    if buffer.count - start > limits.maxHeaderBytes { return .refused(headTooLarge) }
                    phase = .head(scannedTo: buffer.count)
                    return .needMore
                }
                // The documented limit holds for a head that arrived whole in one read, too.
                if headEnd - start > limits.maxHeaderBytes { return .refused(headTooLarge) }
                let head: RawHTTPRequest.Head
                do {
                    head = try RawHTTPRequest.parseHead(Array(buffer[start..<headEnd]), strict: true)
                } catch {
                    return .refused(Refusal(status: 400, reason: "malformed request: \(error.what)"))
                }
                start = headEnd
                guard head.version == "HTTP/1.1" || head.version == "HTTP/1.0" else {
                    return .refused(Refusal(status: 505, reason: "\(HeaderText.excerpt(head.version)) is not supported; send HTTP/1.1"))
                }
                if let refusal = OriginServerRules.refusal(head) { return .refused(refusal) }
                bodyLimit = limits.maxBodyBytes
                phase = .admitting(head)
                return .head(head)
            case .admitting(let head):
                // Not admitted yet: nothing of the body is read.
                return .head(head)
            case .admitted(let head):
                switch head.framing {
                case .untilEnd:
                    // RFC 9112 §6.3: a request with neither Content-Length nor chunked has no body.
                    phase = .head(scannedTo: start)
                    return .request(head, body: [])
                case .contentLength(let length):
                    if length > bodyLimit {
                        return .refused(Refusal(status: 413, reason: "the body (\(length) bytes) is larger than \(limitText(bodyLimit))"))
                    }
                    phase = .body(head, .length(length))
                case .chunked:
                    phase = .body(head, .chunked(decoded: [], inTrailers: false))
                }
                if Self.expectsContinue(head) && buffer.count == start { return .sendContinue }
            case .body(let head, .length(let length)):
                guard buffer.count - start >= length else { return .needMore }
                let body = Array(buffer[start..<start + length])
                start += length
                phase = .head(scannedTo: start)
                return .request(head, body: body)
            case .body(let head, .chunked(var decoded, let inTrailers)):
                if inTrailers {
                    // Trailer fields are read and dropped, up to the blank line.
                    guard let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) else {
                        if buffer.count - start > limits.maxHeaderBytes { return .refused(malformedChunks("a trailer line is too long")) }
                        return .needMore
                    }
                    let lineIsEmpty = newline == start || (newline == start + 1 && buffer[start] == UInt8(ascii: "\r"))
                    start = newline + 1
                    if lineIsEmpty {
                        phase = .head(scannedTo: start)
                        return .request(head, body: decoded)
                    }
                    continue
                }
                // Taken out of `phase` while it grows, so the array is not copied per chunk.
                phase = .body(head, .chunked(decoded: [], inTrailers: false))
                let step = decodeChunks(into: &decoded)
                switch step {
                case .last:
                    phase = .body(head, .chunked(decoded: decoded, inTrailers: true))
                case .needMore:
                    phase = .body(head, .chunked(decoded: decoded, inTrailers: false))
                    return .needMore
                case .refused(let refusal):
                    return .refused(refusal)
                }
            }
        }
    }

    private enum ChunkStep {
        case last
        case needMore
        case refused(Refusal)
    }

    /// Decodes the complete chunks in the buffer, refusing a body over the limit before its
    /// data is read.
    private mutating func decodeChunks(into decoded: inout [UInt8]) -> ChunkStep {
        let tooLarge = Refusal(status: 413, reason: "the chunked body is larger than \(limitText(bodyLimit))")
        while true {
            switch ChunkedFraming.next(in: buffer, at: start, strict: true) {
            case .chunk(let data, let next):
                guard decoded.count + data.count <= bodyLimit else { return .refused(tooLarge) }
                decoded.append(contentsOf: buffer[data])
                start = next
            case .last(let next):
                start = next
                return .last
            case .incomplete(.sizeLine):
                if buffer.count - start > limits.maxHeaderBytes { return .refused(malformedChunks("a chunk-size line is too long")) }
                return .needMore
            case .incomplete(.data(let size, _)):
                guard decoded.count + size <= bodyLimit else { return .refused(tooLarge) }
                return .needMore
            case .incomplete(.lineEndAfterData):
                return .needMore
            case .malformed(.notASize(let line), _):
                return .refused(malformedChunks("'\(HeaderText.excerpt(line))' is not a chunk size"))
            case .malformed(.sizeTooLarge, _):
                return .refused(tooLarge)
            case .malformed(.noLineEndAfterData(let size), _):
                return .refused(malformedChunks("no CRLF after \(size) bytes of chunk data"))
            }
        }
    }

    private var headTooLarge: Refusal {
        Refusal(status: 431, reason: "the request line and headers are larger than \(NumberText.binarySize(limits.maxHeaderBytes))")
    }

    private func malformedChunks(_ what: String) -> Refusal {
        Refusal(status: 400, reason: "malformed chunked body: \(what)")
    }

    /// curl sends `Expect: 100-continue` for larger bodies and waits a second for the answer.
    static func expectsContinue(_ head: RawHTTPRequest.Head) -> Bool {
        head.version == "HTTP/1.1" && head.value(of: "Expect")?.lowercased() == "100-continue"
    }

    /// Offset just past the blank line ending the head (CRLF CRLF, or LF LF from hand-typed
    /// requests), looking from `from` on.
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
}
