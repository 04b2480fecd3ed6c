import AppDNACore

/// `appdna queue inspect PATH…`: what is in a device's event queue, without touching it.
enum QueueInspectCommand {
    static let operands = [
        OperandSpec("PATH", "A queue file (pending_events.json, appdna_events.db, ai.appdna.sdk.xml) or a directory to search",
                    variadic: true, completion: .file),
    ]

    static let flags = QueueInspectFlags.all

    /// A retired --sql spelling is answered before any queue is read.
    @Sendable static func operandsGiven(_ arguments: ParsedArguments) -> [OperandSpec] {
        RetiredSQLFlags.given(arguments, bucket: false) ? [] : operands
    }

    static let discussion = """
    Reads event queues taken from devices and says what is in them: the format (detected from \
    the content, not the name), live, cancelled (by a tombstone), malformed (with line numbers) \
    and truncated events, events by name, the time range and how many events are past the \
    7-day horizon, users and sessions, platforms and SDK versions, client_seq gaps (events lost \
    on the device), _sdk_events_dropped totals, duplicate event_ids, consent-false events, the \
    size against the SDK's caps (10000 events, 5 MB), and every event the ingest API would \
    reject, with the reason.
    With --bundle FILE, also audits experiment exposures: for every live event with \
    context.experiment_exposures, the variant FILE assigns to the event's user (user_id, else \
    anon_id; platform, country and app version from the event) is recomputed as devices do, \
    and each exposure that disagrees is listed with the most likely cause: \
    blank-salt-old-ios, user-id-not-normalised, bundle-version, experiment-missing, \
    experiment-not-running, not-eligible or unexplained.
    PATH is an iOS pending_events.json (a JSON array, or NDJSON with a legacy first line, \
    tombstone lines and a cut-off last line), an Android appdna_events.db (SQLite; events still \
    in its -wal count) or ai.appdna.sdk.xml, or a directory (a device container dump) searched \
    for those. The input is never modified: SQLite databases are copied to a private temporary \
    directory and the copy is opened read-only. Memory stays bounded whatever the input size.
    Exit status: 0 the queues were read (findings are in the report), 65 a file is no event \
    queue (another format, a database without pending_events, JSON in which no entry is an \
    event) or part of a database is unreadable, 66 a PATH is missing or holds no queue.
    With --bundle, also counts exposures repeated within a session (per experiment, with the \
    first repeats): the SDK records one exposure per experiment per session.
    The same audit, the SRM check and the duplicate count over a warehouse table of \
    exposures are SQL queries that 'appdna warehouse audit', 'srm' and 'duplicates' write.
    """

    static let examples = [
        ExampleSpec("appdna queue inspect pending_events.json", "Summarise an iOS queue."),
        ExampleSpec("appdna queue inspect device-dump/ --json", "Find and summarise every queue in a container dump, as JSON."),
        ExampleSpec("appdna queue inspect pending_events.json --bundle appdna-config.json",
                    "Did the device get the variants the bundle assigns?"),
        ExampleSpec("appdna queue inspect appdna_events.db --events --name purchase_completed --since 2026-02-18",
                    "List the purchases queued since 18 February."),
    ]

    /// Everything one run needs, read from the arguments once.
    struct Plan {
        let mode: QueueInspectMode
        let paths: [String]
        /// --now, else the clock when the plan was made.
        let now: Int64
        let json: Bool
    }

