import AppDNACore
import AppDNAReplay

/// What `queue replay` prints: the plan (text, or one JSON document with the result;
/// docs/schemas), the summary of a run, and why nothing was sent.
enum QueueReplayReport {
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
    static func nothingToSend(_ plan: ReplayPlan, options: QueueReplayPlan) -> String {
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

    static func writePlan(_ plan: ReplayPlan, options: QueueReplayPlan, invocation: Invocation) {
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
        rows.append(("destination", "POST \(options.url)" + (options.key.map { " with the key \($0.masked)" } ?? " (no key: set APPDNA_SDK_KEY or --key-file)")))
        rows.append(("journal", options.stateDirectory + "/journal"))
        rows.append(("dead letters", options.deadLetterPath))
        out.writeLine(options.dryRun ? "Replay plan (dry run: nothing is sent)" : "Replay plan")
        LabelValueBlock.write(rows, to: out, indent: "  ")
        out.flush()
    }

    static func writeSummary(_ outcome: ReplayOutcome, plan: ReplayPlan, toSend: Int, undelivered: Int,
                             options: QueueReplayPlan, invocation: Invocation) {
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

    static func writeJSON(_ plan: ReplayPlan, options: QueueReplayPlan, outcome: ReplayOutcome?,
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
        root["url"] = .string(options.url)
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
}
