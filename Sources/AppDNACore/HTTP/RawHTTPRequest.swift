/// A captured webhook delivery (`webhook verify --request FILE`): request line, headers, blank
/// line, body — as `nc -l`, `tcpflow`, a proxy log or a hand-written file records it.
///
/// Parsing is byte-exact about the body (that is what was signed) and forgiving about the
/// framing people's capture tools produce: bare LF line endings, folded header lines, a
/// missing final CRLF after the last chunk. Anything it cannot make sense of is a typed error
/// naming the line and byte offset, never a crash and never a silently different body.
public struct RawHTTPRequest: Sendable, Equatable {
    /// One header or trailer field, with the 1-based line it started on.
    public struct Field: Sendable, Equatable {
        public let name: String
        public let value: String
        public let line: Int
    }

    /// How the body's extent was determined.
    public enum BodyFraming: Sendable, Equatable {
        case contentLength(Int)
        case chunked
        /// No Content-Length or Transfer-Encoding: the rest of the input is the body.
        case untilEnd
    }

    /// A header section larger than this is not a webhook delivery; refuse it early rather
    /// than scanning an arbitrary file for a blank line.
    public static let maxHeaderSectionBytes = 1 << 20

    public let method: String
    public let target: String
    public let version: String
    /// Headers in order, repeated ones kept.
    public let headers: [Field]
    /// Trailer fields of a chunked body.
    public let trailers: [Field]
    /// The body exactly as the sender signed it (chunk framing removed).
    public let body: [UInt8]
    public let framing: BodyFraming
    /// Byte offset of the first body byte in the input.
    public let bodyOffset: Int
    /// Bytes in the input after the declared body (e.g. a second request, or a trailing newline
    /// the capture tool added). Reported, not an error: they are not part of what was signed.
    public let extraBytesAfterBody: Int

    /// All values of a header, case-insensitively.
    public func values(of name: String) -> [String] {
        HeaderName.all(name, in: headers, nameOf: \.name).map(\.value)
    }

    /// The first value of a header, case-insensitively.
    public func value(of name: String) -> String? {
        HeaderName.first(name, in: headers, nameOf: \.name)?.value
    }

    /// The part of a request before its body.
    public struct Head: Sendable, Equatable {
        public let method: String
        public let target: String
        public let version: String
        public let headers: [Field]
        /// From Content-Length / Transfer-Encoding; `.untilEnd` when neither is present.
        public let framing: BodyFraming
        /// Byte offset of the first body byte in the input.
        public let bodyOffset: Int

        /// The first value of a header, case-insensitively.
        public func value(of name: String) -> String? {
            HeaderName.first(name, in: headers, nameOf: \.name)?.value
        }
    }

    /// Parses only the request line and headers of `data` (which must contain the blank line
    /// after them); the body is not looked at. `strict`: as a server reads a request (see
    /// `RequestDumpParser.strict`), not as a capture is forgiven.
    public static func parseHead(_ data: [UInt8], strict: Bool = false) throws(RequestDumpError) -> Head {
        var parser = RequestDumpParser(data: data, strict: strict)
        return try parser.parseHead()
    }

    public static func parse(_ data: [UInt8]) throws(RequestDumpError) -> RawHTTPRequest {
        var parser = RequestDumpParser(data: data)
        return try parser.parse()
    }
}
