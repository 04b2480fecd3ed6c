import AppDNACore
import AppDNANet

/// What became of one request to `api serve`: when it was answered, the request, the endpoint
/// it reached, the answer, and what it was (a bundle served, a batch taken, or a typed
/// refusal). The one place a request's facts are put into words: the `--json` line, the text
/// line and the inspector's entry are renderings of this value, so they cannot tell two
/// different stories. (The listener's is `DeliveryOutcome`.)
public struct ServeOutcome {
    /// ISO 8601, with milliseconds: when the request was answered.
    public let time: String
    public let request: HTTPServer.Request
    /// nil: no route took it (the line says `other`).
    public let endpoint: ServeEndpoint?
    /// What the client was answered.
    public let response: HTTPServer.Response
    public let result: Result
    /// The CLI's words for the facts that name its settings.
    let words: ServeWords
    /// The request's share of the byte budget, kept until this outcome is dropped.
    let held: HeldBytes?

    /// What the request was.
    public enum Result {
        /// One of the two bundle endpoints answered, from this bundle_version.
        case bundle(version: Int64)
        /// An event batch, checked and recorded.
        case batch(AcceptedBatch)
        /// Refused, and why.
        case refused(ServeRefusal)
        /// One of the SDK's own calls, answered 200.
        case sdk(SDKCall)
    }

    /// An event batch that was taken.
    public struct AcceptedBatch {
        /// Events in the batch.
        public let received: Int
        /// New events, recorded.
        public let accepted: Int
        /// Events whose event_id was received before (not recorded again).
        public var duplicates: Int { received - accepted }
        /// " ios 4.2.0": the SDK's platform and version headers, when it sent them.
        public let sdk: String
        /// The batch's events as sent, and which were duplicates (for the inspector).
        public let events: [(bytes: [UInt8], duplicate: Bool)]
        /// The exposures of the new events, audited against the served bundle (nil: none carried one).
        public let audit: BatchAudit?
    }

    /// An endpoint's answer, before it is an outcome (the time is taken once the answer is ready).
    public struct Answer {
        public let endpoint: ServeEndpoint?
        public let response: HTTPServer.Response
        public let result: Result
        /// What the request holds of the server's byte budget (an ingest batch's inflated body,
        /// parse and audit), given back when the outcome is dropped, once it is reported.
        let held: HeldBytes?

        public init(endpoint: ServeEndpoint?, response: HTTPServer.Response, result: Result, held: HeldBytes? = nil) {
            self.endpoint = endpoint
            self.response = response
            self.result = result
            self.held = held
        }
    }

    public init(time: String, request: HTTPServer.Request, _ answer: Answer, words: ServeWords) {
        self.time = time
        self.request = request
        endpoint = answer.endpoint
        response = answer.response
        result = answer.result
        held = answer.held
        self.words = words
    }

    /// The endpoint's short name in the line and the summary (`bundle`, `version`, `events`, `other`).
    public var endpointName: String { endpoint?.rawValue ?? "other" }

    public var refusal: ServeRefusal? {
        if case .refused(let refusal) = result { return refusal }
        return nil
    }

    public var batch: AcceptedBatch? {
        if case .batch(let batch) = result { return batch }
        return nil
    }

    /// A fault the server was told to inject made the answer.
    public var injected: Bool { refusal?.isInjected ?? false }
    /// The request had no key, or not the one required.
    public var refusedKey: Bool { refusal?.isKey ?? false }
    /// New events recorded from this request.
    public var events: Int { batch?.accepted ?? 0 }
    public var duplicates: Int { batch?.duplicates ?? 0 }
    public var audit: BatchAudit? { batch?.audit }

    /// What happened, in words: "bundle_version 3", "2 events, 0 duplicates ios 4.2.0", or the refusal's note.
    public var note: String {
        switch result {
        case .bundle(let version): return "bundle_version \(version)"
        case .batch(let batch):
            return "\(batch.received) event\(batch.received == 1 ? "" : "s"), \(batch.duplicates) duplicate\(batch.duplicates == 1 ? "" : "s")\(batch.sdk)"
        case .refused(let refusal): return refusal.note(words)
        case .sdk(let call): return call.note
        }
    }

    /// The refusal's reason, as its answer says it (nil: not refused); spelled `reason` in JSON,
    /// as the listener spells it.
    public var reason: String? { refusal?.message(words) }

    /// The `--json` line: the request's time, peer, method and target, then the facts (the
    /// fields of docs/schemas/api-serve.schema.json, only ever added to).
    public var jsonLine: String {
        var object = RequestLogFields.start(time: time, request)
        object["endpoint"] = .string(endpointName)
        object["status"] = .integer(response.status)
        object["injected"] = .bool(injected)
        object["events"] = .integer(events)
        object["duplicates"] = .integer(duplicates)
        object["note"] = .string(note)
        object["audit"] = audit?.json ?? .null
        object["reason"] = reason.map(JSONValue.string) ?? .null
        return JSONWriter().writeString(.object(object))
    }

    /// "2026-…Z  POST /api/v1/ingest/events  200  2 events, 0 duplicates; 3 exposures checked …",
    /// then each listed exposure mismatch on a line of its own.
    public var textLines: [String] {
        let audit = self.audit.map { "; " + $0.words } ?? ""
        return ["\(time)  \(request.head.method) \(request.head.target)  \(response.status)  \(note)\(audit)"] + (self.audit?.mismatchLines ?? [])
    }

    /// The inspector's entry: the fields the `--json` line has, the injected fault in words, and
    /// an event batch's events (as many as fit in `InspectorLog.bodyBytes`).
    public var inspectorEntry: InspectorEntry {
        var summary: JSONObject = [:]
        summary["endpoint"] = .string(endpointName)
        summary["status"] = .integer(response.status)
        summary["injected"] = .bool(injected)
        summary["fault"] = injected ? .string(note) : .null
        summary["note"] = .string(note)
        summary["events"] = .integer(events)
        summary["duplicates"] = .integer(duplicates)
        summary["body_length"] = .integer(request.body.count)
        summary["audit"] = audit?.json ?? .null
        summary["reason"] = reason.map(JSONValue.string) ?? .null
        var entry = InspectorEntry(time: time, request: request, answer: response, summary: summary)
        entry.bodyIsCompressed = request.head.value(of: "Content-Encoding")?.lowercased() == "deflate"
        if let batch {
            var room = InspectorLog.bodyBytes
            entry.batch = Array(batch.events.prefix(while: { event in
                room -= event.bytes.count
                return room >= 0
            }))
            entry.batchCount = batch.events.count
        }
        return entry
    }

    /// `{"error": MESSAGE}` with `status`: how every endpoint refuses.
    static func jsonError(_ status: Int, _ message: String) -> HTTPServer.Response {
        HTTPServer.Response(status: status, headers: [("Content-Type", "application/json")],
                            body: JSONWriter().write(["error": .string(message)]) + [0x0A])
    }
}
