import AppDNACore
import AppDNANet
import AppDNAReplay

/// `appdna queue replay PATH…`: deliver the live events of device queues to the ingest API
/// exactly as the SDK would, resumably, without ever touching the queues.
enum QueueReplayCommand {
    static let flags = QueueReplayFlags.all

    static let discussion = """
    Sends the live events of the queues (the same readers as appdna queue inspect) to POST \
    /api/v1/ingest/events exactly as the SDK would: {"batch": [event, …]} with each event's \
    stored JSON text spliced in byte for byte (event_id, ts_ms and client_seq untouched), \
    compressed with raw DEFLATE, with the headers x-api-key, Content-Type: application/json, \
    Content-Encoding: deflate, x-sdk-version and x-sdk-platform (from the events' device fields: \
    events of different platforms or SDK versions never share a batch).
    First the plan: events to send, batches, and what is skipped and why (cancelled by a \
    tombstone, older than --max-age unless --include-stale, rejected by the event schema, \
    delivered or dead-lettered by an earlier run, a repeated event_id). On a terminal it asks \
    before sending; otherwise nothing is sent without --yes (status 64). --dry-run prints the \
    plan only. A warning is printed when events say they come from another environment than \
    the key's (adn_live_ production, adn_test_ sandbox).
    Answers: 2xx delivered; 408 and 429 wait for Retry-After (at most 120 s) and retry; 413 \
    splits the batch in half, down to one event; any other 4xx puts the batch's events in the \
    dead-letter file (NDJSON: event, status, the first 4 kB of the response body with the key's \
    text masked), never dropped silently; 5xx and network errors are retried after 1 s, 2 s \
    and 4 s (jittered, at most 30 s), then the run stops and the rest stays undelivered. Only \
    4 kB of any answer are kept; the rest is dropped as it arrives.
    Resumable and crash-safe: every acknowledged batch is appended to a journal in the state \
    directory and synced to disk before it counts; a re-run skips what the journal records. \
    Killing the process at any moment loses nothing; at most the batches in flight are sent \
    again, and the server deduplicates them by event_id. A lock in the state directory stops \
    two replays of the same queue at once. The queues themselves are only ever read. The state \
    directory is 0700 and its files 0600 whatever the umask.
    Ctrl-C or SIGTERM stops the sending, prints the summary and a last line saying how many \
    events were delivered and that running the same command again resumes (status 130 or 143).
    Exit status: 0 every event to send was delivered, 1 some were dead-lettered, rejected by \
    the schema or left undelivered, 64 not confirmed (no --yes without a terminal), 65/66 \
    unreadable queues, 69 network error or 5xx after retries, 73 cannot create the state \
    directory, 75 timeout, 429 or 503 after retries, or another replay holds the lock, 77 key \
    rejected (401/403), 78 no key, a malformed key, or a plain http API URL, 130/143 \
    interrupted by SIGINT/SIGTERM.
    """

    static let examples = [
        ExampleSpec("appdna queue replay pending_events.json --dry-run", "Show what would be sent, and what is skipped and why."),
        ExampleSpec("APPDNA_SDK_KEY=adn_live_… appdna queue replay pending_events.json",
                    "Show the plan, ask, send; run it again after an interruption to resume."),
        ExampleSpec("appdna queue replay device-dump/ --key-file key.txt --yes --concurrency 4 --json",
                    "Non-interactive, four requests in flight, a JSON summary."),
    ]

    /// The flags' values: what the engine needs, and what only the command uses.
    struct Options {
        var replay: ReplaySettings
        var stateDirectory = ""
        var deadLetterPath = ""
        var retries: Int
        var json: Bool
        var dryRun: Bool
        var batchSize: Int { replay.batchSize }

