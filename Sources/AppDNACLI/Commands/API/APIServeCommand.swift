import AppDNACore
import AppDNANet
import AppDNAServers

/// `appdna api serve`: the AppDNA API on your machine, for trying the CI steps (`bundle fetch`,
/// `--check`, `diff @remote`, `queue replay`) and an SDK integration before the real API is
/// involved. The bundle endpoints answer from a file, the ingest endpoint checks bodies exactly
/// as the platform documents them (raw DEFLATE, `{"batch": […]}`, the event schema) and records
/// the events, and flags inject the faults a client must survive.
enum APIServeCommand {
    static let discussion = """
    Serves the calls an AppDNA SDK makes, for a test build pointed at it (iOS SDK 1.0.82+ and \
    Android 1.0.54+ in sandbox test builds only; docs/device-variants.md): GET \
    /api/v1/sdk/bootstrap by --bootstrap (local: 403, which stops the SDK's retries, so the \
    device runs on its cache, else its bundled appdna-config.json; live: the live API's answer, \
    fetched with APPDNA_SDK_KEY, passed on only when iOS 1.0.70 and Android 1.0.42 decode it, \
    else 502), POST /api/v1/sdk/identify (accepted), the SDK's other calls (ingest/identify, \
    feedback, billing, push, geocode, option sets: logged by name, answered 404), and POST \
    /api/v1/ingest/events as the SDK sends \
    it: a raw DEFLATE body (RFC 1951; Content-Encoding: deflate) holding {"batch": [events]}, \
    each event checked against the event schema as queue inspect checks it. A body over 64 MiB, \
    or one that inflates to more than 64 MiB, is answered 413. Every byte a batch makes the \
    server hold (the body, the inflated body, its parse, the copies of its events, the audit) \
    is taken from a budget of 512 MiB for all requests (at most a quarter of ulimit -v) before \
    it is allocated: past it the batch is answered 503 with Retry-After (others hold it), or 413 \
    when it alone would need more. A batch is answered \
    200 {"accepted": N, "duplicates": D} (an event_id already received is a duplicate and is not \
    recorded again) or 400 saying what is wrong; --record appends each new event to a file as \
    NDJSON. Every request must carry x-api-key: any non-empty key, or only the one in \
    --key-file / APPDNA_SDK_KEY with --key-from-env (401 otherwise).
    No SDK fetches the config bundle over HTTP (devices read config from Firestore, their cache \
    and their bundled file, and compute assignment themselves): GET /api/v1/sdk/config-bundle \
    (the --bundle file as written, either shape) and GET /api/v1/sdk/config-bundle/version \
    (bundle_version, sdk_min_version, size_bytes) are for CI and scripts (bundle fetch), served \
    from the file, read again whenever it changes (or from the live bundle with --bundle @remote).
    With --inspect PORT, a page on http://127.0.0.1:PORT/ (loopback only) lists the last \
    --inspect-keep requests as they arrive: endpoint, status, injected fault and, for a batch, \
    each event and whether it was a duplicate; its JSON is under /api/requests (docs/local-api.md).
    A dev server: --override forces a variant, a flag, a config value or the onboarding flow \
    on every device pointed here, by serving a bundle devices compute the forced answer from \
    (the experiment running for everyone with the variant's weight 1 and the others 0; the \
    value raw in the section the SDK reads, remote_config else feature_flags; \
    onboarding.active_flow_id); it passes bundle validate, and its bundle_version is the \
    source's plus one for every change. A device gets it only as its bundled file: with \
    --bootstrap local, --write-bundled FILE writes it to the app's appdna-config.json at start \
    and on every change (atomically, when it validates), loaded on a fresh install or with the \
    config cache removed before configure. On any SDK version, identify with a user id \
    that lands in the variant forces it: appdna bucket, appdna api override identity or POST \
    /api/identity on the inspector finds one. At start it prints how to point a test build at the address it \
    listens on. Overrides are set and cleared at run time with appdna api override (or PUT and DELETE \
    /api/overrides/KIND/KEY on the inspector, with its token), kept in the --state file and \
    listed at start. Every change is proven before it is kept (built, validated, bucketed, \
    the state loaded back, then written and served); an override the bundle no longer has is \
    stale: kept, not applied, marked. Every exposure a batch's new events carry is audited, as queue inspect \
    --bundle audits a queue, against the bundle its event's bundle_version names (one this \
    server served or wrote, or its source; none: the one served now; a version it never had is \
    reported as unknown, not judged): a wrong variant, an \
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
        ExampleSpec("appdna api serve --bundle appdna-config.json --inspect 8766 --override experiment:onboarding-v2=streamlined --write-bundled MyApp/appdna-config.json",
                    "Force variant streamlined in the app's bundled config, and audit what devices pointed here send."),
    ]

    typealias Plan = APIServePlan

    @Sendable static func plan(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Plan {
        try APIServePlan.make(arguments, invocation)
    }

    static let run = CommandRun.planned(plan: plan, perform: perform)

    @Sendable static func perform(_ plan: Plan, _ invocation: Invocation) throws -> ExitStatus {
        let files = invocation.io.files
        let mode = plan.bootstrap
        let sdk = SDKEndpoints(mode: mode, fetchLive: try plan.liveBootstrap.map { try SDKBootstrapFetch.live($0, invocation) })
        let log = ServeLog(invocation, json: plan.json)
        // The plan proved a file source; the live bundle is fetched and proven here, before
        // anything is written or bound.
        let bundle = try plan.served(invocation, warn: { log.warn($0) })
        // Then the state is this server's (a second one on it is refused, naming the first),
        // a crash's leftovers go, and, once listening, the start's change is written.
        let statePath = plan.statePath
        let lock = try OverrideStateLock.acquire(statePath: statePath)
        defer { lock.removeFile() }
        for leftover in lock.removeLeftovers(of: statePath, files: files) { log.warn("removed \(leftover), a temporary file of a server stopped while saving") }
        var limits = HTTPServer.Limits(maxBodyBytes: IngestEndpoint.maxBodyBytes, headerTimeout: 10, idleTimeout: 30, maxConnections: 64)
        limits.maxBufferedBytes = IngestEndpoint.heldBytes
        let server = try HTTPServer(host: plan.host, port: plan.port, limits: limits)
        lock.record(port: server.port)
        let inspector = try plan.inspector.map { try RequestInspection.start($0, listener: server, log: log, bundle: bundle, bootstrap: mode) }
        // Opened once both ports are bound (the plan judged the path): a port in use leaves no empty record file.
        let recorder = try plan.record.map { try DeliveryRecorder(path: $0, files: files) }
        let history = BundleHistory()
        // Every version served (each answer the audit or a bundle endpoint gets) or written.
        let ingest = IngestEndpoint(recorder: recorder, budget: server, servedBundle: {
            guard let answers = try? bundle.answers() else { return nil }
            history.record(answers)
            if let source = try? bundle.sourceDocument() { history.record(source: source) }
            return try? answers.document()
        }, history: history)
        // Written once both ports are bound (nothing is served before `serve`): a port in use leaves the state as it was.
        try bundle.keep()
        for entry in bundle.stale() { log.warn("override \(entry.item.text) from \(statePath) is stale (kept, not applied): \(entry.reason)") }
        let initial = try bundle.answers()
        history.record(initial)
        let bundled = plan.bundled
        if let bundled {
            bundled.write(initial, note: log.note)
        }
        bundle.onPublish { answers in
            history.record(answers)
            bundled?.write(answers, note: log.note)
        }

        // `api override` finds this inspector without --server (InspectorDiscovery); a file that
        // cannot be written costs only that convenience.
        var discoveryFile: String?
        if let inspector, let directory = InspectorDiscovery.directory(environment: invocation.io.environment) {
            let found = InspectorDiscovery(inspector: String(inspector.url.dropLast()), api: server.loopbackURL, pid: ProcessControl.id,
                                            started: ProcessControl.startTime(ProcessControl.id))
            do { discoveryFile = try found.write(in: directory, files: files) } catch { invocation.warn("api override cannot find this server without --server: \(error.message)") }
        }
        defer { if let discoveryFile { _ = files.removeFile(path: discoveryFile) } }
        let api = APIServer(bundle: bundle, faults: plan.faults, requiredKey: plan.requiredKey, serverLimit: server.limits.maxBodyBytes, ingest: ingest, sdk: sdk,
                            words: FlagWording.serve, report: log, clock: invocation.io.clock, inspector: inspector?.log)
        server.stopOnInterrupt()
        log.note("serving \(plan.bundleName) (bundle_version \(initial.bundleVersion)) at \(server.baseURL); "
                 + "APPDNA_API_URL=\(server.baseURL) points clients here; Ctrl-C to stop")
        for line in DeviceSetup.lines(mode: mode, address: server.baseURL, listensEverywhere: plan.host == "0.0.0.0" || plan.host == "::", bundled: bundled?.path) {
            log.note(line)
        }
        let stale = bundle.stale()
        for item in bundle.overrides { log.note("override \(item.text)" + (stale.contains { $0.item == item } ? " (stale)" : "")) }
        // Decided at the head: a refusal (no such path, no key, too large) is reported and answered before any body byte is read.
        server.serve(admit: { api.admit($0) }, handle: { api.handle($0) }, rejected: { api.reject($0) })
        inspector?.stop()
        log.note(log.summary(recordedTo: recorder?.path))
        return .success
    }
}
