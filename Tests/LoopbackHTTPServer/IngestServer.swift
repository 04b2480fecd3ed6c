import CZlibLoader
import Foundation

/// A fake `POST /api/v1/ingest/events` on 127.0.0.1 on top of `LoopbackHTTPServer`: every
/// request is checked the way the real API reads it (raw DEFLATE body that inflates to
/// `{"batch": [event…]}`, the SDK's headers) and recorded; `script` decides each answer, so
/// tests can inject 5xx, 429 + Retry-After, 413, 400, slow answers and dropped connections.
public final class IngestServer: @unchecked Sendable {
    /// One request as the ingest API would see it.
    public struct Batch: Sendable {
        public var index: Int
        /// The raw text of each event in the batch, exactly as sent.
        public var eventTexts: [String]
        public var eventIDs: [String]
        public var headers: [(String, String)]
        public var reply: LoopbackHTTPServer.Reply
        public var receivedAt: Double
        public func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
    }

    public let expectedKey: String
    private let lock = NSLock()
    private var batches: [Batch] = []
    private var violations: [String] = []
    private var server: LoopbackHTTPServer!
    public var baseURL: String { server.baseURL }

    /// `script(batchIndex, eventIDs)` returns the answer; the default acks with 200.
    public init(key: String, script: @escaping @Sendable (Int, [String]) -> LoopbackHTTPServer.Reply = { _, _ in
        LoopbackHTTPServer.Reply(status: 200, json: "{\"accepted\":true}")
    }) throws {
        expectedKey = key
        server = try LoopbackHTTPServer { [unowned self] request, _ in
            guard let (texts, ids) = self.check(request) else {
                return LoopbackHTTPServer.Reply(status: 400, json: "{\"error\":\"bad request\"}")
            }
            let index = self.takeIndex()
            let reply = script(index, ids)
            self.lock.lock()
            self.batches.append(Batch(index: index, eventTexts: texts, eventIDs: ids, headers: request.headers, reply: reply,
                                      receivedAt: request.receivedAt))
            self.lock.unlock()
            return reply
        }
    }

    deinit { server?.stop() }
    public func stop() { server.stop() }

    /// Every well-formed batch received, in arrival order.
    public var received: [Batch] { lock.lock(); defer { lock.unlock() }; return batches }
    /// What was wrong with requests that were not what the SDK sends (empty when all were).
    public var problems: [String] { lock.lock(); defer { lock.unlock() }; return violations }
    /// Every event id received (with repeats), in arrival order.
    public var receivedIDs: [String] { received.flatMap(\.eventIDs) }

    private var nextIndex = 0
    private func takeIndex() -> Int {
        lock.lock(); defer { lock.unlock() }
        nextIndex += 1
        return nextIndex - 1
    }

    private func violation(_ text: String) {
        lock.lock()
        violations.append(text)
        lock.unlock()
    }

    private func check(_ request: LoopbackHTTPServer.Request) -> ([String], [String])? {
        guard request.method == "POST", request.path == "/api/v1/ingest/events" else {
            violation("\(request.method) \(request.path)"); return nil
        }
        for (name, expected) in [("x-api-key", expectedKey), ("Content-Type", "application/json"), ("Content-Encoding", "deflate")] {
            if request.header(name) != expected { violation("\(name): \(request.header(name) ?? "missing")") ; return nil }
        }
        guard let platform = request.header("x-sdk-platform"), ["ios", "android"].contains(platform) else {
            violation("x-sdk-platform: \(request.header("x-sdk-platform") ?? "missing")"); return nil
        }
        guard let version = request.header("x-sdk-version"), !version.isEmpty else { violation("x-sdk-version missing"); return nil }
        guard let inflated = Self.inflate(request.body) else { violation("body is not raw DEFLATE"); return nil }
        guard let texts = Self.batchElements(inflated) else {
            violation("body is not {\"batch\": [...]}: \(String(decoding: inflated.prefix(80), as: UTF8.self))"); return nil
        }
        var ids: [String] = []
        for text in texts {
            guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                  let id = object["event_id"] as? String else { violation("an element is not an event"); return nil }
            let device = object["device"] as? [String: Any]
            if let eventPlatform = device?["platform"] as? String, eventPlatform != platform {
                violation("event platform \(eventPlatform) in a batch sent as \(platform)")
            }
            if let eventVersion = device?["sdk_version"] as? String, eventVersion != version {
                violation("event sdk_version \(eventVersion) in a batch sent as \(version)")
            }
            ids.append(id)
        }
        return (texts, ids)
    }

    /// Raw DEFLATE only: a zlib header (0x78 …) or gzip would not inflate as raw.
    public static func inflate(_ body: [UInt8]) -> [UInt8]? {
        var output: UnsafeMutablePointer<UInt8>? = nil
        var count = 0
        let rc = body.withUnsafeBufferPointer { appdna_inflate_raw($0.baseAddress, $0.count, 256 << 20, &output, &count) }
        guard rc == 0, let output else { return nil }
        defer { appdna_zlib_free(output) }
        return Array(UnsafeBufferPointer(start: output, count: count))
    }

    /// The exact text of each element of `{"batch":[…]}` (the whole body must be that object
    /// with the one key), found by scanning brackets outside strings.
    static func batchElements(_ bytes: [UInt8]) -> [String]? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
              object.count == 1, let array = object["batch"] as? [Any] else { return nil }
        let prefix = Array("{\"batch\":[".utf8)
        guard bytes.starts(with: prefix), bytes.suffix(2) == [UInt8(ascii: "]"), UInt8(ascii: "}")] else { return nil }
        var elements: [String] = []
        var depth = 0, inString = false, escaped = false, start = prefix.count
        let end = bytes.count - 2
        var i = prefix.count
        while i < end {
            let b = bytes[i]
            if inString {
                if escaped { escaped = false } else if b == 0x5C { escaped = true } else if b == 0x22 { inString = false }
            } else if b == 0x22 { inString = true }
            else if b == 0x7B || b == 0x5B { depth += 1 }
            else if b == 0x7D || b == 0x5D { depth -= 1 }
            else if b == 0x2C && depth == 0 {
                elements.append(String(decoding: bytes[start..<i], as: UTF8.self)); start = i + 1
            }
            i += 1
        }
        if end > start { elements.append(String(decoding: bytes[start..<end], as: UTF8.self)) }
        return elements.count == array.count ? elements : nil
    }
}