        init(_ arguments: ParsedArguments, clock: any Clock) {
            replay = ReplaySettings(batchSize: arguments[QueueReplayFlags.batchSize],
                                    concurrency: arguments[QueueReplayFlags.concurrency],
                                    rate: arguments[QueueReplayFlags.rate],
                                    maxAgeMilliseconds: arguments[QueueReplayFlags.maxAge],
                                    includeStale: arguments[QueueReplayFlags.includeStale],
                                    now: arguments[QueueReplayFlags.now] ?? clock.wallMilliseconds(),
                                    timeout: arguments[APIFlags.batchTimeout])
            retries = arguments[APIFlags.batchRetries]
            json = arguments[QueueReplayFlags.json]
            dryRun = arguments[QueueReplayFlags.dryRun]
            // The state directory sits beside the first PATH unless --state-dir says otherwise.
            var first = arguments.operands[0]
            while first.count > 1 && first.hasSuffix("/") { first.removeLast() }
            stateDirectory = arguments[QueueReplayFlags.stateDir] ?? (first + ".appdna-replay")
            deadLetterPath = arguments[QueueReplayFlags.deadLetter] ?? (stateDirectory + "/dead-letter.ndjson")
        }
    }

    @Sendable static func run(_ invocation: Invocation) throws -> ExitStatus {
        let arguments = invocation.arguments
        let options = Options(arguments, clock: invocation.io.clock)

        // The queues.
        let (sources, status) = QueueOperands.sources(invocation.arguments.operands, io: invocation.io)
        guard status == .success, !sources.isEmpty else { return status }

        // Configuration (78) before anything else; a dry run does without a key.
        var key: APIKey? = nil
        var base = ""
        if options.dryRun {
            key = try? APIAccess.key(invocation)
            base = (try? APIAccess.baseURL(invocation.io.environment)) ?? APIAccess.defaultAPIURL
        } else {
            key = try APIAccess.key(invocation)
            base = try APIAccess.baseURL(invocation.io.environment)
        }
        let url = base + AppDNAAPI.ingestPath

        // The plan.
        let journal = try ReplayJournal(directory: options.stateDirectory)
        let plan = try ReplayPlan.make(sources, settings: options.replay, journal: journal)
        if let key {
            let other = key.environment == .live ? plan.sandbox : plan.production
            if other > 0 {
                invocation.warn("\(other) event\(other == 1 ? "" : "s") say\(other == 1 ? "s" : "") \(key.environment == .live ? "sandbox/test" : "production") but the key \(key.masked) is a \(key.environment == .live ? "production (adn_live_)" : "sandbox (adn_test_)") key: check that this is the right app and key")
            }
        }
        if !options.json {
            writePlan(plan, options: options, url: url, key: key, invocation: invocation)
        }
        if options.dryRun {
            if options.json { writeJSON(plan, options: options, url: url, outcome: nil, dryRun: true, to: invocation.stdout) }
            return .success
        }
        guard let key else { throw Failure(.internalError, "no key") }

        if plan.toSend == 0 {
            if options.json { writeJSON(plan, options: options, url: url, outcome: ReplayOutcome(), dryRun: false, to: invocation.stdout) }
            // What is left and why: a resumed run that exits 1 says it on its appdna: line.
            if plan.hasUndeliverableSkips {
                invocation.error(nothingToSend(plan, options: options))
                return .negative
            }
            if !options.json { invocation.note(nothingToSend(plan, options: options)) }
            return .success
        }

        // Confirmation.
        if !arguments[QueueReplayFlags.yes], try !confirmed(plan, url: url, key: key, invocation: invocation) {
            invocation.note("nothing sent")
            return .negative
        }

        // Send: the engine takes the lock, re-reads the journal under it and streams the queues again.
        let progress = ProgressBar(total: plan.toSend, enabled: invocation.io.stderr.isTerminal && !invocation.options.quiet, sink: invocation.io.stderr)
        // --verbose retry notes come from the engine's threads: the bar steps aside for them.
        let verbose = invocation.options.verbose, style = invocation.options.stderrStyle
        let client = try APIAccess.client(invocation, retries: options.retries, say: { line in
            if verbose { progress.interject(style.apply(.dim, line)) }
        })
        let engine = ReplayEngine(api: AppDNAAPI(base: base, key: key, client: client), settings: options.replay,
                                  journal: journal, deadLetter: DeadLetterFile(path: options.deadLetterPath),
                                  onProgress: { done in progress.update(done) })
        // From here Ctrl-C / SIGTERM stop the sending and the summary still comes.
        Interruption.install()
        let outcome = try engine.send(sources)
        progress.clear()
        if outcome.interruptedBy != 0 {
            return interrupted(outcome, plan: plan, options: options, url: url, invocation: invocation)
        }
        if options.json {
            writeJSON(plan, options: options, url: url, outcome: outcome, dryRun: false, to: invocation.stdout)
        } else {
            writeSummary(outcome, plan: plan, toSend: outcome.toSend, undelivered: outcome.undelivered, options: options, invocation: invocation)
        }
        if let stop = outcome.stop {
            Runner.report(stop, io: invocation.io)
            return ExitStatus(stop.kind)
        }
        return outcome.undelivered > 0 || outcome.deadLettered > 0 || plan.hasUndeliverableSkips ? .negative : .success
    }

