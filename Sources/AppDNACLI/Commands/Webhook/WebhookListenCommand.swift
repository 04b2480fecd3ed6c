import AppDNACore
import AppDNANet

/// `appdna webhook listen`: a local endpoint for webhook deliveries that checks each signature,
/// prints one line per delivery, and forwards the valid ones to the handler under development.
enum WebhookListenCommand {
    static let flags = WebhookListenFlags.all

    static let discussion = """
    Listens for webhook deliveries on HOST:PORT (127.0.0.1:8787 unless told otherwise) and checks \
    each X-AppDNA-Signature exactly as webhook verify does, with the same secrets \
    (APPDNA_WEBHOOK_SECRET, --secret-file, repeatable while rotating, or --secret-stdin). Point a \
    tunnel (ngrok http 8787) at it and the dashboard's endpoint at the tunnel.
    With --inspect PORT, a page on http://127.0.0.1:PORT/ (loopback only, whatever --host is) \
    lists the last --inspect-keep deliveries as they arrive, shows each one in full (verdict, \
    headers, body, both answers, a command that re-sends it) and replays one to --forward-to \
    with its exact bytes, or edited (body, headers) and signed again with the first secret; \
    its JSON is under /api/deliveries (docs/webhooks.md).
    Each delivery prints one line: time, event type (X-AppDNA-Event, else the body's type), id, \
    valid or invalid with the diagnosis of a mismatch (as webhook verify explains it), and what the sender was answered. With \
    --forward-to, a valid delivery is sent on to your handler with the exact body bytes and \
    end-to-end headers (no retries; hop-by-hop headers such as Connection, Keep-Alive and \
    Proxy-Authorization are dropped; X-Forwarded-For, -Proto and -Host are set), and the sender gets the handler's status and body (502 when it cannot \
    be reached, 504 after --forward-timeout). Without it, a valid delivery is answered 200. An \
    invalid one is answered 401 and not forwarded, unless --forward-invalid.
    Limits: the request line and headers may hold 64 KiB (431 over it); bodies over --max-body \
    get 413 (what the sender still sends is read and dropped for up to 2 s, so that it sees the \
    answer); a head slower than --header-timeout, and a connection sending nothing for \
    --idle-timeout (between requests, or between the reads of a body), are closed (408); a body \
    must arrive within 60 s. Requests are read by one polling thread until they are complete, \
    head and body, so senders that stop half way hold no slot: at most --max-connections \
    complete requests are processed at once, more wait their turn, and when descriptors or \
    buffer memory run short the connection that made progress longest ago is closed first. \
    Requests are read strictly (RFC 9112): a folded header, a value with a control character \
    (NUL, CR, LF…), a name or method that is not a token, a target with a space or control \
    character, an HTTP/1.1 request without exactly one Host, Transfer-Encoding in an HTTP/1.0 \
    request, two Transfer-Encoding fields or chunked twice, or Content-Length with \
    Transfer-Encoding get 400 and are not forwarded. A bad request is answered and logged, and \
    the listener carries on. A HEAD request gets no body; a request that finds no thread to \
    serve it gets 503. The 401 of an invalid delivery says what is wrong with it, never which \
    secret files were tried.
    Forwarding relays at most 1 MiB of the handler's answer (the rest is dropped as it arrives \
    and the line says so); a handler on 127.0.0.1 or localhost is never reached through \
    http_proxy, and no Content-Type is added when the sender sent none.
    Ctrl-C (SIGINT) or SIGTERM stops it: connections still sending are closed at once, requests \
    being handled are finished (and recorded), an answer the peer does not read is cut off after \
    1 s, then a summary line goes to stderr; a second Ctrl-C or SIGTERM quits at once (status 130 for SIGINT, 143 for SIGTERM). Exit status: 0 after \
    a stop, 64 usage error, 69 cannot listen, 73 the record file cannot be opened or is not a regular file, 78 no secret.
    """

    static let examples = [
        ExampleSpec("appdna webhook listen --secret-file secret.txt --forward-to http://localhost:3000/webhooks",
                    "Check deliveries arriving through a tunnel and pass the valid ones to a local handler."),
        ExampleSpec("appdna webhook listen --port 0 --record deliveries.ndjson --json",
                    "Record every delivery for replay, with one JSON object per delivery on stdout."),
    ]

