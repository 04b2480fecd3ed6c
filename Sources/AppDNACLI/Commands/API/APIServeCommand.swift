import AppDNACore
import AppDNANet

/// `appdna api serve`: the AppDNA API on your machine, for trying the CI steps (`bundle fetch`,
/// `--check`, `diff @remote`, `queue replay`) and an SDK integration before the real API is
/// involved. The bundle endpoints answer from a file, the ingest endpoint checks bodies exactly
/// as the platform documents them (raw DEFLATE, `{"batch": […]}`, the event schema) and records
/// the events, and flags inject the faults a client must survive.
enum APIServeCommand {
    static let discussion = """
    Serves GET /api/v1/sdk/config-bundle (the --bundle file as written, either shape) and \
    GET /api/v1/sdk/config-bundle/version (bundle_version, sdk_min_version, size_bytes) from \
    the file, read again whenever it changes (or from the live bundle with --bundle @remote), \
    and POST /api/v1/ingest/events as the SDK sends \
    it: a raw DEFLATE body (RFC 1951; Content-Encoding: deflate) holding {"batch": [events]}, \
    each event checked against the event schema as queue inspect checks it. A body over 64 MiB, \
    or one that inflates to more than 64 MiB, is answered 413. A batch is answered \
    200 {"accepted": N, "duplicates": D} (an event_id already received is a duplicate and is not \
    recorded again) or 400 saying what is wrong; --record appends each new event to a file as \
    NDJSON. Every request must carry x-api-key: any non-empty key, or only the one in \
    --key-file / APPDNA_SDK_KEY with --key-from-env (401 otherwise).
    With --inspect PORT, a page on http://127.0.0.1:PORT/ (loopback only) lists the last \
    --inspect-keep requests as they arrive: endpoint, status, injected fault and, for a batch, \
    each event and whether it was a duplicate; its JSON is under /api/requests (docs/local-api.md).
    A dev server: --override forces a variant, a flag, a config value or the onboarding flow \
    on every device pointed here, by serving a bundle devices compute the forced answer from \
    (the experiment running for everyone with the variant's weight 1 and the others 0; the \
    value raw in the section the SDK reads, remote_config else feature_flags; \
    onboarding.active_flow_id); it passes bundle validate, and its bundle_version is the \
    source's plus one for every change, so SDKs polling /config-bundle/version fetch it. \
    Overrides are set and cleared at run time with appdna api override (or PUT and DELETE \
    /api/overrides/KIND/KEY on the inspector, with its token), kept in the --state file and \
    listed at start. Every exposure a batch's new events carry is audited against the bundle \
    served at that moment, as queue inspect --bundle audits a queue: a wrong variant, an \
    experiment not running or not for that user, an unknown experiment is flagged on stdout, \
    in --json (audit), in the inspector and in the summary (docs/device-variants.md).
    Faults for testing clients: --fail 503:3 answers the next three requests 503 (with \
    Retry-After from --retry-after; --fail-after 3 lets three through first), --latency 2s delays every answer, --status-413-over 64KiB \
    refuses larger batches with 413.
    Listens on 127.0.0.1:8765 unless told otherwise: point clients at it with \
    APPDNA_API_URL=http://127.0.0.1:8765. Prints one line per request on stdout; Ctrl-C (SIGINT) \
    or SIGTERM stops it and prints a summary on stderr. Exit status: 0 after a stop, 64 usage \
    error, 65 the bundle is not a bundle, 66 no bundle file, 69 cannot listen, 73 the record \
    or --state file cannot be opened or is not a regular file, 78 the key file is unreadable. Requests are \
    read as webhook listen reads them (strictly, a polling thread until complete, 64 KiB of \
    head); a HEAD request gets no body.
    """

    static let examples = [
        ExampleSpec("appdna api serve --bundle appdna-config.json --record events.ndjson",
                    "Serve a bundle and record the events an app or queue replay sends."),
        ExampleSpec("appdna api serve --bundle appdna-config.json --fail 503:2 --retry-after 1",
                    "Check that a CI step survives two 503 answers."),
        ExampleSpec("appdna api serve --bundle appdna-config.json --inspect 8766 --override experiment:onboarding-v2=streamlined",
                    "Show variant streamlined on every device pointed at the server, and audit what they send."),
    ]

