import AppDNACore
import AppDNANet

/// One request the inspector keeps: a webhook delivery, or a request to `api serve`. The
/// request as received (headers, and the body up to `InspectorLog.bodyBytes`), the answer,
/// and the fields its listener adds for the list (`summary`) and the detail view (`details`).
struct InspectorEntry: Sendable {
    /// Given by the log when the entry is recorded: 1, 2, 3… in the order of arrival.
    var id = 0
    /// When it arrived, ISO 8601 UTC.
    let time: String
    /// The fields the list shows after `id`, `time`, `peer`, `method` and `target`, in order
    /// (event, verdict, status…).
    var summary: JSONObject
    let method: String
    let target: String
    let peer: String
    /// As received, in order. Credentials are hidden when shown (`shownHeaders`), never here:
    /// a replay sends them on as they came.
    let headers: [(name: String, value: String)]
    let body: KeptBytes
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
    var replayCount: Int? = nil
    /// What the replays gave, the last `InspectorLog.replaysKept` (newest last).
    var replays: [JSONValue] = []

    init(time: String, request: HTTPServer.Request, answer: HTTPServer.Response, summary: JSONObject) {
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

    /// Headers whose values are credentials: shown as null (`x-api-key` reaches `api serve`;
    /// a tunnel or proxy may add the others). The signature is not one: it is what is checked.
    static let credentialHeaders: Set<String> = ["x-api-key", "authorization", "proxy-authorization", "cookie"]

    /// `[[name, value]…]`, a credential's value null.
    var shownHeaders: JSONValue {
        .array(headers.map { header in
            [.string(header.name), Self.credentialHeaders.contains(header.name.lowercased()) ? .null : .string(header.value)]
        })
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