    @Sendable static func run(_ invocation: Invocation) throws -> ExitStatus {
        let arguments = invocation.arguments
        let port = arguments[WebhookListenFlags.port]
        let host = arguments[WebhookListenFlags.host]
        var limits = HTTPServer.Limits(
            maxBodyBytes: arguments[WebhookListenFlags.maxBody],
            headerTimeout: arguments[WebhookListenFlags.headerTimeout],
            idleTimeout: arguments[WebhookListenFlags.idleTimeout],
            maxConnections: arguments[WebhookListenFlags.maxConnections],
            // A forward holds up to this much of the handler's answer (see `deliver`).
            handlerBytes: arguments[WebhookListenFlags.forwardTo] == nil ? 0 : DeliveryForward.relayedAnswerBytes)
        limits.bodyLimitText = FlagWording.bodyLimit
        let forwardTimeout = arguments[WebhookListenFlags.forwardTimeout]
        let target = arguments[WebhookListenFlags.forwardTo]
        if let target, HTTPURL(target) == nil {
            throw Failure(.usage, "--forward-to takes an http(s) URL, not '\(target)'")
        }
        let forwardInvalid = arguments[WebhookListenFlags.forwardInvalid]
        let json = arguments[WebhookListenFlags.json]
        let secrets = try WebhookInputs.secrets(invocation)
        let recorder = try arguments[WebhookListenFlags.record].map { try DeliveryRecorder(path: $0) }
        let server = try HTTPServer(host: host, port: port, limits: limits)
        let log = ListenLog(invocation)
        let forwarder = try DeliveryClient.make(invocation)

        let inspector = try DeliveryInspection.start(invocation, listener: server, target: target, forwardInvalid: forwardInvalid,
                                                     timeout: forwardTimeout,
                                                     client: forwarder, log: log, secrets: secrets, maxBody: arguments[WebhookListenFlags.maxBody])
        server.stopOnInterrupt()
        let forwarding = target.map { " and forwarding valid deliveries to \($0)" } ?? ""
        log.note("listening on \(server.baseURL)\(forwarding); Ctrl-C to stop")
        let report: @Sendable (HTTPServer.Rejection) -> Void = { rejection in
            let time = Timestamp.iso8601(milliseconds: invocation.io.clock.wallMilliseconds())
            if json {
                let object: JSONValue = ["time": .string(time), "peer": .string(rejection.peer), "rejected": true,
                                         "status": .integer(rejection.status), "reason": .string(rejection.reason)]
                log.rejection(JSONWriter().writeString(object))
            } else {
                log.rejection("\(time)  rejected \(rejection.status) from \(rejection.peer): \(rejection.reason)")
            }
        }
        server.serve(handle: { request in
            // Only what the route table takes is a delivery: another method is 405, never checked or forwarded.
            if case .failure(let refusal) = ListenRoutes.table.resolve(method: request.head.method, target: request.head.target) {
                report(HTTPServer.Rejection(status: refusal.status, reason: refusal.message, peer: request.peer))
                var response = HTTPServer.Response.text(refusal.status, refusal.message)
                response.headers += refusal.headers
                return response
            }
            return deliver(request, secrets: secrets, target: target, forwardInvalid: forwardInvalid, timeout: forwardTimeout,
                           client: forwarder, recorder: recorder, log: log, json: json, style: invocation.options.stdoutStyle,
                           clock: invocation.io.clock, inspector: inspector?.log, budget: server)
        }, rejected: report)
        inspector?.stop()
        log.note(log.summary())
        return .success
    }

