import AppDNACore
import AppDNANet

/// What became of one delivery: when it arrived, its signature check, what the sender was
/// answered and the forward's outcome. The one place a delivery's facts are put into words:
/// the `--json` line, the text line and the inspector's entry are renderings of this value, so
/// they cannot tell two different stories.
struct DeliveryOutcome {
    /// ISO 8601, with milliseconds: when the delivery was received.
    let time: String
    let request: HTTPServer.Request
    let check: DeliveryCheck
    /// The listener's secrets: a verdict names the one that matched.
    let secrets: [WebhookSecret]
    /// What the sender was answered.
    let response: HTTPServer.Response
    /// Nil when the delivery was not forwarded.
    let forward: DeliveryForward.Outcome?

    /// Who reads the facts: the fields are the same, two of them spelled for their reader.
    enum Reader {
        /// `webhook listen --json`: the body's id as `id`, the secret that matched as JSON.
        case jsonLine
        /// The inspector (`/api/deliveries`): `event_id`, and the verdict in words.
        case inspector
    }

    /// The facts, in the documented order (both field lists are only added to).
    func fields(for reader: Reader) -> JSONObject {
        var fields = JSONObject()
        fields["event"] = .string(check.event)
        fields[reader == .jsonLine ? "id" : "event_id"] = .string(check.id)
        fields["body_length"] = .integer(request.body.count)
        fields["valid"] = .bool(check.isValid)
        switch reader {
        case .jsonLine: fields["matched_secret"] = check.matchedSecret.map { VerifyReport.secretJSON($0, secrets) } ?? .null
        case .inspector: fields["verdict"] = .string(check.verdictText(secrets: secrets))
        }
        fields["problem"] = check.problem.map { .string($0) } ?? .null
        fields["diagnoses"] = check.diagnosesJSON
        fields["status"] = .integer(response.status)
        fields["forward"] = forward.map { .object($0.fields) } ?? .null
        return fields
    }

    /// The `--json` line: the request's time, peer, method and target, then the facts.
    var jsonLine: String {
        var object = RequestLogFields.start(time: time, request)
        for field in fields(for: .jsonLine) { object[field.key] = field.value }
        return JSONWriter().writeString(.object(object))
    }

    /// "2026-…Z  subscription.renewed  evt_1  valid (secret 1 of 1, from --secret-file s.txt)  -> forwarded: 201 in 7.8 ms"
    func textLine(style: Styler) -> String {
        let verdict = check.verdictText(secrets: secrets)
        let colored = style.apply(check.isValid ? .green : .red, String(verdict.prefix(while: { $0 != " " && $0 != ":" })))
            + String(verdict.drop(while: { $0 != " " && $0 != ":" }))
        let outcome: String
        if let forward {
            let latency = NumberText.milliseconds(forward.milliseconds)
            let answerCut = forward.answer?.bodyWasCut ?? false
            let cut = answerCut ? " (its answer cut to the first \(NumberText.binarySize(DeliveryForward.relayedAnswerBytes)))" : ""
            outcome = forward.status.map { "forwarded: \($0) in \(latency)\(cut)" } ?? "forward failed after \(latency): \(forward.error!); answered \(response.status)"
        } else {
            outcome = "answered \(response.status)" + (check.isValid ? "" : ", not forwarded")
        }
        return "\(time)  \(check.event)  \(check.id)  \(colored)  -> \(outcome)"
    }

    /// The inspector's entry: the list's fields, and the request and answer in full.
    var inspectorEntry: InspectorEntry {
        var entry = InspectorEntry(time: time, request: request, answer: response, summary: fields(for: .inspector))
        entry.replayCount = 0
        return entry
    }

    /// What the summary line counts the forward under: the handler's status, else "timeout" or
    /// "failed"; nil when not forwarded.
    var forwardCount: String? {
        forward.map { $0.status.map(String.init) ?? ($0.timedOut ? "timeout" : "failed") }
    }
}
