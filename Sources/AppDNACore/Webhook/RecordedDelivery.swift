/// One delivery as `webhook listen --record` writes it (one JSON object per line) and
/// `webhook trigger --replay` reads it back:
///
///     {"received_at":"2026-02-19T10:00:00.123Z","method":"POST","target":"/webhooks",
///      "headers":[["Content-Type","application/json"],["X-AppDNA-Signature","sha256=…"],…],
///      "body":"{\"id\":…}","valid":true}
///
/// The body is kept byte for byte: as the string `body` when it is valid UTF-8, else as
/// `body_base64`. Headers are what the sender sent (the signature among them); the signing
/// secret is never part of a record.
public struct RecordedDelivery: Sendable {
    public var receivedAt: String
    public var method: String
    public var target: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// The listener's verdict; nil when not known.
    public var valid: Bool?

    public init(receivedAt: String, method: String, target: String, headers: [(name: String, value: String)],
                body: [UInt8], valid: Bool?) {
        self.receivedAt = receivedAt
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.valid = valid
    }

    /// The first value of a header, case-insensitively.
    public func header(_ name: String) -> String? {
        HeaderName.first(name, in: headers, nameOf: \.name)?.value
    }

    /// The record as one line of compact JSON, newline included.
    public func jsonLine() -> [UInt8] {
        var object = JSONObject()
        object["received_at"] = .string(receivedAt)
        object["method"] = .string(method)
        object["target"] = .string(target)
        object["headers"] = .array(headers.map { [.string($0.name), .string($0.value)] })
        if let text = UTF8Validation.string(body) {
            object["body"] = .string(text)
        } else {
            object["body_base64"] = .string(Base64.encode(body))
        }
        object["valid"] = valid.map { .bool($0) } ?? .null
        return JSONWriter().write(.object(object)) + [10]
    }

    /// Reads one line of a record file; the message says what is wrong (the caller adds FILE:LINE).
    public static func parse(line: [UInt8]) throws(Failure) -> RecordedDelivery {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: line)
        } catch {
            throw Failure(.malformedInput, "not JSON: \(error.message)")
        }
        guard case .string(let method)? = value["method"], case .string(let target)? = value["target"],
              case .array(let headerPairs)? = value["headers"] else {
            throw Failure(.malformedInput, "not a recorded delivery (needs method, target and headers)",
                          remedy: .recordedDeliveries)
        }
        var headers: [(name: String, value: String)] = []
        for pair in headerPairs {
            guard case .string(let name)? = pair[0], case .string(let text)? = pair[1] else {
                throw Failure(.malformedInput, "a header is not a [name, value] pair of strings")
            }
            headers.append((name, text))
        }
        let body: [UInt8]
        if case .string(let text)? = value["body"] {
            body = Array(text.utf8)
        } else if case .string(let encoded)? = value["body_base64"] {
            do {
                body = try Base64.decode(encoded)
            } catch {
                throw Failure(.malformedInput, "body_base64 is not base64")
            }
        } else {
            throw Failure(.malformedInput, "the record has neither body nor body_base64")
        }
        var receivedAt = ""
        if case .string(let text)? = value["received_at"] { receivedAt = text }
        var valid: Bool? = nil
        if case .bool(let flag)? = value["valid"] { valid = flag }
        return RecordedDelivery(receivedAt: receivedAt, method: method, target: target, headers: headers, body: body, valid: valid)
    }
}
