import AppDNACore
import CCurlLoader

/// One attempt of a request. `HTTPClient` adds retries and redirects on top of any transport;
/// tests substitute a scripted one.
public protocol HTTPTransport: Sendable {
    /// Performs `request` once and returns the response whatever its status, without
    /// following redirects. Must end by `deadline`.
    func perform(_ request: HTTPRequest, deadline: Deadline) throws(HTTPError) -> HTTPResponse
}

/// The system libcurl, loaded on first use (see CCurlLoader). It brings TLS, the
/// `http_proxy`/`https_proxy`/`no_proxy` variables (read by curl itself), gzip and deflate.
public struct CurlTransport: HTTPTransport {
    /// curl's whole-transfer and connect timeouts for what is left of `deadline`: whole
    /// milliseconds rounded up (a 1.5 s deadline is 1500, not 1 s or 2 s), never 0 (0 means "no
    /// timeout" to curl); the connect timeout is `connectTimeout` unless less is left.
    static func timeoutMilliseconds(deadline: Deadline, connectTimeout: Double) -> (total: Int, connect: Int) {
        let total = max(1, Int((deadline.remaining * 1000).rounded(.up)))
        return (total, max(1, min(total, Int(connectTimeout * 1000))))
    }

    /// Each attempt's connect timeout (bounded by the deadline too).
    public var connectTimeout: Double
    /// Responses larger than this (decoded: a gzip bomb counts at its inflated size) fail
    /// instead of exhausting memory.
    public var maxBodyBytes: Int
    /// What the error of a response over `maxBodyBytes` suggests (the CLI words it with its flag).
    public var maxBodyRemedy: Remedy?
    public var userAgent: String
    /// The CA certificates to trust instead of the system's (CURL_CA_BUNDLE, SSL_CERT_FILE,
    /// SSL_CERT_DIR; see `TLSTrust`).
    public var trust: TLSTrust

    public init(connectTimeout: Double = 10, maxBodyBytes: Int = 512 << 20, userAgent: String = "appdna",
                trust: TLSTrust = TLSTrust()) {
        self.connectTimeout = connectTimeout
        self.maxBodyBytes = maxBodyBytes
        self.userAgent = userAgent
        self.trust = trust
    }

    /// Loads libcurl once per process (dlopen; see CCurlLoader). Every libcurl function,
    /// even curl_easy_strerror, is a null pointer until this has succeeded.
    static func loadLibcurl() throws(HTTPError) {
        try HTTPError.lifting { () throws(Failure) in try SystemLibrary.curl.load { appdna_curl_load($0, $1) } }
    }

