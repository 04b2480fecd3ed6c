import AppDNACore
import AppDNANet

/// What became of one delivery: when it arrived, its signature check, what the sender was
/// answered and the forward's outcome. The one place a delivery's facts are put into words:
/// the `--json` line, the text line (the CLI's, in colour: `DeliveryOutcome+Text.swift`) and the
/// inspector's entry are renderings of this value, so they cannot tell two different stories.
public struct DeliveryOutcome: Sendable {
    /// ISO 8601, with milliseconds: when the delivery was received.
    public let time: String
    public let request: HTTPServer.Request
    public let check: DeliveryCheck
    /// The listener's secrets: a verdict names the one that matched.
    public let secrets: [WebhookSecret]
    /// What the sender was answered.
    public let response: HTTPServer.Response
    /// Nil when the delivery was not forwarded.
    public let forward: DeliveryForward.Outcome?
    /// Why the listener answered with an error of its own; nil when it answered 200 or relayed
    /// the handler's answer.
    public let refusal: DeliveryRefusal?
    /// The CLI's words for what names a flag.
    public let words: ListenWords

    public init(time: String, request: HTTPServer.Request, check: DeliveryCheck, secrets: [WebhookSecret], response: HTTPServer.Response,
                forward: DeliveryForward.Outcome?, refusal: DeliveryRefusal? = nil, words: ListenWords) {
        self.time = time
        self.request = request
        self.check = check
        self.secrets = secrets
        self.response = response
        self.forward = forward
        self.refusal = refusal
        self.words = words
    }

    /// Who reads the facts: the fields are the same, two of them spelled for their reader.
    public enum Reader: Sendable {
        /// `webhook listen --json`: the body's id as `id`, the secret that matched as JSON.
        case jsonLine
        /// The inspector (`/api/deliveries`): `event_id`, and the verdict in words.
        case inspector
    }

    /// The facts, in the documented order (both field lists are only added to).
    public func fields(for reader: Reader) -> JSONObject {
        var fields = JSONObject()
        fields["event"] = .string(check.event)
        fields[reader == .jsonLine ? "id" : "event_id"] = .string(check.id)
        fields["body_length"] = .integer(request.body.count)
        fields["valid"] = .bool(check.isValid)
        switch reader {
        case .jsonLine: fields["matched_secret"] = check.matchedSecret.map { WebhookSecret.json($0, secrets) } ?? .null
        case .inspector: fields["verdict"] = .string(check.verdictText(secrets: secrets, words: words))
        }
        fields["problem"] = check.problem.map { .string($0) } ?? .null
        fields["diagnoses"] = check.diagnosesJSON
        fields["status"] = .integer(response.status)
        fields["forward"] = forward.map { .object($0.fields) } ?? .null
        // Spelled as every refusal's reason in both servers' lines and entries.
        fields["reason"] = refusal.map { .string($0.message) } ?? .null
        return fields
    }

    /// The `--json` line: the request's time, peer, method and target, then the facts.
    public var jsonLine: String {
        var object = RequestLogFields.start(time: time, request)
        for field in fields(for: .jsonLine) { object[field.key] = field.value }
        return JSONWriter().writeString(.object(object))
    }

    /// The inspector's entry: the list's fields, and the request and answer in full.
    public var inspectorEntry: InspectorEntry {
        var entry = InspectorEntry(time: time, request: request, answer: response, summary: fields(for: .inspector))
        entry.replayCount = 0
        return entry
    }

    /// What the summary line counts the forward under: the handler's status, else "timeout" or
    /// "failed"; nil when not forwarded.
    public var forwardCount: String? {
        forward.map { $0.status.map(String.init) ?? ($0.timedOut ? "timeout" : "failed") }
    }
}
