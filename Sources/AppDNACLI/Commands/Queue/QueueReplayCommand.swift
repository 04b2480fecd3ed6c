import AppDNACore
import AppDNANet

/// `appdna queue replay PATH…`: deliver the live events of device queues to the ingest API
/// exactly as the SDK would, resumably, without ever touching the queues.
enum QueueReplayCommand {
    static let ingestPath = "/api/v1/ingest/events"

    static let flags: [FlagSpec] = [
        FlagSpec("yes", short: "y", "Send without asking (needed when not on a terminal)"),
        FlagSpec("dry-run", short: "n", "Print the plan and send nothing"),
        FlagSpec("batch-size", value: "N", "Events per request", default: "20"),
        FlagSpec("concurrency", value: "N", "Requests in flight at once", default: "1"),
        FlagSpec("rate", value: "EVENTS_PER_SECOND", "Send at most this many events per second"),
        FlagSpec("max-age", value: "DURATION", "Skip events older than this (7d, 36h, 90m, 3600s)", default: "7d"),
        FlagSpec("include-stale", "Send events older than --max-age too"),
        FlagSpec("now", value: "TIME", "The time --max-age is measured from (default: now)"),
        FlagSpec("state-dir", value: "DIR", "Where the journal, the lock and the dead letters go (default: PATH.appdna-replay beside the first PATH)",
                 completion: .directory),
        FlagSpec("dead-letter", value: "PATH", "NDJSON file for events the server refused for good (default: dead-letter.ndjson in the state directory)",
                 completion: .file),
        FlagSpec("key-file", value: "PATH", "Read the SDK key from a file instead of APPDNA_SDK_KEY",
                 details: "The file holds only the key (it starts with adn_live_ or adn_test_); one trailing newline is removed. The key is never a flag value: it would end up in shell history and in ps.",
                 completion: .file),
        FlagSpec("timeout", value: "SECONDS", "Bound on each batch, retries included", default: "600"),
        FlagSpec("retries", value: "N", "Retries of a batch for network errors, 5xx, 408 and 429 (1 s, 2 s, 4 s jittered, or Retry-After up to 120 s)", default: "3"),
        FlagSpec("json", "Print one JSON document (the plan, and what was sent)"),
    ]

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
    dead-letter file (NDJSON: event, status, response body), never dropped silently; 5xx and \
    network errors are retried after 1 s, 2 s and 4 s (jittered), then the run stops and the \
    rest stays undelivered.
    Resumable and crash-safe: every acknowledged batch is appended to a journal in the state \
    directory and synced to disk before it counts; a re-run skips what the journal records. \
    Killing the process at any moment loses nothing; at most the batches in flight are sent \
    again, and the server deduplicates them by event_id. A lock in the state directory stops \
    two replays of the same queue at once. The queues themselves are only ever read.
    Exit status: 0 every event to send was delivered, 1 some were dead-lettered, rejected by \
    the schema or left undelivered, 64 not confirmed (no --yes without a terminal), 65/66 \
    unreadable queues, 69 network error or 5xx after retries, 73 cannot create the state \
    directory, 75 timeout, 429 or 503 after retries, or another replay holds the lock, 77 key \
    rejected (401/403), 78 no key, a malformed key, or a plain http API URL.
    """

    static let examples = [
        ExampleSpec("appdna queue replay pending_events.json --dry-run", "Show what would be sent, and what is skipped and why."),
        ExampleSpec("APPDNA_SDK_KEY=adn_live_… appdna queue replay pending_events.json",
                    "Show the plan, ask, send; run it again after an interruption to resume."),
        ExampleSpec("appdna queue replay device-dump/ --key-file key.txt --yes --concurrency 4 --json",
                    "Non-interactive, four requests in flight, a JSON summary."),
    ]

    struct Options {
        var batchSize = 20
        var concurrency = 1
        var rate: Double?
        var maxAgeMilliseconds: Int64 = 7 * 86_400_000
        var includeStale = false
        var now: Int64 = 0
        var stateDirectory = ""
        var deadLetterPath = ""
        var timeout = 600.0
        var retries = 3
        var json = false
        var dryRun = false
    }

    /// What the planning pass found.
    struct Plan {
        var sources: [QueueSource] = []
        var eventsRead = 0
        var toSend = 0
        var batches = 0
        var groups: [ReplayGroup: Int] = [:]
        var skipped: [ReplaySkip: Int] = [:]
        var malformed = 0, truncated = 0, unreadable = 0
        var invalidExamples: [(QueueLocation, String?, String)] = []
        var production = 0, sandbox = 0
        var problems: [QueueProblem] = []
        var skippedTotal: Int { skipped.values.reduce(0, +) }

        static func batchCount(_ events: Int, _ size: Int) -> Int { (events + size - 1) / size }
    }

    @Sendable static func run(_ invocation: Invocation) throws -> ExitStatus {
        let arguments = invocation.arguments
        var options = Options()
        options.batchSize = try arguments.integer("batch-size", in: 1...10_000) ?? 20
        options.concurrency = try arguments.integer("concurrency", in: 1...64) ?? 1
        options.rate = try arguments.decimal("rate", in: 0.001...1e9)
        if let text = arguments.value("max-age") {
            guard let ms = duration(text) else {
                throw Failure(.usage, "--max-age takes a duration like 7d, 36h, 90m or 3600s, not '\(text)'")
            }
            options.maxAgeMilliseconds = ms
        }
        options.includeStale = arguments.has("include-stale")
        options.now = try QueueInspectCommand.time(arguments, "now") ?? QueueInspectCommand.currentMilliseconds()
        options.timeout = try arguments.decimal("timeout", in: 0.001...86_400) ?? 600
        options.retries = try arguments.integer("retries", in: 0...100) ?? 3
        options.json = arguments.has("json")
        options.dryRun = arguments.has("dry-run")

        // The queues.
        let (sources, status) = QueueInspectCommand.queueSources(invocation)
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
        let url = base + ingestPath

        var first = arguments.operands[0]
        while first.count > 1 && first.hasSuffix("/") { first.removeLast() }
        options.stateDirectory = arguments.value("state-dir") ?? (first + ".appdna-replay")
        options.deadLetterPath = arguments.value("dead-letter") ?? (options.stateDirectory + "/dead-letter.ndjson")

        // The plan.
        var journal = try ReplayJournal(directory: options.stateDirectory)
        let plan = try makePlan(sources, options: options, journal: journal, invocation: invocation)
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
            if options.json { writeJSON(plan, options: options, url: url, outcome: nil, undelivered: 0, seconds: 0, dryRun: true, to: invocation.stdout) }
            return .success
        }
        guard let key else { throw Failure(.internalError, "no key") }

        if plan.toSend == 0 {
            if !options.json { invocation.note("nothing to send") }
            if options.json { writeJSON(plan, options: options, url: url, outcome: ReplaySender.Outcome(), undelivered: 0, seconds: 0, dryRun: false, to: invocation.stdout) }
            return negativeSkips(plan) ? .negative : .success
        }

        // Confirmation.
        if !arguments.has("yes") {
            let question = "Send \(plan.toSend) event\(plan.toSend == 1 ? "" : "s") in \(plan.batches) batch\(plan.batches == 1 ? "" : "es") to \(HTTPURL(url)?.hostAndPort ?? url) with the key \(key.masked)?"
            let interactive = invocation.io.stdinIsTerminal && invocation.io.stderr.isTerminal && !invocation.options.noInput
            guard interactive else {
                throw Failure(.usage, "would send \(plan.toSend) event\(plan.toSend == 1 ? "" : "s") to \(HTTPURL(url)?.hostAndPort ?? url), but there is no terminal to confirm on\(invocation.options.noInput ? " (--no-input)" : ""): nothing was sent",
                              hint: "add --yes to send without asking, or --dry-run to see the plan only")
            }
            invocation.io.stderr.write(question + " [y/N] ")
            invocation.io.stderr.flush()
            let answer = readAnswer(invocation.io.stdinDescriptor).lowercased()
            guard answer == "y" || answer == "yes" else {
                invocation.note("nothing sent")
                return .negative
            }
        }

        // Send: lock, re-read the journal under the lock, stream the queues again.
        try journal.openForWriting()
        journal = try journal.reloaded()
        let client = APIAccess.client(invocation, retries: options.retries)
        let progress = ProgressBar(total: plan.toSend, enabled: invocation.io.stderr.isTerminal && !invocation.options.quiet, sink: invocation.io.stderr)
        let sender = ReplaySender(
            settings: .init(url: url, key: key, client: client, timeout: options.timeout, concurrency: options.concurrency,
                            rate: options.rate, userAgentVersion: CommandTable.appdna.version),
            journal: journal, deadLetter: DeadLetterFile(path: options.deadLetterPath),
            onProgress: { done in progress.update(done) })
        let started = Deadline.now()
        sender.start()
        var classifier = ReplayClassifier(now: options.now, maxAgeMilliseconds: options.maxAgeMilliseconds,
                                          includeStale: options.includeStale, journal: journal)
        var batcher = ReplayBatcher(size: options.batchSize)
        var toSend = 0
        var submitting = true
        for source in sources {
            try source.read { item in
                guard case .event(let event) = item else { return true }
                guard case .send(let replayEvent, let group) = classifier.decide(event, source: source) else { return true }
                toSend += 1
                if submitting, let batch = batcher.add(replayEvent, group: group) {
                    submitting = sender.submit(batch)
                }
                return true
            }
        }
        for batch in batcher.finish() where submitting {
            submitting = sender.submit(batch)
        }
        let outcome = sender.finish()
        progress.clear()
        let seconds = Double(Deadline.now() - started) / 1e9
        let undelivered = toSend - outcome.delivered - outcome.deadLettered

        if options.json {
            writeJSON(plan, options: options, url: url, outcome: outcome, undelivered: undelivered, seconds: seconds, dryRun: false, to: invocation.stdout)
        } else {
            writeSummary(outcome, plan: plan, toSend: toSend, undelivered: undelivered, seconds: seconds, options: options, invocation: invocation)
        }
        if let stop = outcome.stop {
            Runner.report(stop, io: invocation.io)
            return ExitStatus(stop.kind)
        }
        return undelivered > 0 || outcome.deadLettered > 0 || negativeSkips(plan) ? .negative : .success
    }

    /// Events that will never be delivered count against status 0: schema-rejected ones and
    /// those dead-lettered by an earlier run.
    static func negativeSkips(_ plan: Plan) -> Bool {
        (plan.skipped[.invalid] ?? 0) > 0 || (plan.skipped[.deadLettered] ?? 0) > 0
    }

    static func makePlan(_ sources: [QueueSource], options: Options, journal: ReplayJournal, invocation: Invocation) throws -> Plan {
        var plan = Plan()
        plan.sources = sources
        var classifier = ReplayClassifier(now: options.now, maxAgeMilliseconds: options.maxAgeMilliseconds,
                                          includeStale: options.includeStale, journal: journal)
        for source in sources {
            try source.read { item in
                switch item {
                case .problem(let problem):
                    switch problem.kind {
                    case .malformed: plan.malformed += 1
                    case .truncated: plan.truncated += 1
                    case .unreadable: plan.unreadable += 1
                    case .badEscape: break
                    }
                    if plan.problems.count < 20 { plan.problems.append(problem) }
                case .event(let event):
                    plan.eventsRead += 1
                    switch classifier.decide(event, source: source) {
                    case .send(_, let group):
                        plan.toSend += 1
                        plan.groups[group, default: 0] += 1
                        if let production = ReplayClassifier.isProduction(event.root) {
                            if production { plan.production += 1 } else { plan.sandbox += 1 }
                        }
                    case .skip(let reason, let fields):
                        plan.skipped[reason, default: 0] += 1
                        if reason == .invalid && plan.invalidExamples.count < 20 {
                            plan.invalidExamples.append((event.location, fields.eventID, fields.findings.map(\.message).joined(separator: "; ")))
                        }
                    }
                default: break
                }
                return true
            }
        }
        plan.batches = plan.groups.values.reduce(0) { $0 + Plan.batchCount($1, options.batchSize) }
        return plan
    }

    static let skipReasons: [(ReplaySkip, String)] = [
        (.cancelled, "removed by a later tombstone on the device"),
        (.stale, "older than --max-age; --include-stale sends them"),
        (.invalid, "the ingest API would reject them (event schema)"),
        (.delivered, "recorded in the journal by an earlier run"),
        (.deadLettered, "refused by the server in an earlier run; see the dead-letter file"),
        (.duplicate, "an earlier event in the queue has the same event_id"),
    ]

    static func writePlan(_ plan: Plan, options: Options, url: String, key: APIKey?, invocation: Invocation) {
        let out = invocation.stdout
        var rows: [(String, String)] = []
        for source in plan.sources { rows.append(("queue", "\(source.path) (\(source.format.rawValue))")) }
        rows.append(("events", "\(plan.eventsRead) read" + (plan.malformed + plan.truncated + plan.unreadable > 0
            ? "; also \(plan.malformed) malformed, \(plan.truncated) truncated, \(plan.unreadable) unreadable (not events, not sent)" : "")))
        rows.append(("to send", "\(plan.toSend) event\(plan.toSend == 1 ? "" : "s") in \(plan.batches) batch\(plan.batches == 1 ? "" : "es") of up to \(options.batchSize)"))
        for (group, count) in plan.groups.sorted(by: { $0.key < $1.key }) {
            rows.append(("", "\(group.platform) \(group.sdkVersion): \(count) event\(count == 1 ? "" : "s"), \(Plan.batchCount(count, options.batchSize)) batch\(Plan.batchCount(count, options.batchSize) == 1 ? "" : "es")"))
        }
        rows.append(("skipped", plan.skippedTotal == 0 ? "none" : "\(plan.skippedTotal)"))
        for (reason, why) in skipReasons {
            guard let count = plan.skipped[reason], count > 0 else { continue }
            rows.append(("", "\(reason.rawValue) \(count): \(why)"))
            if reason == .invalid {
                for example in plan.invalidExamples { rows.append(("", "  \(example.0): \(example.2)")) }
            }
        }
        rows.append(("destination", "POST \(url)" + (key.map { " with the key \($0.masked)" } ?? " (no key: set APPDNA_SDK_KEY or --key-file)")))
        rows.append(("journal", options.stateDirectory + "/journal"))
        rows.append(("dead letters", options.deadLetterPath))
        let width = rows.map { $0.0.count }.max() ?? 0
        out.writeLine(options.dryRun ? "Replay plan (dry run: nothing is sent)" : "Replay plan")
        for (label, value) in rows {
            out.writeLine("  " + label + String(repeating: " ", count: width - label.count + 2) + value)
        }
        out.flush()
    }

    static func writeSummary(_ outcome: ReplaySender.Outcome, plan: Plan, toSend: Int, undelivered: Int, seconds: Double,
                             options: Options, invocation: Invocation) {
        let out = invocation.stdout
        let rate = seconds > 0 ? Int((Double(outcome.delivered + outcome.deadLettered) / seconds).rounded()) : 0
        out.writeLine("Delivered \(outcome.delivered) of \(toSend) event\(toSend == 1 ? "" : "s") in \(outcome.requests) request\(outcome.requests == 1 ? "" : "s") (\(BundleFetchCommand.formatSeconds(seconds)), \(rate) events/s)")
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

    static func writeJSON(_ plan: Plan, options: Options, url: String, outcome: ReplaySender.Outcome?, undelivered: Int,
                          seconds: Double, dryRun: Bool, to out: OutputSink) {
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
             "batches": .integer(Plan.batchCount($0.value, options.batchSize))]
        })
        planObject["skipped"] = .object(skipped)
        planObject["invalid"] = .array(plan.invalidExamples.map {
            var object = QueueInspectReport.locationJSON($0.0)
            object["event_id"] = $0.1.map { .string($0) } ?? .null
            object["reason"] = .string($0.2)
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
            result["undelivered"] = .integer(undelivered)
            result["requests"] = .integer(outcome.requests)
            result["retries"] = .integer(outcome.retries)
            result["splits"] = .integer(outcome.splits)
            result["seconds"] = .decimal((seconds * 1000).rounded() / 1000)
            result["events_per_second"] = .integer(seconds > 0 ? Int((Double(outcome.delivered + outcome.deadLettered) / seconds).rounded()) : 0)
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

    /// `7d`, `36h`, `90m`, `3600s` or plain seconds → milliseconds.
    static func duration(_ text: String) -> Int64? {
        var digits = text
        var unit: Int64 = 1000
        if let last = text.last, !last.isNumber {
            digits = String(text.dropLast())
            switch last {
            case "s": unit = 1000
            case "m": unit = 60_000
            case "h": unit = 3_600_000
            case "d": unit = 86_400_000
            case "w": unit = 7 * 86_400_000
            default: return nil
            }
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int64(digits),
              value <= Int64.max / unit else { return nil }
        return value * unit
    }

    /// One line from the terminal (without the newline).
    static func readAnswer(_ fd: Int32) -> String {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(fd, &byte, 1) == 1 {
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

/// `[#########...........]  1200/5000 events` on a terminal stderr, at most ten times a second.
final class ProgressBar: @unchecked Sendable {
    let total: Int
    let enabled: Bool
    let sink: OutputSink
    /// What is counted (`events`, `tries`).
    let unit: String
    private var lastDraw: Int64 = 0
    private var drawn = false

    init(total: Int, enabled: Bool, sink: OutputSink, unit: String = "events") {
        self.total = total
        self.enabled = enabled
        self.sink = sink
        self.unit = unit
    }

    /// Called under the sender's lock.
    func update(_ done: Int) {
        guard enabled else { return }
        let now = Deadline.now()
        guard done >= total || now - lastDraw > 100_000_000 else { return }
        lastDraw = now
        let width = 30
        let filled = total > 0 ? min(width, done * width / total) : width
        let percent = total > 0 ? done * 100 / total : 100
        sink.write("\r[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] \(done)/\(total) \(unit) \(percent)%")
        sink.flush()
        drawn = true
    }

    func clear() {
        guard enabled, drawn else { return }
        sink.write("\r\u{1B}[K")
        sink.flush()
    }
}
