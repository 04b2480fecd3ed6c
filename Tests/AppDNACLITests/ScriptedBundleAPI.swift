import Foundation
import AppDNACore
import TestSupport
@testable import AppDNANet

/// The bundle endpoints without a socket: answers each GET from a script given the path and
/// how many times that path was asked before. Faults are worded by `CurlTransport.classify`
/// from the CURLcode curl would give, so they read exactly as over a real connection; answers
/// can take virtual time, and one that never comes ends at the request's deadline.
final class ScriptedBundleAPI: HTTPTransport, @unchecked Sendable {
    enum Reply: Sendable {
        case answer(Int, headers: [(String, String)] = [], body: String = "{}")
        /// Nobody listens (CURLE_COULDNT_CONNECT).
        case refuseConnection
        /// The name does not resolve (CURLE_COULDNT_RESOLVE_HOST).
        case unknownHost
        /// The body stops before its Content-Length (CURLE_PARTIAL_FILE).
        case cutOff
        /// The server accepts and never answers: the deadline ends the attempt.
        case hang
        /// Bytes that are not HTTP (CURLE_WEIRD_SERVER_REPLY).
        case garbage
        /// A 3xx pointing at `location` (an absolute URL, as curl resolves it); `HTTPClient`
        /// decides whether to follow it.
        case redirect(Int, location: String)
        indirect case after(Double, Reply)
    }

    let clock: VirtualClock
    private let script: @Sendable (_ path: String, _ index: Int) -> Reply
    private let lock = NSLock()
    private var log: [(path: String, key: String?)] = []

    init(clock: VirtualClock, _ script: @escaping @Sendable (_ path: String, _ index: Int) -> Reply) {
        self.clock = clock
        self.script = script
    }

    /// Every request's path, in order.
    var paths: [String] { lock.lock(); defer { lock.unlock() }; return log.map(\.path) }
    /// The `x-api-key` of every request.
    var keys: [String?] { lock.lock(); defer { lock.unlock() }; return log.map(\.key) }

    func perform(_ request: HTTPRequest, deadline: Deadline) throws(HTTPError) -> HTTPResponse {
        let url = HTTPURL(request.url)
        let path = url?.pathAndQuery ?? request.url
        let index: Int = {
            lock.lock(); defer { lock.unlock() }
            let before = log.filter { $0.path == path }.count
            log.append((path, request.headers.first { $0.name == "x-api-key" }?.value))
            return before
        }()
        return try answer(script(path, index), request: request, deadline: deadline)
    }

    private func answer(_ reply: Reply, request: HTTPRequest, deadline: Deadline) throws(HTTPError) -> HTTPResponse {
        let where_ = HTTPURL(request.url)?.hostAndPort ?? request.url
        func curl(_ code: Int, _ detail: String, expired: Bool = false) -> HTTPError {
            CurlTransport().classify(code: code, detail: detail, where_: where_, deadline: deadline, expired: expired, overLimit: false)
        }
        switch reply {
        case .answer(let status, let headers, let body):
            return HTTPResponse(status: status, headers: headers, body: Array(body.utf8), url: request.url)
        case .refuseConnection:
            throw curl(7, "Failed to connect to \(where_): Connection refused")
        case .unknownHost:
            throw curl(6, "Could not resolve host: \(HTTPURL(request.url)?.host ?? where_)")
        case .cutOff:
            throw curl(18, "transfer closed with 1000 bytes remaining to read")
        case .garbage:
            throw curl(8, "Unsupported HTTP version in response")
        case .redirect(let status, let location):
            return HTTPResponse(status: status, headers: [("Location", location)], url: request.url, redirectURL: location)
        case .hang:
            clock.advance(deadline.remaining)
            throw curl(28, "Operation timed out", expired: true)
        case .after(let seconds, let then):
            if seconds >= deadline.remaining { return try answer(.hang, request: request, deadline: deadline) }
            clock.advance(seconds)
            return try answer(then, request: request, deadline: deadline)
        }
    }
}
