import AppDNACore
import AppDNANet

/// `webhook listen`'s handler, as a value: the plan it obeys and where it writes. `handle` takes
/// one complete request (a connection thread calls it) and returns the answer for the sender;
/// `reject` reports a request the server refused before it was a delivery.
struct WebhookListener: Sendable {
    let plan: WebhookListenPlan
    /// The delivery lines, counts and stderr notes.
    let log: ListenLog
    let clock: any Clock
    /// The inspector's list of deliveries; nil without `--inspect`.
    let inspector: InspectorLog?
    /// The server's buffered-bytes budget, which a forward under way draws on.
    let budget: HTTPServer

    /// The server's decision at the head (`HTTPServer.Admission`): the row's route, method
    /// and body limit (--max-body); a refusal is logged as a rejection and answered at once.
    func admit(_ request: HTTPServer.Request) -> HTTPServer.Admission {
        switch ListenRoutes.table.decide(request.head, guards: RouteGuards(), serverLimit: budget.limits.maxBodyBytes) {
        case .admit(_, let maxBodyBytes):
            return .admit(maxBodyBytes: maxBodyBytes)
        case .refuse(let refusal, _):
            reject(HTTPServer.Rejection(status: refusal.status, reason: refusal.message, peer: request.peer))
            var response = HTTPServer.Response.text(refusal.status, refusal.message)
            response.headers += refusal.headers
            return .refuse(response)
        }
    }

    /// One complete request the head admitted: a delivery. (Decided again when called on its
    /// own, by a test: the same answer the server gave at the head.)
    func handle(_ request: HTTPServer.Request) -> HTTPServer.Response {
        if case .refuse(let response) = admit(request) { return response }
        return deliver(request)
    }

    /// A request refused before it was a delivery (malformed, too large, too slow): one line.
    func reject(_ rejection: HTTPServer.Rejection) {
        let time = Timestamp.iso8601(milliseconds: clock.wallMilliseconds())
        if plan.json {
            let object: JSONValue = ["time": .string(time), "peer": .string(rejection.peer), "rejected": true,
                                     "status": .integer(rejection.status), "reason": .string(rejection.reason)]
            log.rejection(JSONWriter().writeString(object))
        } else {
            log.rejection("\(time)  rejected \(rejection.status) from \(rejection.peer): \(rejection.reason)")
        }
    }

    /// One delivery: check, record, forward, report; returns the answer for the sender.
    private func deliver(_ request: HTTPServer.Request) -> HTTPServer.Response {
        let receivedAt = Timestamp.iso8601(milliseconds: clock.wallMilliseconds())
        let check = DeliveryCheck(headers: request.head.headers, body: request.body, secrets: plan.secrets)
        let headers = request.head.headers.map { (name: $0.name, value: $0.value) }
        if let recorder = plan.recorder {
            let record = RecordedDelivery(receivedAt: receivedAt, method: request.head.method, target: request.head.target,
                                          headers: headers, body: request.body, valid: check.isValid)
            if let problem = recorder.append(record) {
                log.warn(problem)
                // Not acknowledged, so that the sender delivers it again.
                return .text(500, "the listener could not record this delivery")
            }
        }
        let (response, forward) = answer(request, headers: headers, check: check)
        let outcome = DeliveryOutcome(time: receivedAt, request: request, check: check, secrets: plan.secrets, response: response, forward: forward)
        log.delivery(plan.json ? outcome.jsonLine : outcome.textLine(style: plan.style), valid: check.isValid, forwardOutcome: outcome.forwardCount)
        inspector?.record(outcome.inspectorEntry)
        return outcome.response
    }

    /// What the sender is answered: the handler's answer when the delivery is forwarded, else
    /// 200 for a valid delivery and 401 for an invalid one.
    private func answer(_ request: HTTPServer.Request, headers: [(name: String, value: String)],
                        check: DeliveryCheck) -> (HTTPServer.Response, DeliveryForward.Outcome?) {
        guard let target = plan.target, check.isValid || plan.forwardInvalid else {
            // The sender learns what is wrong with its delivery, never which secret files were tried.
            return (check.isValid ? HTTPServer.Response(status: 200) : .text(401, "invalid webhook signature: \(check.senderProblem ?? "")"), nil)
        }
        // A forward holds the body and up to 1 MiB of answer while the handler takes its time:
        // counted against the listener's buffered-bytes budget, 503 when it is spent.
        let forwardBytes = request.body.count + DeliveryForward.relayedAnswerBytes
        guard budget.reserve(forwardBytes) else {
            var response = HTTPServer.Response.text(503, "the listener holds as many bytes as it may for forwards under way; try again")
            response.headers.append(("Retry-After", "1"))
            return (response, nil)
        }
        defer { budget.release(forwardBytes) }
        let forward = DeliveryForward.send(method: request.head.method, headers: headers,
                                           body: request.body, peer: request.peer, to: target, timeout: plan.forwardTimeout, client: plan.client)
        guard let answer = forward.answer else {
            return (.text(forward.timedOut ? 504 : 502, "the forward target failed: \(forward.error ?? "")"), forward)
        }
        return (HTTPServer.Response(status: answer.status, headers: answer.header("Content-Type").map { [("Content-Type", $0)] } ?? [],
                                    body: answer.body), forward)
    }
}
