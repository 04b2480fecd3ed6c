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
    listed at start. Every change is proven before it is kept (built, validated, bucketed, \
    the state loaded back, then written and served); an override the bundle no longer has is \
    stale: kept, not applied, marked. Every exposure a batch's new events carry is audited against the bundle \
    served at that moment, as queue inspect --bundle audits a queue: a wrong variant, an \
    experiment not running or not for that user, an unknown experiment is flagged on stdout, \
    in --json (audit), in the inspector and in the summary (docs/device-variants.md).
    Faults for testing clients: --fail 503:3 answers the next three requests 503 (with \
    Retry-After from --retry-after; --fail-after 3 lets three through first), --latency 2s delays every answer, --status-413-over 64KiB \
    refuses larger batches with 413.
    Listens on 127.0.0.1:8765 unless told otherwise: point clients at it with \
    APPDNA_API_URL=http://127.0.0.1:8765. Prints one line per request on stdout; Ctrl-C (SIGINT) \
    or SIGTERM stops it and prints a summary on stderr. Exit status: 0 after a stop, 64 usage \
    error, 65 the bundle is not a bundle (or the --state file not a state file), 66 no bundle \
    file, 69 cannot listen or another api serve holds the --state file, 73 the record \
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
        // Every flag is checked, and the start's change proven, before anything is written or
        // bound: a refused start leaves no state file, no lock and no port behind.
        let overrides = try arguments[APIServeFlags.override].map { text throws(Failure) in try BundleOverride(parsing: text) }
        let faults = try ServeFaults(fail: arguments[APIServeFlags.fail], after: arguments[APIServeFlags.failAfter], retryAfter: arguments[APIServeFlags.retryAfter],
                                     latency: arguments[APIServeFlags.latency], maxEventBody: arguments[APIServeFlags.status413Over])
        let requiredKey = try requiredKey(invocation)
        let log = ServeLog(invocation, json: arguments[APIServeFlags.json])
        let bundle = try served(bundlePath, invocation, overrides: overrides, warn: { log.warn($0) })
        // Then the state is this server's (a second one on it is refused, naming the first),
        // a crash's leftovers go, and, once listening, the start's change is written.
        let statePath = arguments[APIServeFlags.state]
        let lock = try OverrideStateLock.acquire(statePath: statePath)
        defer { lock.removeFile() }
        for leftover in lock.removeLeftovers(of: statePath) { log.warn("removed \(leftover), a temporary file of a server stopped while saving") }
        let recorder = try arguments[APIServeFlags.record].map { try DeliveryRecorder(path: $0) }
        let host = arguments[APIServeFlags.host]
        let server = try HTTPServer(host: host, port: arguments[APIServeFlags.port],
                                    limits: HTTPServer.Limits(maxBodyBytes: IngestEndpoint.maxBodyBytes, headerTimeout: 10, idleTimeout: 30, maxConnections: 64))
        lock.record(port: server.port)
        let ingest = IngestEndpoint(recorder: recorder, servedBundle: { try? bundle.answers().document() })
        let inspector = try RequestInspection.start(invocation, listener: server, log: log, bundle: bundle)
        // Written once both ports are bound (nothing is served before `serve`): a port in use leaves the state as it was.
        try bundle.keep()
        for entry in bundle.stale() { log.warn("override \(entry.item.text) from \(statePath) is stale (kept, not applied): \(entry.reason)") }
        let initial = try bundle.answers()

        server.stopOnInterrupt()
        log.note("serving \(bundlePath) (bundle_version \(initial.bundleVersion)) at \(server.baseURL); "
                 + "APPDNA_API_URL=\(server.baseURL) points clients here; Ctrl-C to stop")
        let stale = bundle.stale()
        for item in bundle.overrides { log.note("override \(item.text)" + (stale.contains { $0.item == item } ? " (stale)" : "")) }
        server.serve(handle: { request in
            let answer = respond(to: request, bundle: bundle, faults: faults, requiredKey: requiredKey, ingest: ingest, log: log)
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
    static func served(_ path: String, _ invocation: Invocation, overrides: [BundleOverride],
                       warn: @escaping @Sendable (String) -> Void) throws -> ServedBundle {
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
        return try ServedBundle(source: source, statePath: arguments[APIServeFlags.state], overrides: overrides, clock: invocation.io.clock,
                                warn: warn)
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

    static func respond(to request: HTTPServer.Request, bundle: ServedBundle, faults: ServeFaults, requiredKey: [UInt8]?,
                        ingest: IngestEndpoint, log: ServeLog) -> ServeAnswer {
        let endpoint: ServeEndpoint
        switch ServeRoutes.table.resolve(method: request.head.method, target: request.head.target) {
        case .success(let match):
            endpoint = match.endpoint
        case .failure(let refusal):
            var response = ServeAnswer.jsonError(refusal.status, refusal.message)
            response.headers += refusal.headers
            return ServeAnswer(response: response, endpoint: "other", note: refusal.status == 404 ? "not an AppDNA API path" : refusal.message)
        }
        let key = request.head.value(of: "x-api-key").map { Array($0.utf8) } ?? []
        if key.isEmpty || (requiredKey != nil && key != requiredKey!) {
            let why = key.isEmpty ? "missing x-api-key" : "x-api-key is not the key this server was given"
            var answer = ServeAnswer(response: ServeAnswer.jsonError(401, why), endpoint: endpoint.rawValue, note: why)
            answer.refusedKey = true
            return answer
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
