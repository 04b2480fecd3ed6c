/// The state machine behind `RawHTTPRequest.parse`: a cursor over the input bytes.
struct RequestDumpParser {
    let data: [UInt8]
    var position = 0
    /// A server's reading (`webhook listen`), strict where a proxy must be (RFC 9112): no
    /// obsolete line folding, no NUL/CR/LF in a value, one Transfer-Encoding field and never
    /// with Content-Length. A capture (`webhook verify --request`) is read forgivingly.
    let strict: Bool

    init(data: [UInt8], strict: Bool = false) {
        self.data = data
        self.strict = strict
    }

    /// One line without its terminator; `terminated` is false when the input ended first.
    struct Line {
        let bytes: ArraySlice<UInt8>
        let start: Int
        let terminated: Bool
        var text: String { String(decoding: bytes, as: UTF8.self) }
    }

    /// Reads up to the next LF, dropping one CR before it: both CRLF and bare LF end a line.
    mutating func readLine() -> Line? {
        guard position < data.count else { return nil }
        let start = position
        var end = start
        while end < data.count && data[end] != UInt8(ascii: "\n") { end += 1 }
        let terminated = end < data.count
        position = terminated ? end + 1 : end
        var contentEnd = end
        if terminated && contentEnd > start && data[contentEnd - 1] == UInt8(ascii: "\r") { contentEnd -= 1 }
        return Line(bytes: data[start..<contentEnd], start: start, terminated: terminated)
    }

    func fail(_ what: String, at offset: Int, hint: String? = nil) -> RequestDumpError {
        RequestDumpError(what: what, line: lineNumber(at: offset), byteOffset: offset, hint: hint)
    }

    /// 1-based line containing `offset`; counted only when an error needs it.
    func lineNumber(at offset: Int) -> Int {
        var line = 1
        for index in 0..<min(offset, data.count) where data[index] == UInt8(ascii: "\n") { line += 1 }
        return line
    }

    /// The request line, the headers and how the body is framed; `position` is then at the
    /// first body byte. `webhook listen` calls this on the head alone, before the body arrives.
    mutating func parseHead() throws(RequestDumpError) -> RawHTTPRequest.Head {
        guard !data.isEmpty else {
            throw RequestDumpError(what: "the request dump is empty", line: 1, byteOffset: 0, hint: nil)
        }
        // RFC 9112 §2.2: ignore empty lines before the request line.
        var requestLine = readLine()
        while let line = requestLine, line.bytes.isEmpty, line.terminated { requestLine = readLine() }
        guard let requestLine, !requestLine.bytes.isEmpty else {
            throw fail("the request dump has no request line", at: position)
        }
        let (method, target, version) = try parseRequestLine(requestLine)
        let headers = try parseFields(section: "header")
        if strict { try checkHost(headers, version: version) }
        return RawHTTPRequest.Head(method: method, target: target, version: version, headers: headers,
                                   framing: try framing(of: headers, version: version), bodyOffset: position)
    }

    mutating func parse() throws(RequestDumpError) -> RawHTTPRequest {
        let head = try parseHead()
        let (method, target, version, headers, bodyOffset) = (head.method, head.target, head.version, head.headers, head.bodyOffset)

        switch head.framing {
        case .contentLength(let length):
            let available = data.count - bodyOffset
            if available < length {
                throw fail(
                    "Content-Length is \(length) but only \(available) byte\(available == 1 ? "" : "s") follow the headers",
                    at: bodyOffset,
                    hint: "the capture may be truncated, or the body was edited after capture")
            }
            return RawHTTPRequest(
                method: method, target: target, version: version, headers: headers, trailers: [],
                body: Array(data[bodyOffset..<bodyOffset + length]), framing: .contentLength(length),
                bodyOffset: bodyOffset, extraBytesAfterBody: available - length)
        case .chunked:
            let body = try parseChunkedBody()
            let trailers = try parseTrailers()
            return RawHTTPRequest(
                method: method, target: target, version: version, headers: headers, trailers: trailers,
                body: body, framing: .chunked, bodyOffset: bodyOffset, extraBytesAfterBody: data.count - position)
        case .untilEnd:
            return RawHTTPRequest(
                method: method, target: target, version: version, headers: headers, trailers: [],
                body: Array(data[bodyOffset...]), framing: .untilEnd, bodyOffset: bodyOffset, extraBytesAfterBody: 0)
        }
    }

    func parseRequestLine(_ line: Line) throws(RequestDumpError) -> (String, String, String) {
        switch RequestLine.parse(line.bytes, strict: strict) {
        case .success(let parts): return parts
        case .failure(let problem): throw fail(problem.message, at: line.start)
        }
    }

