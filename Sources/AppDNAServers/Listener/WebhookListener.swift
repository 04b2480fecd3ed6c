import AppDNACore
import AppDNANet

/// `webhook listen`'s handler, as a value: the settings it obeys and where it reports. `handle` takes
/// one complete request (a connection thread calls it) and returns the answer for the sender;
/// `reject` reports a request the server refused before it was a delivery.
public struct WebhookListener: Sendable {
    let plan: Settings
    /// Where each delivery's outcome, each rejection and each failure to record go (the CLI
    /// renders them as lines and counts).
    let report: any ListenReport
    let clock: any Clock
    /// The inspector's list of deliveries; nil without an inspector.
    let inspector: InspectorLog?
    /// The server's buffered-bytes budget, which a forward under way draws on.
    let budget: HTTPServer

    public init(settings: Settings, report: any ListenReport, clock: any Clock, inspector: InspectorLog?, budget: HTTPServer) {
        plan = settings
        self.report = report
        self.clock = clock
        self.inspector = inspector
        self.budget = budget
    }

    /// The server's decision at the head (`HTTPServer.Admission`): the row's route, method
    /// and body limit (--max-body); a refusal is logged as a rejection and answered at once.
    public func admit(_ request: HTTPServer.Request) -> HTTPServer.Admission {
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
    public func handle(_ request: HTTPServer.Request) -> HTTPServer.Response {
        if case .refuse(let response) = admit(request) { return response }
        return deliver(request)
    }

    /// A request refused before it was a delivery (malformed, too large, too slow): one line.
    public func reject(_ rejection: HTTPServer.Rejection) {
        report.rejected(RejectedRequest(time: Timestamp.iso8601(milliseconds: clock.wallMilliseconds()), rejection))
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
                report.notRecorded(problem)
                // Not acknowledged, so that the sender delivers it again.
                return .text(500, "the listener could not record this delivery")
            }
        }
        let (response, forward, refusal) = answer(request, headers: headers, check: check)
        let outcome = DeliveryOutcome(time: receivedAt, request: request, check: check, secrets: plan.secrets, response: response, forward: forward,
                                      refusal: refusal, words: plan.words)
        report.delivered(outcome)
        inspector?.record(outcome.inspectorEntry)
        return outcome.response
    }

    /// What the sender is answered: the handler's answer when the delivery is forwarded, else
    /// 200 for a valid delivery and 401 for an invalid one; and why the listener refused it, if it did.
    private func answer(_ request: HTTPServer.Request, headers: [(name: String, value: String)],
                        check: DeliveryCheck) -> (HTTPServer.Response, DeliveryForward.Outcome?, DeliveryRefusal?) {
        guard let target = plan.target, check.isValid || plan.forwardInvalid else {
            // The sender learns what is wrong with its delivery, never which secret files were tried.
            if check.isValid { return (HTTPServer.Response(status: 200), nil, nil) }
            let refusal = DeliveryRefusal.invalidSignature(check.senderProblem ?? "")
            return (refusal.response, nil, refusal)
        }
        // A forward holds up to 1 MiB of answer while the handler takes its time (the body is
        // counted by the server until it is answered): reserved from the listener's
        // buffered-bytes budget, 503 when it is spent.
        let forwardBytes = DeliveryForward.relayedAnswerBytes
        guard budget.reserve(forwardBytes) else {
            return (DeliveryRefusal.forwardBudgetSpent.response, nil, .forwardBudgetSpent)
        }
        defer { budget.release(forwardBytes) }
        let forward = DeliveryForward.send(method: request.head.method, headers: headers,
                                           body: request.body, peer: request.peer, to: target, timeout: plan.forwardTimeout, client: plan.client)
        guard let answer = forward.answer else {
            let refusal = DeliveryRefusal.forwardFailed(timedOut: forward.timedOut, error: forward.error ?? "")
            return (refusal.response, forward, refusal)
        }
        return (HTTPServer.Response(status: answer.status, headers: answer.header("Content-Type").map { [("Content-Type", $0)] } ?? [],
                                    body: answer.body), forward, nil)
    }
}