    public func perform(_ request: HTTPRequest, deadline: Deadline) throws(HTTPError) -> HTTPResponse {
        let where_ = HTTPURL(request.url)?.hostAndPort ?? request.url
        try Self.checkWireSyntax(request)
        try Self.loadLibcurl()
        if deadline.hasPassed {
            throw HTTPError(.temporary, "\(where_): no complete answer within the \(deadline.budgetText) timeout", deadlineExpired: true)
        }
        guard let handle = CurlHandlePool.shared.take() else {
            throw HTTPError(.internalError, "curl_easy_init failed")
        }
        // Returned after the buffers below are freed (defers run last to first), but reset
        // before anything else can use it; closed instead when its transfer failed.
        var handleReusable = true
        defer { CurlHandlePool.shared.give(handle, reusable: handleReusable) }

        let body = UnsafeMutablePointer<appdna_buffer>.allocate(capacity: 1)
        let headerBlock = UnsafeMutablePointer<appdna_buffer>.allocate(capacity: 1)
        let stop = UnsafeMutablePointer<appdna_deadline>.allocate(capacity: 1)
        let errorText = UnsafeMutablePointer<CChar>.allocate(capacity: Int(APPDNA_CURL_ERROR_SIZE) + 1)
        if let kept = request.keepBodyBytes {
            body.initialize(to: appdna_buffer(bytes: nil, count: 0, capacity: 0, limit: max(kept, 1), over_limit: 0, discard_over_limit: 1))
        } else {
            body.initialize(to: appdna_buffer(bytes: nil, count: 0, capacity: 0, limit: maxBodyBytes, over_limit: 0, discard_over_limit: 0))
        }
        headerBlock.initialize(to: appdna_buffer(bytes: nil, count: 0, capacity: 0, limit: 1 << 20, over_limit: 0, discard_over_limit: 0))
        stop.initialize(to: appdna_deadline(deadline_ns: deadline.nanoseconds, expired: 0))
        errorText.initialize(repeating: 0, count: Int(APPDNA_CURL_ERROR_SIZE) + 1)
        var headerList: OpaquePointer? = nil
        var requestBody: UnsafeMutablePointer<UInt8>? = nil
        defer {
            appdna_buffer_free(body); body.deallocate()
            appdna_buffer_free(headerBlock); headerBlock.deallocate()
            stop.deallocate(); errorText.deallocate()
            appdna_curl_slist_free_all(headerList)
            requestBody?.deallocate()
        }

        let (remainingMS, connectMS) = Self.timeoutMilliseconds(deadline: deadline, connectTimeout: connectTimeout)
        // Each option is checked on its own, so a refusal names the option that was refused
        // (and the handle, in a state curl did not expect, is not reused).
        handleReusable = false
        let options = CurlOptions(handle: handle)
        try options.set("CURLOPT_URL", APPDNA_CURLOPT_URL, pointer: request.url)
        try options.set("CURLOPT_ERRORBUFFER", APPDNA_CURLOPT_ERRORBUFFER, pointer: errorText)
        try options.set("CURLOPT_NOSIGNAL", APPDNA_CURLOPT_NOSIGNAL, 1)
        // 512 KiB reads (curl's maximum in 7.x) instead of 16 KiB: a 5 MB bundle arrives in a
        // few dozen callbacks instead of hundreds.
        try options.set("CURLOPT_BUFFERSIZE", APPDNA_CURLOPT_BUFFERSIZE, 512 * 1024)
        try options.set("CURLOPT_FOLLOWLOCATION", APPDNA_CURLOPT_FOLLOWLOCATION, 0)
        try options.set("CURLOPT_PROTOCOLS", APPDNA_CURLOPT_PROTOCOLS, Int(APPDNA_CURLPROTO_HTTP | APPDNA_CURLPROTO_HTTPS))
        try options.set("CURLOPT_TIMEOUT_MS", APPDNA_CURLOPT_TIMEOUT_MS, remainingMS)
        try options.set("CURLOPT_CONNECTTIMEOUT_MS", APPDNA_CURLOPT_CONNECTTIMEOUT_MS, connectMS)
        try options.set("CURLOPT_ACCEPT_ENCODING", APPDNA_CURLOPT_ACCEPT_ENCODING, pointer: "")
        try options.set("CURLOPT_USERAGENT", APPDNA_CURLOPT_USERAGENT, pointer: userAgent)
        if HTTPURL(request.url)?.isLoopback == true {
            // A proxy's 127.0.0.1 is the proxy itself: a loopback destination (webhook listen's
            // handler, api serve; localhost, 127.0.0.0/8, ::1) is never reached through
            // http_proxy. "" disables the proxy for this transfer whatever the environment says.
            try options.set("CURLOPT_PROXY", APPDNA_CURLOPT_PROXY, pointer: "")
        }
        if let file = trust.certificateFile { try options.set("CURLOPT_CAINFO", APPDNA_CURLOPT_CAINFO, pointer: file) }
        if let directory = trust.certificateDirectory { try options.set("CURLOPT_CAPATH", APPDNA_CURLOPT_CAPATH, pointer: directory) }
        var refused: Int32 = 0
        try options.check(CurlOptions.name(refused), appdna_curl_collect(handle, body, headerBlock, &refused))
        try options.check(CurlOptions.name(refused), appdna_curl_progress(handle, request.abortsOnInterrupt ? abortPastDeadlineOrOnInterrupt : abortPastDeadline, stop, &refused))
        for header in request.headers {
            // "Name:" would make curl drop the header; "Name;" is its syntax for an empty value.
            let line = header.value.isEmpty ? "\(header.name);" : "\(header.name): \(header.value)"
            headerList = appdna_curl_slist_append(headerList, line)
        }
        // Without this curl adds "Expect: 100-continue" to larger bodies and waits for it.
        headerList = appdna_curl_slist_append(headerList, "Expect:")
        if request.body != nil && HeaderName.first("Content-Type", in: request.headers, nameOf: \.name) == nil {
            // curl labels a body application/x-www-form-urlencoded unless told otherwise: a body
            // sent without a type (a forwarded delivery whose sender named none) stays without one.
            headerList = appdna_curl_slist_append(headerList, "Content-Type:")
        }
        try options.set("CURLOPT_HTTPHEADER", APPDNA_CURLOPT_HTTPHEADER, pointer: UnsafeRawPointer(headerList))
        let method = request.method.uppercased()
        if let payload = request.body {
            let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: max(payload.count, 1))
            copy.initialize(from: payload, count: payload.count)
            requestBody = copy
            try options.check("CURLOPT_POSTFIELDSIZE_LARGE",
                              appdna_curl_setopt_int64(handle, Int32(APPDNA_CURLOPT_POSTFIELDSIZE_LARGE), Int64(payload.count)))
            try options.set("CURLOPT_POSTFIELDS", APPDNA_CURLOPT_POSTFIELDS, pointer: copy)
            if method != "POST" { try options.set("CURLOPT_CUSTOMREQUEST", APPDNA_CURLOPT_CUSTOMREQUEST, pointer: method) }
        } else if method == "HEAD" {
            try options.set("CURLOPT_NOBODY", APPDNA_CURLOPT_NOBODY, 1)
        } else if method == "GET" {
            try options.set("CURLOPT_HTTPGET", APPDNA_CURLOPT_HTTPGET, 1)
        } else {
            try options.set("CURLOPT_CUSTOMREQUEST", APPDNA_CURLOPT_CUSTOMREQUEST, pointer: method)
        }
        handleReusable = true