    /// Header (or trailer) lines up to and including the blank line.
    mutating func parseFields(section: String) throws(RequestDumpError) -> [RawHTTPRequest.Field] {
        let sectionStart = position
        var fields: [RawHTTPRequest.Field] = []
        // Counted once here and then incrementally: recounting per field would be quadratic.
        var lineNumber = self.lineNumber(at: position) - 1
        while true {
            if position - sectionStart > RawHTTPRequest.maxHeaderSectionBytes {
                throw fail("the \(section) section is larger than 1 MiB; this does not look like a webhook request",
                           at: sectionStart)
            }
            lineNumber += 1
            guard let line = readLine() else {
                throw fail("the \(section)s are not followed by a blank line", at: position,
                           hint: "a request dump needs an empty line between the headers and the body")
            }
            if line.bytes.isEmpty {
                if !line.terminated {
                    throw fail("the \(section)s are not followed by a blank line", at: line.start)
                }
                return fields
            }
            if line.bytes.count > RawHTTPRequest.maxHeaderSectionBytes {
                throw fail("a \(section) line is longer than 1 MiB", at: line.start)
            }
            if !line.terminated {
                throw fail("the \(section)s are not followed by a blank line (input ends inside a \(section) line)",
                           at: line.start,
                           hint: "a request dump needs an empty line between the headers and the body")
            }
            switch HeaderField.parse(line.bytes, strict: strict) {
            case .success(let field):
                fields.append(.init(name: field.name, value: field.value, line: lineNumber))
            case .failure(.folded):
                // Obsolete line folding (RFC 9112 §5.2): continues the previous value.
                if strict { throw fail(HeaderField.Problem.folded.describe(section: section), at: line.start) }
                guard let previous = fields.popLast() else {
                    throw fail("the first \(section) line starts with whitespace", at: line.start)
                }
                let continuation = HeaderText.trimmed(line.text)
                fields.append(.init(name: previous.name, value: previous.value + " " + continuation, line: previous.line))
            case .failure(let problem):
                // A JSON-looking line here almost always means the blank line before the body is missing.
                let bodyHint = line.bytes.first == UInt8(ascii: "{") || line.bytes.first == UInt8(ascii: "[")
                    ? "is the blank line before the body missing?" : nil
                let what = problem == .noColon ? "\(section) line '\(HeaderText.excerpt(line.text))' has no colon" : problem.describe(section: section)
                throw fail(what, at: line.start, hint: bodyHint)
            }
        }
    }

    /// RFC 9112 §3.2: an HTTP/1.1 request has exactly one Host field (HTTP/1.0 may have none);
    /// two are refused, since a proxy and the handler might each believe a different one.
    func checkHost(_ headers: [RawHTTPRequest.Field], version: String) throws(RequestDumpError) {
        let hosts = HeaderName.all("Host", in: headers, nameOf: \.name)
        if hosts.count > 1 { throw fail("more than one Host field", at: offset(ofLine: hosts[1].line)) }
        if hosts.isEmpty && version == "HTTP/1.1" { throw fail("an HTTP/1.1 request without a Host field", at: 0) }
    }

