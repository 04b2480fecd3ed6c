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

    static let run = CommandRun.planned(plan: QueueReplayPlan.make, perform: perform)

    /// Reads the queues (the plan's PATHs) and the journal, prints the plan, asks, and sends
    /// through the engine, every file of the state directory through `CommandIO.files`.
    @Sendable static func perform(_ options: QueueReplayPlan, _ invocation: Invocation) throws -> ExitStatus {
        // The queues.
        let (sources, status) = QueueOperands.sources(options.paths, io: invocation.io)
        guard status == .success, !sources.isEmpty else { return status }

        // What would be sent.
        let journal = try ReplayJournal(directory: options.stateDirectory, files: invocation.io.files)
        let plan = try ReplayPlan.make(sources, settings: options.replay, journal: journal)
        if let key = options.key {
            let other = key.environment == .live ? plan.sandbox : plan.production
            if other > 0 {
                invocation.warn("\(other) event\(other == 1 ? "" : "s") say\(other == 1 ? "s" : "") \(key.environment == .live ? "sandbox/test" : "production") but the key \(key.masked) is a \(key.environment == .live ? "production (adn_live_)" : "sandbox (adn_test_)") key: check that this is the right app and key")
            }
        }
        if !options.json {
            QueueReplayReport.writePlan(plan, options: options, invocation: invocation)
        }
        if options.dryRun {
            if options.json { QueueReplayReport.writeJSON(plan, options: options, outcome: nil, dryRun: true, to: invocation.stdout) }
            return .success
        }
        guard let key = options.key, let client = options.client else { throw Failure(.internalError, "no key") }

        if plan.toSend == 0 {
            if options.json { QueueReplayReport.writeJSON(plan, options: options, outcome: ReplayOutcome(), dryRun: false, to: invocation.stdout) }
            // What is left and why: a resumed run that exits 1 says it on its appdna: line.
            if plan.hasUndeliverableSkips {
                invocation.error(QueueReplayReport.nothingToSend(plan, options: options))
                return .negative
            }
            if !options.json { invocation.note(QueueReplayReport.nothingToSend(plan, options: options)) }
            return .success
        }

        // Confirmation.
        if !options.yes, try !confirmed(plan, url: options.url, key: key, invocation: invocation) {
            invocation.note("nothing sent")
            return .negative
        }

        // Send: the engine takes the lock, re-reads the journal under it and streams the queues again.
        let progress = ProgressBar(total: plan.toSend, enabled: invocation.io.stderr.isTerminal && !invocation.options.quiet, sink: invocation.io.stderr)
        // --verbose retry notes come from the engine's threads: the bar steps aside for them.
        options.retryNotes.show(on: progress)
        let engine = ReplayEngine(api: AppDNAAPI(base: options.base, key: key, client: client), settings: options.replay,
                                  journal: journal, deadLetter: DeadLetterFile(path: options.deadLetterPath, files: invocation.io.files),
                                  onProgress: { done in progress.update(done) })
        // From here Ctrl-C / SIGTERM stop the sending and the summary still comes.
        Interruption.install()
        let outcome = try engine.send(sources)
        progress.clear()
        if outcome.interruptedBy != 0 {
            return interrupted(outcome, plan: plan, options: options, invocation: invocation)
        }
        if options.json {
            QueueReplayReport.writeJSON(plan, options: options, outcome: outcome, dryRun: false, to: invocation.stdout)
        } else {
            QueueReplayReport.writeSummary(outcome, plan: plan, toSend: outcome.toSend, undelivered: outcome.undelivered, options: options, invocation: invocation)
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
        let answer = readAnswer(invocation.io).lowercased()
        return answer == "y" || answer == "yes"
    }

    /// The end of a run that SIGINT or SIGTERM stopped: the usual summary (or JSON) for what
    /// was done, then one line saying so and that a re-run resumes; 130 or 143.
    static func interrupted(_ outcome: ReplayOutcome, plan: ReplayPlan, options: QueueReplayPlan, invocation: Invocation) -> ExitStatus {
        var outcome = outcome
        let signal = outcome.interruptedBy
        // Counted against the plan: the sending pass stopped reading the queues part way.
        outcome.toSend = plan.toSend
        let line = "interrupted by \(Interruption.name(signal)): \(outcome.delivered) of \(plan.toSend) event\(plan.toSend == 1 ? "" : "s") delivered (recorded in \(options.stateDirectory)/journal), \(outcome.undelivered) not yet; run the same command again to resume"
        outcome.stop = HTTPError(.temporary, line)
        if options.json {
            QueueReplayReport.writeJSON(plan, options: options, outcome: outcome, dryRun: false, to: invocation.stdout)
        } else {
            // No "undelivered" line: the last line says it, with how to resume.
            QueueReplayReport.writeSummary(outcome, plan: plan, toSend: plan.toSend, undelivered: 0, options: options, invocation: invocation)
        }
        invocation.io.stderr.writeLine("appdna: " + line)
        invocation.io.stderr.flush()
        return signal == Interruption.interruptSignal ? .interrupted : .terminated
    }

    /// One line from the terminal (without the newline), read through the command's files.
    static func readAnswer(_ io: CommandIO) -> String {
        var bytes: [UInt8] = []
        while let byte = io.files.readByte(fileDescriptor: io.stdinDescriptor) {
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
