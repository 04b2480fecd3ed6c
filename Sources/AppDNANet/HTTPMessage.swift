import AppDNACore

/// One HTTP request: what `HTTPClient.send` sends (and re-sends on a retry).
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: String
    /// Sent in this order. Values may be secrets (`x-api-key`): they are never logged.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?
    /// Keep only the first this-many bytes of the response body and drop the rest as it
    /// arrives (memory stays small whatever the server sends); nil keeps the whole body up to
    /// the transport's limit.
    public var keepBodyBytes: Int?
    /// False: a SIGINT/SIGTERM does not abort this request; it runs to its answer or its
    /// deadline (`webhook listen` finishes the forwards under way when told to stop).
    public var abortsOnInterrupt = true

    public init(method: String = "GET", url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil,
                keepBodyBytes: Int? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.keepBodyBytes = keepBodyBytes
    }
}

/// The final response of a request, after redirects and retries.
public struct HTTPResponse: Sendable {
    public var status: Int
    /// The reason phrase of the status line ("Service Unavailable"), possibly empty (HTTP/2).
    public var reason: String
    /// The headers of the final response, in order; names as received.
    public var headers: [(name: String, value: String)]
    /// The body, decoded when it came gzip- or deflate-encoded.
    public var body: [UInt8]
    /// The request's `keepBodyBytes` cut the body: more came than `body` holds.
    public var bodyWasCut = false
    /// The URL that gave this response (differs from the request's after a redirect).
    public var url: String
    /// Where a 3xx response points, resolved to an absolute URL (not followed by the transport).
    public var redirectURL: String?
    /// How many attempts this request took (1 = no retry).
    public var attempts: Int
    /// Set when a retryable status is returned because no retry (or no time) was left:
    /// "the command used 3 of its 3 retries", for the error's message.
    public var retryUsage: String?

    public init(status: Int, reason: String = "", headers: [(name: String, value: String)] = [], body: [UInt8] = [],
                url: String = "", redirectURL: String? = nil, attempts: Int = 1) {
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
        self.url = url
        self.redirectURL = redirectURL
        self.attempts = attempts
    }

    /// The first header called `name` (case-insensitive), trimmed.
    public func header(_ name: String) -> String? {
        HeaderName.first(name, in: headers, nameOf: \.name).map { HeaderText.trimmed($0.value) }
    }

    /// "HTTP 503 Service Unavailable": the standard phrase, not the one received (none over
    /// HTTP/2, anything a proxy likes over HTTP/1.1), so messages read the same either way.
    public var statusText: String {
        let phrase = HTTPStatus.reasonPhrase(status)
        return phrase.isEmpty ? "HTTP \(status)" : "HTTP \(status) \(phrase)"
    }

    /// Parses the header block curl collected: every line as received. Proxies (CONNECT) and
    /// `100 Continue` add status lines and blocks of their own: only the last block counts.
    static func parseHeaderBlock(_ bytes: [UInt8]) -> (reason: String, headers: [(name: String, value: String)]) {
        var reason = ""
        var headers: [(name: String, value: String)] = []
        // By bytes: "\r\n" is one Character, so splitting a String at "\n" would not see it.
        for rawLine in bytes.split(separator: 0x0A, omittingEmptySubsequences: true) {
            let content = rawLine.last == 0x0D ? rawLine.dropLast() : rawLine
            if content.isEmpty { continue }
            if content.starts(with: Array("HTTP/".utf8)) {
                headers = []
                let parts = content.split(separator: UInt8(ascii: " "), maxSplits: 2, omittingEmptySubsequences: true)
                reason = parts.count == 3 ? String(decoding: parts[2], as: UTF8.self) : ""
                continue
            }
            // The one field-line reader (Core/HTTP), forgiving as a client must be: a line it
            // cannot read is skipped, a folded one continues the previous value.
            switch HeaderField.parse(content, strict: false) {
            case .success(let field):
                headers.append(field)
            case .failure(.folded) where !headers.isEmpty:
                headers[headers.count - 1].value += " " + HeaderText.trimmed(String(decoding: content, as: UTF8.self))
            case .failure:
                continue
            }
        }
        return (reason, headers)
    }
}
