import AppDNACore
import AppDNANet
import AppDNAServers

/// `webhook listen --inspect PORT`: what the inspector shows of a delivery, and its replay.
enum DeliveryInspection {
    /// Starts the inspector beside `listener` (nil without `--inspect`). The plan's secrets
    /// sign an edited replay (the first) and check it (all); its `--max-body` bounds its body.
    static func start(_ plan: WebhookListenPlan, listener server: HTTPServer, log: ListenLog, clock: any Clock) throws -> InspectorServer? {
        guard let settings = plan.inspector else { return nil }
        let target = plan.target, forwardInvalid = plan.forwardInvalid
        // What a person runs to send a delivery again: to this listener, on loopback when it
        // listens on every interface.
        let listener = server.loopbackURL
        var site = InspectorServer.Site(kind: "webhook", collection: "deliveries",
                                        listener: ["address": .string(server.baseURL), "forward_to": target.map { .string($0) } ?? .null])
        site.record = record
        site.detailFields = { entry, inspectorURL in
            var fields: JSONObject = [:]
            fields["forward_to"] = target.map { .string($0) } ?? .null
            let refusal = replayRefusal(entry, target: target, forwardInvalid: forwardInvalid)
            fields["replayable"] = .bool(refusal == nil)
            fields["not_replayable"] = refusal.map { .string($0) } ?? .null
            fields["resend_command"] = entry.body.isWhole ? .string(resendCommand(entry, inspectorURL: inspectorURL, listener: listener)) : .null
            return fields
        }
        let replayer = Replayer(target: target, forwardInvalid: forwardInvalid, timeout: plan.forwardTimeout, client: plan.client, log: log,
                                clock: clock, secrets: plan.secrets, maxBody: plan.maxBody)
        site.replay = { entry, edits in replayer.replay(entry, edits: edits) }
        site.requestBytes = ReplayModification.requestBytes(maxBody: plan.maxBody)
        site.listenerDescription = ServerDescriptions.listen
        return try InspectorLaunch.start(settings, site: site, noun: "deliveries", note: log.note)
    }

    /// The inspector's Replay: the delivery forwarded again through the listener's own path,
    /// as received or edited (`ReplayModification`).
    struct Replayer: Sendable {
        let target: String?
        let forwardInvalid: Bool
        let timeout: Double
        let client: HTTPClient
        let log: ListenLog
        let clock: any Clock
        /// The listener's: the first signs an edited replay, all check it.
        let secrets: [WebhookSecret]
        /// The listener's --max-body: an edited body is no larger than a delivery may be.
        let maxBody: Int