    /// One complete request: check, record, forward, report; returns the answer for the sender.
    static func deliver(_ request: HTTPServer.Request, secrets: [WebhookSecret], target: String?, forwardInvalid: Bool,
                        timeout: Double, client: HTTPClient, recorder: DeliveryRecorder?, log: ListenLog,
                        json: Bool, style: Styler, clock: any Clock, inspector: InspectorLog? = nil,
                        budget: HTTPServer) -> HTTPServer.Response {
        let receivedAt = clock.wallMilliseconds()
        let check = DeliveryCheck(headers: request.head.headers, body: request.body, secrets: secrets)
        let headers = request.head.headers.map { (name: $0.name, value: $0.value) }
        if let recorder {
            let record = RecordedDelivery(receivedAt: Timestamp.iso8601(milliseconds: receivedAt), method: request.head.method,
                                          target: request.head.target, headers: headers, body: request.body, valid: check.isValid)
            if let problem = recorder.append(record) {
                log.warn(problem)
                // Not acknowledged, so that the sender delivers it again.
                return .text(500, "the listener could not record this delivery")
            }
        }

        var response: HTTPServer.Response
        var forward: DeliveryForward.Outcome? = nil
        // A forward holds the body and up to 1 MiB of answer while the handler takes its time:
        // counted against the listener's buffered-bytes budget, 503 when it is spent.
        let forwardBytes = request.body.count + DeliveryForward.relayedAnswerBytes
        if target != nil, check.isValid || forwardInvalid, !budget.reserve(forwardBytes) {
            response = .text(503, "the listener holds as many bytes as it may for forwards under way; try again")
            response.headers.append(("Retry-After", "1"))
        } else if let target, check.isValid || forwardInvalid {
            defer { budget.release(forwardBytes) }
            let outcome = DeliveryForward.send(method: request.head.method, headers: headers, body: request.body, peer: request.peer,
                                       to: target, timeout: timeout, client: client)
            forward = outcome
            if let answer = outcome.answer {
                response = HTTPServer.Response(status: answer.status,
                                               headers: answer.header("Content-Type").map { [("Content-Type", $0)] } ?? [],
                                               body: answer.body)
            } else {
                response = .text(outcome.timedOut ? 504 : 502, "the forward target failed: \(outcome.error ?? "")")
            }
        } else if check.isValid {
            response = HTTPServer.Response(status: 200)
        } else {
            // The sender learns what is wrong with its delivery, never which secret files were tried.
            response = .text(401, "invalid webhook signature: \(check.senderProblem ?? "")")
        }

        let answerCut = forward?.answer?.bodyWasCut ?? false
        let time = Timestamp.iso8601(milliseconds: receivedAt)
        let forwardOutcome = forward.map { $0.status.map(String.init) ?? ($0.timedOut ? "timeout" : "failed") }
        let line: String
        if json {
            var object = RequestLogFields.start(time: time, request)
            object["event"] = .string(check.event)
            object["id"] = .string(check.id)
            object["body_length"] = .integer(request.body.count)
            object["valid"] = .bool(check.isValid)
            object["matched_secret"] = check.matchedSecret.map { VerifyReport.secretJSON($0, secrets) } ?? .null
            object["problem"] = check.problem.map { .string($0) } ?? .null
            object["diagnoses"] = check.diagnosesJSON
            object["status"] = .integer(response.status)
            object["forward"] = forward.map { .object($0.fields) } ?? .null
            line = JSONWriter().writeString(.object(object))
        } else {
            let verdict = check.verdictText(secrets: secrets)
            let colored = style.apply(check.isValid ? .green : .red, String(verdict.prefix(while: { $0 != " " && $0 != ":" })))
                + String(verdict.drop(while: { $0 != " " && $0 != ":" }))
            var outcome: String
            if let forward {
                let latency = NumberText.milliseconds(forward.milliseconds)
                let cut = answerCut ? " (its answer cut to the first \(NumberText.binarySize(DeliveryForward.relayedAnswerBytes)))" : ""
                outcome = forward.status.map { "forwarded: \($0) in \(latency)\(cut)" } ?? "forward failed after \(latency): \(forward.error!); answered \(response.status)"
            } else {
                outcome = "answered \(response.status)" + (check.isValid ? "" : ", not forwarded")
            }
            line = "\(time)  \(check.event)  \(check.id)  \(colored)  -> \(outcome)"
        }
        log.delivery(line, valid: check.isValid, forwardOutcome: forwardOutcome)
        inspector?.record(DeliveryInspection.entry(time: time, request: request, check: check, secrets: secrets, response: response, forward: forward))
        return response
    }
}