    /// Asks on the terminal whether to send; without a terminal (or with --no-input) nothing is
    /// sent and the status is 64.
    static func confirmed(_ plan: ReplayPlan, url: String, key: APIKey, invocation: Invocation) throws -> Bool {
        let question = "Send \(plan.toSend) event\(plan.toSend == 1 ? "" : "s") in \(plan.batches) batch\(plan.batches == 1 ? "" : "es") to \(HTTPURL(url)?.hostAndPort ?? url) with the key \(key.masked)?"
        let interactive = invocation.io.stdinIsTerminal && invocation.io.stderr.isTerminal && !invocation.options.noInput
        guard interactive else {
            throw Failure(.usage, "would send \(plan.toSend) event\(plan.toSend == 1 ? "" : "s") to \(HTTPURL(url)?.hostAndPort ?? url), but there is no terminal to confirm on\(invocation.options.noInput ? " (--no-input)" : ""): nothing was sent",
                          hint: "add --yes to send without asking, or --dry-run to see the plan only")
        }
        invocation.io.stderr.write(question + " [y/N] ")
        invocation.io.stderr.flush()
        let answer = readAnswer(invocation.io.stdinDescriptor).lowercased()
        return answer == "y" || answer == "yes"
    }

    /// The end of a run that SIGINT or SIGTERM stopped: the usual summary (or JSON) for what
    /// was done, then one line saying so and that a re-run resumes; 130 or 143.
    static func interrupted(_ outcome: ReplayOutcome, plan: ReplayPlan, options: Options, url: String,
                            invocation: Invocation) -> ExitStatus {
        var outcome = outcome
        let signal = outcome.interruptedBy
        // Counted against the plan: the sending pass stopped reading the queues part way.
        outcome.toSend = plan.toSend
        let line = "interrupted by \(Interruption.name(signal)): \(outcome.delivered) of \(plan.toSend) event\(plan.toSend == 1 ? "" : "s") delivered (recorded in \(options.stateDirectory)/journal), \(outcome.undelivered) not yet; run the same command again to resume"
        outcome.stop = HTTPError(.temporary, line)
        if options.json {
            writeJSON(plan, options: options, url: url, outcome: outcome, dryRun: false, to: invocation.stdout)
        } else {
            // No "undelivered" line: the last line says it, with how to resume.
            writeSummary(outcome, plan: plan, toSend: plan.toSend, undelivered: 0, options: options, invocation: invocation)
        }
        invocation.io.stderr.writeLine("appdna: " + line)
        invocation.io.stderr.flush()
        return signal == Interruption.interruptSignal ? .interrupted : .terminated
    }

    static let skipReasons: [(ReplaySkip, String)] = [
        (.cancelled, "removed by a later tombstone on the device"),
        (.stale, "older than --max-age; --include-stale sends them"),
        (.invalid, "the ingest API would reject them (event schema)"),
        (.delivered, "recorded in the journal by an earlier run"),
        (.deadLettered, "refused by the server in an earlier run; see the dead-letter file"),
        (.duplicate, "an earlier event in the queue has the same event_id"),
    ]