        /// 200 and what the handler answered (noted on stderr too), 400 for edits that are not
        /// well formed, or 409 and why the listener will not forward it (or the edits do not fit the entry). `edits` is the
        /// request's body: empty for a replay of the delivery as received.
        func replay(_ entry: InspectorEntry, edits: [UInt8] = []) -> (status: Int, result: JSONValue) {
            guard let target else { return (409, ["error": "the listener has no --forward-to: there is no handler to replay to"]) }
            let modification: ReplayModification?
            switch ReplayModification.parse(edits, maxBody: maxBody) {
            case .success(let parsed): modification = parsed
            case .failure(let refusal): return (400, ["error": .string(refusal.message)])
            }
            var headers = entry.headers, body = entry.body.bytes
            if let modification {
                switch modification.applied(to: entry, secrets: secrets) {
                case .failure(let refusal):
                    // Well-formed edits that do not fit this entry (a null for a credential it
                    // did not carry, no body where the kept one was cut): a conflict with it.
                    return (409, ["error": .string(refusal.message)])
                case .success(let edited):
                    // The listener's rule, on what is sent now: an invalid signature only under --forward-invalid.
                    if !edited.valid && !forwardInvalid {
                        return (409, ["error": .string("the edited delivery's signature is not valid (\(modification.signature.rawValue)), and the listener forwards "
                            + "only valid deliveries: choose \"resign\" to sign it with the listener's secret, or start the listener with --forward-invalid")])
                    }
                    (headers, body) = (edited.headers, edited.body)
                }
            } else if let refusal = replayRefusal(entry, target: target, forwardInvalid: forwardInvalid) {
                return (409, ["error": .string(refusal)])
            }
            let outcome = DeliveryForward.send(method: entry.method, headers: headers, body: body, peer: entry.peer,
                                                       to: target, timeout: timeout, client: client)
            let latency = NumberText.milliseconds(outcome.milliseconds)
            let said: String
            if let status = outcome.status {
                said = "forwarded: \(status) in \(latency)"
            } else {
                said = "forward failed after \(latency): \(outcome.error ?? "")"
            }
            let how = modification.map { " with modifications (signature: \($0.signature.rawValue), \(NumberText.binarySize(body.count)))" } ?? ""
            log.note("replayed delivery \(entry.id) from the inspector\(how): \(said)")
            var result: JSONObject = ["time": .string(Timestamp.iso8601(milliseconds: clock.wallMilliseconds()))]
            // What was sent, when it was not the delivery as received (the entry keeps that).
            result["modified"] = .bool(modification != nil)
            if let modification {
                result["signature"] = .string(modification.signature.rawValue)
                result["body_length"] = .integer(body.count)
            }
            for field in outcome.fields { result[field.key] = field.value }
            if let answer = outcome.answer {
                result["answer"] = KeptBytes(answer.body, limit: InspectorLog.answerBytes).json()
            } else {
                result["answer"] = .null
            }
            return (200, .object(result))
        }
    }

    /// Why `entry` cannot be forwarded again from the inspector; nil when it can. The listener's
    /// rules hold here too: what it did not forward (an invalid signature) the inspector does
    /// not forward either, unless the listener forwards invalid deliveries.
    static func replayRefusal(_ entry: InspectorEntry, target: String?, forwardInvalid: Bool) -> String? {
        guard target != nil else { return "the listener has no --forward-to: there is no handler to replay to" }
        if !forwardInvalid, case .bool(false)? = entry.summary["valid"] {
            return "the delivery's signature is invalid, so the listener did not forward it, and replay obeys the same rule "
                + "(start the listener with --forward-invalid to forward invalid deliveries)"
        }
        guard entry.body.isWhole else {
            return "the body (\(NumberText.binarySize(entry.body.length))) is larger than the \(NumberText.binarySize(InspectorLog.bodyBytes)) "
                + "the inspector keeps: record deliveries with --record and re-send them with webhook trigger --replay"
        }
        return nil
    }

    /// The delivery as `--record` writes it, for `webhook trigger --replay`, without its
    /// credential headers (`InspectorEntry.credentialHeaders`); nil when its body was cut.
    @Sendable static func record(_ entry: InspectorEntry) -> [UInt8]? {
        guard entry.body.isWhole else { return nil }
        let valid: Bool? = if case .bool(let valid)? = entry.summary["valid"] { valid } else { nil }
        // Credentials stay in the listener: a record leaves the inspector without them.
        return RecordedDelivery(receivedAt: entry.time, method: entry.method, target: entry.target, headers: entry.headersWithoutCredentials,
                                body: entry.body.bytes, valid: valid).jsonLine()
    }

    /// Fetches the delivery's record from the inspector and re-sends it, byte for byte, to the
    /// listener (which checks it again and forwards it): two commands a shell runs as given.
    static func resendCommand(_ entry: InspectorEntry, inspectorURL: String, listener: String) -> String {
        let file = "delivery-\(entry.id).ndjson"
        return ShellWord.line(["curl", "-sS", "-o", file, "\(inspectorURL)api/deliveries/\(entry.id)/record"]) + " && "
            + ShellWord.line(["appdna", "webhook", "trigger", "--replay", file, "--to", listener + entry.target])
    }
}
