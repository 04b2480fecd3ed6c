import AppDNACore
import AppDNANet
import AppDNAServers

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

    static let run = CommandRun.planned(plan: WebhookListenPlan.make, perform: perform)

    /// Binds the port, starts the inspector, opens the record file (its path judged by the plan,
    /// so a port in use leaves no empty file), and serves until a stop, from the plan alone.
    @Sendable static func perform(_ plan: WebhookListenPlan, _ invocation: Invocation) throws -> ExitStatus {
        // Through the command's files: the listener appends each delivery to what it opens.
        let server = try HTTPServer(host: plan.host, port: plan.port, limits: plan.limits)
        let log = ListenLog(invocation, json: plan.json, style: plan.style)
        let inspector = try DeliveryInspection.start(plan, listener: server, log: log, clock: invocation.io.clock)
        let recorder = try plan.record.map { path throws(Failure) in try DeliveryRecorder(path: path, files: invocation.io.files) }
        server.stopOnInterrupt()
        let forwarding = plan.target.map { " and forwarding valid deliveries to \($0)" } ?? ""
        log.note("listening on \(server.baseURL)\(forwarding); Ctrl-C to stop")
        let listener = WebhookListener(settings: plan.settings(recorder: recorder), report: log, clock: invocation.io.clock,
                                       inspector: inspector?.log, budget: server)
        server.serve(admit: { listener.admit($0) }, handle: { listener.handle($0) }, rejected: { listener.reject($0) })
        inspector?.stop()
        log.note(log.summary())
        return .success
    }
}