    @Sendable static func plan(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Plan {
        try RetiredSQLFlags.refuse(arguments, bucket: false, bundle: arguments[QueueInspectFlags.bundle], scheme: nil)
        let mode = try QueueInspectMode.decide(arguments)
        return Plan(mode: mode, paths: arguments.operands, now: arguments[QueueInspectFlags.now] ?? invocation.io.clock.wallMilliseconds(),
                    json: arguments[QueueInspectFlags.json])
    }

    static let run = CommandRun.planned(plan: plan, perform: perform)

    @Sendable static func perform(_ plan: Plan, _ invocation: Invocation) throws -> ExitStatus {
        var (sources, status) = QueueOperands.sources(plan.paths, io: invocation.io)
        guard !sources.isEmpty else { return status }
        let inspector = QueueInspector(now: plan.now)
        switch plan.mode {
        case .events(let filter):
            let unreadable = try QueueEventList.write(sources, filter: filter, json: plan.json, invocation: invocation)
            if unreadable && status == .success { status = .malformedInput }
            return status
        case .audit(let bundle, let api):
            inspector.exposureAudit = try ExposureAuditReport.audit(bundle: bundle, api: api, invocation)
        case .summary:
            break
        }
        let summary = try inspector.inspect(sources)
        if plan.json {
            QueueInspectReport.writeJSON(summary, audit: inspector.exposureAudit, to: invocation.stdout)
        } else {
            QueueInspectReport.writeText(summary, audit: inspector.exposureAudit, invocation: invocation)
        }
        if summary.unreadable > 0 {
            // The reasons are in the report on stdout; the status needs its own line on stderr.
            for source in summary.sources where source.unreadable > 0 {
                let first = source.problems.first { $0.kind == .unreadable }.map { ": \($0.message)" } ?? ""
                invocation.io.stderr.writeLine("appdna: \(source.path): \(source.unreadable) part(s) could not be read\(first)")
            }
            if status == .success { status = .malformedInput }
        }
        return status
    }
}

extension EventFilter {
    /// The filters as the flags give them.
    init(_ arguments: ParsedArguments) {
        self.init(names: arguments[QueueInspectFlags.name], user: arguments[QueueInspectFlags.user],
                  since: arguments[QueueInspectFlags.since], until: arguments[QueueInspectFlags.until])
    }
}

/// `--events`: one line (or NDJSON object) per live event, streamed.
enum QueueEventList {
    /// Returns whether part of some queue was unreadable.
    static func write(_ sources: [QueueSource], filter: EventFilter, json: Bool, invocation: Invocation) throws -> Bool {
        let out = invocation.stdout
        var unreadable = false
        for source in sources {
            try source.read { item in
                switch item {
                case .problem(let problem):
                    if problem.kind == .unreadable { unreadable = true }
                    invocation.warn("\(problem.location): \(problem.kind.rawValue): \(problem.message)")
                case .event(let event) where !event.cancelled:
                    let fields = EventFields(event.root)
                    guard filter.accepts(fields) else { break }
                    if json { writeJSON(event, fields, to: out) } else { writeText(event, fields, to: out) }
                default: break
                }
                return !out.isBroken
            }
        }
        return unreadable
    }

    static func writeText(_ event: QueueEvent, _ fields: EventFields, to out: OutputSink) {
        var columns = [
            fields.timestamp.map { Timestamp.iso8601(milliseconds: $0) } ?? "-",
            fields.name ?? "-",
            fields.eventID ?? "-",
            fields.anonID ?? "-",
            event.location.description,
        ]
        if fields.rejected { columns.append("rejected: " + fields.findings.map(\.message).joined(separator: "; ")) }
        out.writeRow(columns)
    }

    static func writeJSON(_ event: QueueEvent, _ fields: EventFields, to out: OutputSink) {
        var object = QueueInspectReport.locationJSON(event.location)
        func optional(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
        func optional(_ value: Int64?) -> JSONValue { value.map { .integer($0) } ?? .null }
        object["event_id"] = optional(fields.eventID)
        object["event_name"] = optional(fields.name)
        object["ts_ms"] = optional(fields.timestamp)
        object["time"] = optional(fields.timestamp.map { Timestamp.iso8601(milliseconds: $0) })
        object["anon_id"] = optional(fields.anonID)
        object["user_id"] = optional(fields.userID)
        object["session_id"] = optional(fields.sessionID)
        object["client_seq"] = optional(fields.clientSeq)
        object["rejected"] = .array(fields.findings.map(QueueInspectReport.findingJSON))
        // The event as stored, with the characters that would act on a terminal or a log
        // written as \u escapes (the same JSON).
        out.write(JSONWriter.escapingInvisible(EventLine.make(object, event: event.document.bytes, parsed: { event.root.value })))
    }
}