    /// "nothing to send: of 6 events read, 3 already delivered (journal …), 3 dead-lettered by
    /// an earlier run (…)": every event that is left, counted by why it is not sent.
    static func nothingToSend(_ plan: ReplayPlan, options: Options) -> String {
        let why: [ReplaySkip: String] = [
            .cancelled: "cancelled by a later tombstone on the device",
            .stale: "older than --max-age (--include-stale sends them)",
            .invalid: "rejected by the event schema (the plan lists them; they are never sent)",
            .delivered: "already delivered (journal: \(options.stateDirectory)/journal)",
            .deadLettered: "dead-lettered by an earlier run, not sent again (\(options.deadLetterPath))",
            .duplicate: "repeating an earlier event_id",
        ]
        let parts = skipReasons.compactMap { reason, _ -> String? in
            guard let count = plan.skipped[reason], count > 0 else { return nil }
            return "\(count) \(why[reason]!)"
        }
        guard !parts.isEmpty else { return "nothing to send: the queues hold no live events" }
        return "nothing to send: of \(plan.eventsRead) event\(plan.eventsRead == 1 ? "" : "s") read, " + parts.joined(separator: ", ")
    }

    static func writePlan(_ plan: ReplayPlan, options: Options, url: String, key: APIKey?, invocation: Invocation) {
        let out = invocation.stdout
        var rows: [(String, String)] = []
        for source in plan.sources { rows.append(("queue", "\(source.path) (\(source.format.rawValue))")) }
        rows.append(("events", "\(plan.eventsRead) read" + (plan.malformed + plan.truncated + plan.unreadable > 0
            ? "; also \(plan.malformed) malformed, \(plan.truncated) truncated, \(plan.unreadable) unreadable (not events, not sent)" : "")))
        rows.append(("to send", "\(plan.toSend) event\(plan.toSend == 1 ? "" : "s") in \(plan.batches) batch\(plan.batches == 1 ? "" : "es") of up to \(options.batchSize)"))
        for (group, count) in plan.groups.sorted(by: { $0.key < $1.key }) {
            rows.append(("", "\(group.platform) \(group.sdkVersion): \(count) event\(count == 1 ? "" : "s"), \(ReplayPlan.batchCount(count, options.batchSize)) batch\(ReplayPlan.batchCount(count, options.batchSize) == 1 ? "" : "es")"))
        }
        rows.append(("skipped", plan.skippedTotal == 0 ? "none" : "\(plan.skippedTotal)"))
        for (reason, why) in skipReasons {
            guard let count = plan.skipped[reason], count > 0 else { continue }
            rows.append(("", "\(reason.rawValue) \(count): \(why)"))
            if reason == .invalid {
                for example in plan.invalidExamples { rows.append(("", "  \(example.location): \(example.reason)")) }
            }
        }
        rows.append(("destination", "POST \(url)" + (key.map { " with the key \($0.masked)" } ?? " (no key: set APPDNA_SDK_KEY or --key-file)")))
        rows.append(("journal", options.stateDirectory + "/journal"))
        rows.append(("dead letters", options.deadLetterPath))
        out.writeLine(options.dryRun ? "Replay plan (dry run: nothing is sent)" : "Replay plan")
        LabelValueBlock.write(rows, to: out, indent: "  ")
        out.flush()
    }

    static func writeSummary(_ outcome: ReplayOutcome, plan: ReplayPlan, toSend: Int, undelivered: Int,
                             options: Options, invocation: Invocation) {
        let out = invocation.stdout
        out.writeLine("Delivered \(outcome.delivered) of \(toSend) event\(toSend == 1 ? "" : "s") in \(outcome.requests) request\(outcome.requests == 1 ? "" : "s") (\(NumberText.seconds(outcome.seconds)), \(eventsPerSecond(outcome)) events/s)")
        if outcome.retries > 0 || outcome.splits > 0 {
            out.writeLine("  \(outcome.retries) retr\(outcome.retries == 1 ? "y" : "ies"), \(outcome.splits) batch\(outcome.splits == 1 ? "" : "es") split after 413")
        }
        if outcome.deadLettered > 0 {
            let statuses = outcome.deadLetterStatuses.sorted { $0.key < $1.key }.map { "HTTP \($0.key): \($0.value)" }.joined(separator: ", ")
            out.writeLine("  dead-lettered \(outcome.deadLettered) (\(statuses)): \(options.deadLetterPath)")
        }
        let invalid = plan.skipped[.invalid] ?? 0, deadBefore = plan.skipped[.deadLettered] ?? 0
        if invalid > 0 {
            out.writeLine("  never sent: \(invalid) event\(invalid == 1 ? "" : "s") the ingest API would reject (see the plan)")
        }
        if deadBefore > 0 {
            out.writeLine("  dead-lettered by an earlier run: \(deadBefore) (\(options.deadLetterPath))")
        }
        if undelivered > 0 {
            out.writeLine("  undelivered \(undelivered): run the same command again to resume")
        }
        out.flush()
    }

