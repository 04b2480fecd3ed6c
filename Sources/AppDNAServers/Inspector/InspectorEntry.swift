import AppDNACore
import AppDNANet

/// One request the inspector keeps: a webhook delivery, or a request to `api serve`. The
/// request as received (headers, and the body up to `InspectorLog.bodyBytes`), the answer,
/// and the fields its listener adds for the list (`summary`) and the detail view (`details`).
public struct InspectorEntry: Sendable {
    /// Given by the log when the entry is recorded: 1, 2, 3… in the order of arrival.
    public internal(set) var id = 0
    /// When it arrived, ISO 8601 UTC.
    public let time: String
    /// The fields the list shows after `id`, `time`, `peer`, `method` and `target`, in order
    /// (event, verdict, status…).
    public internal(set) var summary: JSONObject
    public let method: String
    public let target: String
    public let peer: String
    /// As received, in order. Credentials are hidden when shown (`shownHeaders`), never here:
    /// a replay sends them on as they came.
    public let headers: [(name: String, value: String)]
    public let body: KeptBytes
    /// The body is raw DEFLATE (`Content-Encoding: deflate`): shown by its length only.
    var bodyIsCompressed = false
    /// What the sender was answered.
    let answerStatus: Int
    let answerContentType: String?
    let answerBody: KeptBytes
    /// The events of an event batch (`api serve`'s ingest), up to `InspectorLog.bodyBytes` of
    /// them, each as sent; nil for other requests.
    var batch: [(bytes: [UInt8], duplicate: Bool)]? = nil
    /// How many events the batch had (more than `batch` holds when they were cut).
    var batchCount = 0
    /// How often it was replayed: nil for what cannot be replayed (`api serve`'s requests).
    public internal(set) var replayCount: Int? = nil
    /// What the replays gave, the last `InspectorLog.replaysKept` (newest last).
    var replays: [JSONValue] = []
    /// What the log counts this entry at (`measuredBytes` when it was recorded or replayed).
    var heldBytes = 0

    public init(time: String, request: HTTPServer.Request, answer: HTTPServer.Response, summary: JSONObject) {
        self.time = time
        self.summary = summary
        method = request.head.method
        target = request.head.target
        peer = request.peer
        headers = request.head.headers.map { (name: $0.name, value: $0.value) }
        body = KeptBytes(request.body, limit: InspectorLog.bodyBytes)
        answerStatus = answer.status
        answerContentType = HeaderName.first("Content-Type", in: answer.headers, nameOf: \.name)?.value
        answerBody = KeptBytes(answer.body, limit: InspectorLog.answerBytes)
    }

    /// Headers whose values are credentials: masked in every answer of the inspector (their
    /// value null in the JSON, left out of a `/record` line). `x-api-key` reaches `api serve`;
    /// a tunnel, proxy or browser may add the others. The signature is not one: it is what is
    /// checked, and it is no use without the secret.
    public static let credentialHeaders: Set<String> = ["x-api-key", "authorization", "proxy-authorization", "cookie", "set-cookie"]

    public static func isCredential(_ name: String) -> Bool {
        credentialHeaders.contains(name.lowercased())
    }

    /// `[[name, value]…]`, a credential's value null.
    var shownHeaders: JSONValue {
        .array(headers.map { header in
            [.string(header.name), Self.isCredential(header.name) ? .null : .string(header.value)]
        })
    }

    /// The headers without the credentials: what leaves the inspector in a record line.
    public var headersWithoutCredentials: [(name: String, value: String)] {
        headers.filter { !Self.isCredential($0.name) }
    }

    /// About what this entry costs in memory: its kept bytes, headers, summary and replays,
    /// plus a fixed share for the fields around them.
    var measuredBytes: Int {
        var bytes = 512 + time.utf8.count + method.utf8.count + target.utf8.count + peer.utf8.count
        for header in headers { bytes += header.name.utf8.count + header.value.utf8.count + 32 }
        bytes += body.bytes.count + answerBody.bytes.count + (answerContentType?.utf8.count ?? 0)
        bytes += JSONWriter().write(.object(summary)).count
        for event in batch ?? [] { bytes += event.bytes.count + 16 }
        for replay in replays { bytes += JSONWriter().write(replay).count }
        return bytes
    }

    /// The longest string a list answer carries in any field (a target, a verdict): the list is
    /// polled by every open page, so its size is bounded by its entries, not by what senders sent.
    static let listFieldBytes = 512

    /// The list's object, each string cut to `listFieldBytes` (the detail has them whole).
    var listJSON: JSONObject {
        JSONObject(summaryJSON.map { ($0.key, Self.cut($0.value)) })
    }

    /// `value` with every string longer than `listFieldBytes` cut at a character and marked `…`.
    static func cut(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text) where text.utf8.count > listFieldBytes:
            let kept = KeptBytes.wholeCharacters(Array(text.utf8.prefix(listFieldBytes)))
            return .string(String(decoding: kept, as: UTF8.self) + "…")
        case .array(let elements):
            return .array(elements.map(cut))
        case .object(let object):
            return .object(JSONObject(object.map { ($0.key, cut($0.value)) }))
        default:
            return value
        }
    }

    /// The list's object: `id`, `time`, `peer`, `method`, `target`, the summary, `replays`.
    var summaryJSON: JSONObject {
        var object: JSONObject = ["id": .integer(id), "time": .string(time), "peer": .string(peer), "method": .string(method),
                                  "target": .string(target)]
        for member in summary { object[member.key] = member.value }
        if let replayCount { object["replays"] = .integer(replayCount) }
        return object
    }

    /// The detail view's object: the summary, `extra` (what the listener adds), the request,
    /// the answer, a batch's events, the replays.
    func detailJSON(extra: JSONObject = [:]) -> JSONObject {
        var object = summaryJSON
        for member in extra { object[member.key] = member.value }
        object["headers"] = shownHeaders
        object["body"] = body.json(compressed: bodyIsCompressed)
        object["answer"] = ["status": .integer(answerStatus), "content_type": answerContentType.map { .string($0) } ?? .null,
                            "body": answerBody.json()]
        if let batch {
            object["batch_count"] = .integer(batchCount)
            object["batch"] = .array(batch.map { event in
                let document = try? JSONDocument(bytes: event.bytes)
                let fields = document.map { EventFields($0.root) }
                return ["event_id": fields?.eventID.map { .string($0) } ?? .null, "event_name": fields?.name.map { .string($0) } ?? .null,
                        "duplicate": .bool(event.duplicate),
                        "pretty": .string(document.map { JSONWriter(indent: 2).writeString($0.root.value) } ?? String(decoding: event.bytes, as: UTF8.self))]
            })
        }
        if replayCount != nil { object["replay_results"] = .array(replays) }
        return object
    }
}