        let code = Int(appdna_curl_easy_perform(handle))
        if code != APPDNA_CURLE_OK {
            // curl may keep state of a failed transfer in the handle (libcurl 7.88 keeps the
            // receive buffer after a DNS failure, and then refuses CURLOPT_BUFFERSIZE on the
            // reset handle): such a handle is closed, never reused.
            handleReusable = false
            let detail = errorText.pointee != 0 ? String(cString: errorText) : String(cString: appdna_curl_easy_strerror(Int32(code)))
            throw classify(code: code, detail: detail, where_: where_, deadline: deadline,
                           expired: stop.pointee.expired != 0, overLimit: body.pointee.over_limit != 0,
                           isHTTP: HTTPURL(request.url) != nil, interruptible: request.abortsOnInterrupt)
        }
        var status = 0
        _ = appdna_curl_getinfo_long(handle, Int32(APPDNA_CURLINFO_RESPONSE_CODE), &status)
        var redirect: UnsafePointer<CChar>? = nil
        _ = appdna_curl_getinfo_string(handle, Int32(APPDNA_CURLINFO_REDIRECT_URL), &redirect)
        let parsed = HTTPResponse.parseHeaderBlock(
            Array(UnsafeBufferPointer(start: headerBlock.pointee.bytes, count: headerBlock.pointee.count)))
        let bytes = Array(UnsafeBufferPointer(start: body.pointee.bytes, count: body.pointee.count))
        var response = HTTPResponse(status: status, reason: parsed.reason, headers: parsed.headers, body: bytes,
                                    url: request.url, redirectURL: redirect.map { String(cString: $0) })
        response.bodyWasCut = request.keepBodyBytes != nil && body.pointee.over_limit != 0
        return response
    }

    /// Refuses a request that the wire could not carry as it is: a method that is not a token,
    /// a header name that is not one, a value with CR, LF, NUL or another control character.
    /// Callers check what they take from outside (replay checks each record); this is the
    /// last line, so that no caller can ever put a second request on the wire.
    static func checkWireSyntax(_ request: HTTPRequest) throws(HTTPError) {
        if !RequestLine.isValidMethod(request.method.utf8) {
            throw HTTPError(.malformedInput, "refusing to send a request whose method '\(HeaderText.excerpt(request.method))' is not a token")
        }
        for header in request.headers {
            if let problem = HeaderField.check(name: header.name, value: header.value) {
                throw HTTPError(.malformedInput, "refusing to send a request: \(problem.describe(section: "header"))")
            }
        }
    }

    /// Turns a CURLcode into words and a kind; `retryable` for what another attempt may fix.
    func classify(code: Int, detail: String, where_: String, deadline: Deadline, expired: Bool, overLimit: Bool,
                  isHTTP: Bool = true, interruptible: Bool = true) -> HTTPError {
        let signal = Interruption.signal
        if signal != 0 && interruptible {
            return Interruption.error(signal, at: where_)
        }
        if expired || (code == APPDNA_CURLE_OPERATION_TIMEDOUT && deadline.remaining < 0.05) || code == APPDNA_CURLE_ABORTED_BY_CALLBACK {
            return HTTPError(.temporary, "\(where_): no complete answer within the \(deadline.budgetText) timeout",
                             remedy: .longerTimeout, deadlineExpired: true)
        }
        switch code {
        case APPDNA_CURLE_OPERATION_TIMEDOUT:
            return HTTPError(.temporary, "\(where_): \(detail)", retryable: true)
        case APPDNA_CURLE_COULDNT_RESOLVE_HOST:
            let host = HTTPURL("http://" + where_)?.host ?? where_
            return HTTPError(.unavailable, "cannot resolve host \(host): \(detail)",
                             hint: "check the host name in APPDNA_API_URL and that this machine has DNS (and a network)", retryable: true)
        case APPDNA_CURLE_COULDNT_CONNECT:
            return HTTPError(.unavailable, "cannot reach \(where_): \(detail)", retryable: true)
        case APPDNA_CURLE_COULDNT_RESOLVE_PROXY:
            return HTTPError(.unavailable, "cannot reach the proxy: \(detail)",
                             hint: "check the https_proxy / http_proxy / no_proxy variables", retryable: true)
        case APPDNA_CURLE_PEER_FAILED_VERIFICATION, APPDNA_CURLE_SSL_CACERT_BADFILE, APPDNA_CURLE_SSL_CERTPROBLEM, APPDNA_CURLE_SSL_CIPHER:
            return HTTPError(.unavailable, "\(where_): TLS certificate check failed: \(detail)",
                             hint: "a proxy that intercepts TLS needs its CA certificate installed (or CURL_CA_BUNDLE / SSL_CERT_FILE pointing at it)")
        case APPDNA_CURLE_SSL_CONNECT_ERROR:
            return HTTPError(.unavailable, "\(where_): TLS handshake failed: \(detail)", retryable: true)
        case APPDNA_CURLE_UNSUPPORTED_PROTOCOL where !isHTTP:
            return HTTPError(.configuration, "\(where_): \(detail)")
        case APPDNA_CURLE_URL_MALFORMAT:
            return HTTPError(.configuration, "\(where_): \(detail)")
        case APPDNA_CURLE_UNSUPPORTED_PROTOCOL, APPDNA_CURLE_WEIRD_SERVER_REPLY, APPDNA_CURLE_HTTP2, APPDNA_CURLE_HTTP2_STREAM:
            // The URL is http(s), so "unsupported protocol" here means the reply was not HTTP
            // (a broken proxy or a server speaking something else): a network fault, not ours.
            return HTTPError(.unavailable, "\(where_): the answer is not valid HTTP: \(detail)",
                             hint: "a proxy or load balancer in between may be failing", retryable: true)
        case APPDNA_CURLE_WRITE_ERROR where overLimit:
            return HTTPError(.unavailable, "\(where_): the response, decoded, is larger than \(NumberText.binarySize(maxBodyBytes)); the rest was not read",
                             remedy: maxBodyRemedy)
        case APPDNA_CURLE_PARTIAL_FILE, APPDNA_CURLE_GOT_NOTHING, APPDNA_CURLE_RECV_ERROR, APPDNA_CURLE_SEND_ERROR:
            return HTTPError(.unavailable, "\(where_): the connection broke off: \(detail)", retryable: true)
        case APPDNA_CURLE_BAD_CONTENT_ENCODING:
            return HTTPError(.unavailable, "\(where_): the compressed response is corrupt: \(detail)", retryable: true)
        default:
            return HTTPError(.unavailable, "\(where_): \(detail)", retryable: true)
        }
    }
}