    func framing(of headers: [RawHTTPRequest.Field], version: String) throws(RequestDumpError) -> RawHTTPRequest.BodyFraming {
        let transferEncodings = HeaderName.all("Transfer-Encoding", in: headers, nameOf: \.name)
        if strict && !transferEncodings.isEmpty && version == "HTTP/1.0" {
            // RFC 9112 §6.1: HTTP/1.0 has no chunked framing; such a message's framing is faulty.
            throw fail("Transfer-Encoding in an HTTP/1.0 request", at: offset(ofLine: transferEncodings[0].line))
        }
        if strict && transferEncodings.count > 1 {
            throw fail("more than one Transfer-Encoding field", at: offset(ofLine: transferEncodings[1].line))
        }
        if strict && !transferEncodings.isEmpty, let length = HeaderName.first("Content-Length", in: headers, nameOf: \.name) {
            // RFC 9112 §6.3: a request smuggling pattern; refused rather than guessed at.
            throw fail("both Content-Length and Transfer-Encoding", at: offset(ofLine: length.line))
        }
        if !transferEncodings.isEmpty {
            let codings = transferEncodings
                .flatMap { $0.value.split(separator: ",") }
                .map { HeaderText.trimmed(String($0)).lowercased() }
                .filter { !$0.isEmpty }
            // Chunked wins over Content-Length (RFC 9112 §6.3), so a Content-Length is ignored here.
            guard codings.last == "chunked" else {
                throw fail("Transfer-Encoding '\(HeaderText.excerpt(transferEncodings.last!.value))' does not end in chunked",
                           at: offset(ofLine: transferEncodings.last!.line))
            }
            if strict && codings.filter({ $0 == "chunked" }).count > 1 {
                // RFC 9112 §6.1: chunked is applied once, last; a second one is an ambiguity to refuse.
                throw fail("Transfer-Encoding applies chunked more than once", at: offset(ofLine: transferEncodings.last!.line))
            }
            if let other = codings.first(where: { $0 != "chunked" }) {
                throw fail("transfer coding '\(HeaderText.excerpt(other))' is not supported; only chunked bodies can be verified",
                           at: offset(ofLine: transferEncodings.last!.line),
                           hint: "capture the request after decompression, or the exact bytes the sender signed")
            }
            return .chunked
        }
        let lengths = HeaderName.all("Content-Length", in: headers, nameOf: \.name)
        guard !lengths.isEmpty else { return .untilEnd }
        var declared: Int? = nil
        for field in lengths {
            // "5, 5" (a merged repeated header) is allowed as long as every value agrees.
            for piece in field.value.split(separator: ",", omittingEmptySubsequences: false) {
                let text = HeaderText.trimmed(String(piece))
                guard !text.isEmpty, text.count <= 15, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let value = Int(text) else {
                    throw fail("Content-Length '\(HeaderText.excerpt(field.value))' is not a number of bytes",
                               at: offset(ofLine: field.line))
                }
                if let earlier = declared, earlier != value {
                    throw fail("conflicting Content-Length values \(earlier) and \(value)", at: offset(ofLine: field.line))
                }
                declared = value
            }
        }
        return .contentLength(declared!)
    }

    /// The chunked body from `position` (the framing read by `ChunkedFraming`, shared with the
    /// listener); `position` is then at the trailer section.
    mutating func parseChunkedBody() throws(RequestDumpError) -> [UInt8] {
        var body: [UInt8] = []
        let truncated = "the capture is probably truncated"
        while true {
            switch ChunkedFraming.next(in: data, at: position) {
            case .chunk(let range, let next):
                body.append(contentsOf: data[range])
                position = next
            case .last(let next):
                position = next
                return body
            case .incomplete(.sizeLine):
                if position >= data.count {
                    throw fail("the chunked body ends before its last (zero-size) chunk", at: position, hint: truncated)
                }
                throw fail("the chunked body ends inside a chunk-size line", at: position, hint: truncated)
            case .incomplete(.data(let size, let available)):
                throw fail("a chunk of \(size) bytes is cut off: only \(available) byte\(available == 1 ? "" : "s") remain",
                           at: position, hint: truncated)
            case .incomplete(.lineEndAfterData(let dataEnd)):
                throw fail("the chunked body ends right after a chunk's data (no CRLF, no last chunk)", at: dataEnd, hint: truncated)
            case .malformed(.notASize(let line), let at):
                throw fail("'\(HeaderText.excerpt(line))' is not a chunk size (hex digits, optionally followed by ;extensions)", at: at)
            case .malformed(.sizeTooLarge(let text), let at):
                throw fail("chunk size '\(HeaderText.excerpt(text))' is too large", at: at)
            case .malformed(.noLineEndAfterData(let size), let at):
                throw fail("expected CRLF after \(size) bytes of chunk data", at: at,
                           hint: "the chunk size does not match the data that follows it")
            }
        }
    }

    /// Trailer fields after the last chunk. A dump that simply ends after "0\r\n" is accepted:
    /// capture tools often drop the final empty line, and nothing of the body is missing.
    mutating func parseTrailers() throws(RequestDumpError) -> [RawHTTPRequest.Field] {
        if position >= data.count { return [] }
        return try parseFields(section: "trailer")
    }

    func offset(ofLine wanted: Int) -> Int {
        if wanted <= 1 { return 0 }
        var line = 1
        for index in 0..<data.count where data[index] == UInt8(ascii: "\n") {
            line += 1
            if line == wanted { return index + 1 }
        }
        return data.count
    }
}

/// A request dump that could not be parsed, with where: 1-based line and 0-based byte offset.
public struct RequestDumpError: ClassifiedError, Equatable {
    public let what: String
    public let line: Int
    public let byteOffset: Int
    public let hint: String?

    public var kind: FailureKind { .malformedInput }
    public var message: String { "line \(line) (byte \(byteOffset)): \(what)" }
}
