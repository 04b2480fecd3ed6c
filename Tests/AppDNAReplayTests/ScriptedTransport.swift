import Foundation
import AppDNACore
import TestSupport
@testable import AppDNANet

/// An ingest API without a socket: checks every request is what the SDK sends (POST to the
/// ingest path, the headers, a raw DEFLATE `{"batch":[…]}` body) and answers from a script
/// given the request's index and its events' ids. Answers can take virtual time, and a dropped
/// connection or a time-out fails the way the curl transport does.
final class ScriptedTransport: HTTPTransport, @unchecked Sendable {
    enum Reply {
        /// A status, with headers and a body.
        case answer(Int, headers: [(String, String)] = [], body: String = "{}")
        /// The server closes the connection without answering (retryable, like curl's).
        case dropConnection
        /// Nobody listens (retryable, 69 in the end, like curl's "cannot reach").
        case refuseConnection
        /// The answer after `seconds` of virtual time; past the request's deadline it never comes.
        indirect case after(Double, Reply)
    }

    struct Received {
        let index: Int
        let ids: [String]
        let platform: String
        let sdkVersion: String
    }

    let clock: VirtualClock
    let key: String
    private let script: @Sendable (_ index: Int, _ ids: [String]) -> Reply
    private let lock = NSLock()
    private var log: [Received] = []
    private var problems: [String] = []

    init(clock: VirtualClock, key: String, _ script: @escaping @Sendable (_ index: Int, _ ids: [String]) -> Reply = { _, _ in .answer(200) }) {
        self.clock = clock
        self.key = key
        self.script = script
    }

    /// Every request, in the order they came.
    var received: [Received] { lock.lock(); defer { lock.unlock() }; return log }
    /// The ids of every request (repeated when a batch was sent again).
    var receivedIDs: [String] { received.flatMap(\.ids) }
    /// What was not as the SDK sends it.
    var violations: [String] { lock.lock(); defer { lock.unlock() }; return problems }

    func perform(_ request: HTTPRequest, deadline: Deadline) throws(HTTPError) -> HTTPResponse {
        let ids = check(request)
        let index: Int = {
            lock.lock(); defer { lock.unlock() }
            log.append(Received(index: log.count, ids: ids, platform: header(request, "x-sdk-platform") ?? "",
                                sdkVersion: header(request, "x-sdk-version") ?? ""))
            return log.count - 1
        }()
        return try answer(script(index, ids), request: request, deadline: deadline)
    }

    private func answer(_ reply: Reply, request: HTTPRequest, deadline: Deadline) throws(HTTPError) -> HTTPResponse {
        switch reply {
        case .answer(let status, let headers, let body):
            var bytes = Array(body.utf8)
            if let kept = request.keepBodyBytes { bytes = Array(bytes.prefix(kept)) }
            return HTTPResponse(status: status, headers: headers, body: bytes, url: request.url)
        case .dropConnection:
            throw HTTPError(.unavailable, "127.0.0.1: the connection broke off: Server returned nothing", retryable: true)
        case .refuseConnection:
            throw HTTPError(.unavailable, "cannot reach 127.0.0.1:9: Connection refused", retryable: true)
        case .after(let seconds, let then):
            let left = deadline.remaining
            if seconds >= left {
                clock.advance(left)
                throw HTTPError(.temporary, "127.0.0.1: no complete answer within the \(deadline.budgetText) timeout", deadlineExpired: true)
            }
            clock.advance(seconds)
            return try answer(then, request: request, deadline: deadline)
        }
    }

    private func header(_ request: HTTPRequest, _ name: String) -> String? {
        request.headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The ids of the batch, noting anything the SDK would not send.
    private func check(_ request: HTTPRequest) -> [String] {
        var found: [String] = []
        func violation(_ text: String) { lock.lock(); problems.append(text); lock.unlock() }
        if request.method != "POST" || !request.url.hasSuffix(AppDNAAPI.ingestPath) { violation("\(request.method) \(request.url)") }
        for (name, expected) in [("x-api-key", key), ("Content-Type", "application/json"), ("Content-Encoding", "deflate")]
        where header(request, name) != expected {
            violation("\(name): \(header(request, name) ?? "missing")")
        }
        guard let body = request.body, let inflated = try? RawDeflate.inflate(body),
              let object = try? JSONSerialization.jsonObject(with: Data(inflated)) as? [String: Any],
              let batch = object["batch"] as? [[String: Any]] else {
            violation("body is not a raw DEFLATE {\"batch\":[…]}")
            return []
        }
        for event in batch {
            guard let id = event["event_id"] as? String else { violation("an element without event_id"); continue }
            let device = event["device"] as? [String: Any]
            if let platform = device?["platform"] as? String, platform != header(request, "x-sdk-platform") {
                violation("event platform \(platform) in a batch sent as \(header(request, "x-sdk-platform") ?? "?")")
            }
            if let version = device?["sdk_version"] as? String, version != header(request, "x-sdk-version") {
                violation("event sdk_version \(version) in a batch sent as \(header(request, "x-sdk-version") ?? "?")")
            }
            found.append(id)
        }
        return found
    }
}