/// `curl_easy_setopt` one option at a time, each result checked: a refusal names the option
/// (and curl's reason), so a report says which one instead of "an option".
struct CurlOptions {
    let handle: OpaquePointer

    func set(_ name: String, _ option: Int, _ value: Int) throws(HTTPError) {
        try check(name, appdna_curl_setopt_long(handle, Int32(option), value))
    }

    func set(_ name: String, _ option: Int, pointer value: UnsafeRawPointer?) throws(HTTPError) {
        try check(name, appdna_curl_setopt_pointer(handle, Int32(option), value))
    }

    func set(_ name: String, _ option: Int, pointer value: String) throws(HTTPError) {
        try check(name, appdna_curl_setopt_pointer(handle, Int32(option), value))
    }

    /// The names of the options the C helpers set (callbacks and their data).
    static func name(_ option: Int32) -> String {
        switch Int(option) {
        case APPDNA_CURLOPT_WRITEFUNCTION: return "CURLOPT_WRITEFUNCTION"
        case APPDNA_CURLOPT_WRITEDATA: return "CURLOPT_WRITEDATA"
        case APPDNA_CURLOPT_HEADERFUNCTION: return "CURLOPT_HEADERFUNCTION"
        case APPDNA_CURLOPT_HEADERDATA: return "CURLOPT_HEADERDATA"
        case APPDNA_CURLOPT_XFERINFOFUNCTION: return "CURLOPT_XFERINFOFUNCTION"
        case APPDNA_CURLOPT_XFERINFODATA: return "CURLOPT_XFERINFODATA"
        case APPDNA_CURLOPT_NOPROGRESS: return "CURLOPT_NOPROGRESS"
        default: return "curl option \(option)"
        }
    }