    @Sendable static func run(_ invocation: Invocation) throws -> ExitStatus {
        let arguments = invocation.arguments
        guard let bundlePath = arguments[APIServeFlags.bundle] else {
            throw Failure(.usage, "api serve needs a bundle to serve: --bundle FILE (appdna bundle fetch -o FILE writes one) or --bundle @remote")
        }
        let overrides = try arguments[APIServeFlags.override].map { text throws(Failure) in try BundleOverride(parsing: text) }
        let bundle = try served(bundlePath, invocation)
        // Before listening: a state file that no longer fits the bundle is named, a bad --override refused (64).
        for (item, why) in bundle.stale() { invocation.warn("override \(item.text) from \(arguments[APIServeFlags.state]) does not apply: \(why)") }
        for item in overrides where !bundle.overrides.contains(item) { try bundle.set(item) }
        let faults = try ServeFaults(fail: arguments[APIServeFlags.fail], after: arguments[APIServeFlags.failAfter], retryAfter: arguments[APIServeFlags.retryAfter],
                                     latency: arguments[APIServeFlags.latency], maxEventBody: arguments[APIServeFlags.status413Over])
        let requiredKey = try requiredKey(invocation)
        let recorder = try arguments[APIServeFlags.record].map { try DeliveryRecorder(path: $0) }
        let host = arguments[APIServeFlags.host]
        let server = try HTTPServer(host: host, port: arguments[APIServeFlags.port],
                                    limits: HTTPServer.Limits(maxBodyBytes: IngestEndpoint.maxBodyBytes, headerTimeout: 10, idleTimeout: 30, maxConnections: 64))
        let log = ServeLog(invocation, json: arguments[APIServeFlags.json])
        let ingest = IngestEndpoint(recorder: recorder, servedBundle: { try? bundle.answers().document() })
        let initial = try bundle.answers()

        let inspector = try RequestInspection.start(invocation, listener: server, log: log, bundle: bundle)
        server.stopOnInterrupt()
        log.note("serving \(bundlePath) (bundle_version \(initial.bundleVersion)) at \(server.baseURL); "
                 + "APPDNA_API_URL=\(server.baseURL) points clients here; Ctrl-C to stop")
        for item in bundle.overrides { log.note("override \(item.text)") }
        let admission = ServeAdmission(requiredKey: requiredKey, serverLimit: server.limits.maxBodyBytes)
        server.serve(admit: { request in
            // Decided at the head: a refusal (no such path, no key, too large) is logged and answered before any body byte is read.
            switch admission.decide(request.head) {
            case .success(let admitted): return .admit(maxBodyBytes: admitted.maxBodyBytes)
            case .failure(let refusal):
                log.request(request, refusal.answer)
                inspector?.log.record(RequestInspection.entry(request, refusal.answer, time: Timestamp.iso8601(milliseconds: invocation.io.clock.wallMilliseconds())))
                return .refuse(refusal.answer.response)
            }
        }, handle: { request in
            let answer = respond(to: request, bundle: bundle, faults: faults, admission: admission, ingest: ingest, log: log)
            faults.waitLatency()
            log.request(request, answer)
            inspector?.log.record(RequestInspection.entry(request, answer, time: Timestamp.iso8601(milliseconds: invocation.io.clock.wallMilliseconds())))
            return answer.response
        }, rejected: { rejection in
            log.rejection(rejection)
        })
        inspector?.stop()
        log.note(log.summary(recordedTo: recorder?.path))
        return .success
    }

    /// The bundle `--bundle` names, with the overrides of `--state`.
    static func served(_ path: String, _ invocation: Invocation) throws -> ServedBundle {
        let arguments = invocation.arguments
        try BundleArgument.checkSpelling(path)
        let source: ServedBundle.Source
        if path == BundleArgument.remote {
            source = .remote(fetch: {
                try BundleArgument.liveBundle(over: LiveBundleConnection(invocation, timeout: 60, retries: 3))
            }, every: arguments[APIServeFlags.refetch])
        } else {
            if arguments.given(APIServeFlags.refetch.spec) { throw Failure(.usage, "--refetch goes with --bundle @remote (a file is read again whenever it changes)") }
            source = .file(path: path)
        }
        return try ServedBundle(source: source, statePath: arguments[APIServeFlags.state], clock: invocation.io.clock,
                                warn: { message in invocation.warn(message) })
    }

    /// The key every request must carry; nil when any non-empty key will do.
    static func requiredKey(_ invocation: Invocation) throws -> [UInt8]? {
        if let path = invocation.arguments[APIServeFlags.keyFile] {
            var bytes = try FileReading.readSettingFile(path, holding: "the API key", hint: "--key-file takes the path of a file that holds only the key")
            if bytes.last == 0x0A { bytes.removeLast() }
            if bytes.last == 0x0D { bytes.removeLast() }
            guard !bytes.isEmpty else { throw Failure(.configuration, "--key-file \(path) is empty") }
            return bytes
        }
        if invocation.arguments[APIServeFlags.keyFromEnv] {
            guard let value = invocation.io.environment[APIAccess.keyVariable], !value.isEmpty else {
                throw Failure(.configuration, "--key-from-env: \(APIAccess.keyVariable) is not set")
            }
            return Array(value.utf8)
        }
        return nil
    }

    /// A request the head admitted (`ServeAdmission`): its endpoint is decided again from the
    /// same head, which gives the same answer.
    static func respond(to request: HTTPServer.Request, bundle: ServedBundle, faults: ServeFaults, admission: ServeAdmission,
                        ingest: IngestEndpoint, log: ServeLog) -> ServeAnswer {
        let endpoint: ServeEndpoint
        switch admission.decide(request.head) {
        case .success(let admitted): endpoint = admitted.0
        case .failure(let refusal): return refusal.answer
        }
        if let status = faults.takeFailure() {
            var response = ServeAnswer.jsonError(status, "injected by --fail")
            response.headers += faults.retryAfterHeader
            var answer = ServeAnswer(response: response, endpoint: endpoint.rawValue, note: "injected by --fail")
            answer.injected = true
            return answer
        }
        switch endpoint {
        case .events:
            if let limit = faults.maxEventBody, request.body.count > limit {
                var answer = ServeAnswer(response: ServeAnswer.jsonError(413, "the batch is \(request.body.count) bytes, over \(limit)"), endpoint: endpoint.rawValue,
                                    note: "\(NumberText.binarySize(request.body.count)) over --status-413-over")
                answer.injected = true
                return answer
            }
            return ingest.receive(request)
        case .bundle, .version:
            do {
                let answers = try bundle.answers()
                let body = endpoint == .bundle ? answers.bundle : answers.version
                // A HEAD answer gets the GET's Content-Length and no body: the server leaves it out.
                return ServeAnswer(response: HTTPServer.Response(status: 200, headers: [("Content-Type", "application/json")], body: body),
                              endpoint: endpoint.rawValue, note: "bundle_version \(answers.bundleVersion)")
            } catch {
                let message = FlagWording.message(for: error)
                log.warn(message)
                return ServeAnswer(response: ServeAnswer.jsonError(500, message), endpoint: endpoint.rawValue, note: "cannot serve the bundle file")
            }
        }
    }
}