    static func writeJSON(_ plan: ReplayPlan, options: Options, url: String, outcome: ReplayOutcome?,
                          dryRun: Bool, to out: OutputSink) {
        var skipped = JSONObject()
        for reason in ReplaySkip.allCases { skipped[reason.rawValue] = .integer(plan.skipped[reason] ?? 0) }
        var planObject = JSONObject()
        planObject["queues"] = .array(plan.sources.map { ["path": .string($0.path), "format": .string($0.format.rawValue)] })
        planObject["events"] = .integer(plan.eventsRead)
        planObject["malformed"] = .integer(plan.malformed)
        planObject["truncated"] = .integer(plan.truncated)
        planObject["unreadable"] = .integer(plan.unreadable)
        planObject["to_send"] = .integer(plan.toSend)
        planObject["batches"] = .integer(plan.batches)
        planObject["batch_size"] = .integer(options.batchSize)
        planObject["groups"] = .array(plan.groups.sorted(by: { $0.key < $1.key }).map {
            ["platform": .string($0.key.platform), "sdk_version": .string($0.key.sdkVersion), "events": .integer($0.value),
             "batches": .integer(ReplayPlan.batchCount($0.value, options.batchSize))]
        })
        planObject["skipped"] = .object(skipped)
        planObject["invalid"] = .array(plan.invalidExamples.map {
            var object = $0.location.jsonObject
            object["event_id"] = $0.eventID.map { .string($0) } ?? .null
            object["reason"] = .string($0.reason)
            return .object(object)
        })
        var root = JSONObject()
        root["dry_run"] = .bool(dryRun)
        root["url"] = .string(url)
        root["journal"] = .string(options.stateDirectory + "/journal")
        root["dead_letter"] = .string(options.deadLetterPath)
        root["plan"] = .object(planObject)
        if let outcome {
            var result = JSONObject()
            result["delivered"] = .integer(outcome.delivered)
            result["dead_lettered"] = .integer(outcome.deadLettered)
            result["undelivered"] = .integer(outcome.undelivered)
            result["requests"] = .integer(outcome.requests)
            result["retries"] = .integer(outcome.retries)
            result["splits"] = .integer(outcome.splits)
            result["seconds"] = .decimal((outcome.seconds * 1000).rounded() / 1000)
            result["events_per_second"] = .integer(eventsPerSecond(outcome))
            result["stopped"] = outcome.stop.map { .string($0.message) } ?? .null
            root["result"] = .object(result)
        } else {
            root["result"] = .null
        }
        var bytes = JSONWriter().write(.object(root))
        if bytes.last != 10 { bytes.append(10) }
        out.write(bytes)
        out.flush()
    }

    /// Events answered (delivered or dead-lettered) per second of sending.
    static func eventsPerSecond(_ outcome: ReplayOutcome) -> Int {
        outcome.seconds > 0 ? Int((Double(outcome.delivered + outcome.deadLettered) / outcome.seconds).rounded()) : 0
    }

    /// One line from the terminal (without the newline).
    static func readAnswer(_ fd: Int32) -> String {
        var bytes: [UInt8] = []
        while let byte = SystemFile.readByte(fd) {
            if byte == 10 { break }
            bytes.append(byte)
            if bytes.count > 256 { break }
        }
        return String(decoding: bytes, as: UTF8.self).trimmingSpaces()
    }
}

extension String {
    func trimmingSpaces() -> String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" || first == "\r" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text = text.dropLast() }
        return String(text)
    }
}