    func check(_ name: @autoclosure () -> String, _ code: Int32) throws(HTTPError) {
        guard code != 0 else { return }
        throw HTTPError(.internalError, "libcurl refused \(name()) (CURLcode \(code): \(String(cString: appdna_curl_easy_strerror(code))); \(String(cString: appdna_curl_version())))")
    }
}

/// curl's progress callback: aborts the transfer once its deadline (an `appdna_deadline`, the
/// context) has passed on CLOCK_MONOTONIC or SIGINT/SIGTERM came (`Interruption`).
private let abortPastDeadlineOrOnInterrupt: appdna_progress_callback = { context, _, _, _, _ in
    guard let deadline = context?.assumingMemoryBound(to: appdna_deadline.self) else { return 0 }
    if Interruption.signal != 0 || SystemTime.monotonicNanoseconds() >= deadline.pointee.deadline_ns {
        deadline.pointee.expired = 1
        return 1   // CURLE_ABORTED_BY_CALLBACK
    }
    return 0
}

/// The same for a request that is finished whatever the signals (`abortsOnInterrupt` false):
/// only its deadline ends it.
private let abortPastDeadline: appdna_progress_callback = { context, _, _, _, _ in
    guard let deadline = context?.assumingMemoryBound(to: appdna_deadline.self) else { return 0 }
    if SystemTime.monotonicNanoseconds() >= deadline.pointee.deadline_ns {
        deadline.pointee.expired = 1
        return 1   // CURLE_ABORTED_BY_CALLBACK
    }
    return 0
}
