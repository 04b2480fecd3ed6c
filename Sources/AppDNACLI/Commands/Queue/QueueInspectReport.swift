import AppDNACore

/// What `queue inspect` prints: rows of text, or one JSON document (fields in
/// docs/schemas/queue-inspect.schema.json; only ever added to).
enum QueueInspectReport {
    /// Lists in the text report show this many entries; --json shows up to the inspector's limit.
    static let textListLimit = 20

    // MARK: - text

    static func writeText(_ summary: QueueSummary, audit: ExposureAudit? = nil, invocation: Invocation) {
        let style = invocation.options.stdoutStyle
        var rows: [(String, String)] = []
        for source in summary.sources {
            rows.append(("queue", source.path))
            rows.append(("format", formatText(source)))
            rows.append(("events", eventCounts(live: source.live, cancelled: source.cancelled, malformed: source.malformed,
                                               truncated: source.truncated, badEscapes: source.badEscapes, unreadable: source.unreadable)))
            var size = "\(source.live) of \(QueueSourceSummary.eventCap) events, \(source.liveBytes) of \(QueueSourceSummary.byteCap) bytes (5 MB)"
            if source.overEventCap || source.overByteCap {
                size += style.apply(.yellow, " over the SDK's cap: the device drops the oldest events")
            }
            rows.append(("size", size))
            for (index, problem) in source.problems.prefix(textListLimit).enumerated() {
                rows.append((index == 0 ? "problems" : "", "\(place(problem.location)): \(style.apply(problem.kind == .unreadable ? .red : .yellow, problem.kind.rawValue)): \(problem.message)"))
            }
            let more = source.problems.count - min(source.problems.count, textListLimit) + source.problemsNotListed
            if more > 0 { rows.append(("", "… and \(more) more (--json lists up to 1000)")) }
            rows.append(("", ""))
        }
        let queues = summary.sources.count
        rows.append(("live events", "\(summary.live) in \(queues) queue\(queues == 1 ? "" : "s")"))
        rows.append(("names", summary.names.isEmpty ? "-" : summary.names.prefix(textListLimit).map { "\($0.name) \($0.count)" }.joined(separator: ", ")
                     + (summary.names.count > textListLimit ? ", … (\(summary.names.count) names)" : "")
                     + (summary.otherNames > 0 ? ", \(summary.otherNames) with other names" : "")
                     + (summary.unnamed > 0 ? ", \(summary.unnamed) without event_name" : "")))
        if let oldest = summary.oldest, let newest = summary.newest {
            rows.append(("time", "\(Timestamp.iso8601(milliseconds: oldest)) to \(Timestamp.iso8601(milliseconds: newest)) (now \(Timestamp.iso8601(milliseconds: summary.now)))"))
            var age = "oldest \(NumberText.age(milliseconds: summary.now - oldest)), newest \(NumberText.age(milliseconds: summary.now - newest))"
            if summary.pastHorizon > 0 {
                age += "; " + style.apply(.yellow, "\(summary.pastHorizon) past the 7-day horizon")
                    + " (the SDK would not send them; the server may no longer deduplicate them)"
            } else {
                age += "; none past the 7-day horizon"
            }
            if summary.inFuture > 0 { age += "; \(summary.inFuture) more than an hour in the future (device clock?)" }
            rows.append(("age", age))
        } else {
            rows.append(("time", "-"))
        }
        if summary.withoutTimestamp > 0 { rows.append(("", "\(summary.withoutTimestamp) without an integer ts_ms")) }
        rows.append(("users", "\(distinct(summary.users)) anonymous (anon_id), \(distinct(summary.identifiedUsers)) identified (user_id); \(distinct(summary.sessions)) session\(summary.sessions.count == 1 ? "" : "s")"))
        rows.append(("platforms", list(summary.platforms)))
        rows.append(("sdk versions", list(summary.sdkVersions)))
        rows.append(("client_seq", sequenceText(summary, style: style)))
        for gap in summary.sequenceGaps.prefix(textListLimit) {
            rows.append(("", "anon_id \(gap.anonID): \(gap.from == gap.to ? "\(gap.from)" : "\(gap.from)-\(gap.to)") missing (\(gap.count))"))
        }
        let moreGaps = summary.sequenceGaps.count - min(summary.sequenceGaps.count, textListLimit) + summary.gapsNotListed
        if moreGaps > 0 { rows.append(("", "… and \(moreGaps) more gaps")) }
        rows.append(("sdk drops", summary.dropEvents == 0 ? "none reported"
                     : "\(summary.dropEvents) \(EventFields.droppedEventName) event\(summary.dropEvents == 1 ? "" : "s") reporting \(summary.droppedTotal) dropped event\(summary.droppedTotal == 1 ? "" : "s")"))
        if summary.duplicateIDs == 0 {
            rows.append(("duplicates", summary.duplicatesApproximate ? "none found among the ids checked (too many candidates to check all)" : "none"))
        } else {
            rows.append(("duplicates", style.apply(.yellow, "\(summary.duplicateIDs) event_id\(summary.duplicateIDs == 1 ? "" : "s") on more than one live event")
                         + " (\(summary.duplicateEvents) extra event\(summary.duplicateEvents == 1 ? "" : "s"); the server keeps one per id)"))
            for duplicate in summary.duplicates.prefix(textListLimit) {
                rows.append(("", "\(duplicate.eventID): " + duplicate.locations.map(place).joined(separator: ", ")))
            }
        }
        rows.append(("consent", summary.consentFalse == 0 ? "no event with analytics consent false"
                     : "\(summary.consentFalse) event\(summary.consentFalse == 1 ? "" : "s") with analytics consent false"))
        if summary.rejectedCount == 0 {
            rows.append(("rejected", "none: every live event passes the event schema"))
        } else {
            rows.append(("rejected", style.apply(.red, "\(summary.rejectedCount) event\(summary.rejectedCount == 1 ? "" : "s") the server would reject")
                         + " (" + summary.rejectionCodes.map { "\($0.code) \($0.count)" }.joined(separator: ", ") + ")"))
            for event in summary.rejected.prefix(textListLimit) {
                rows.append(("", "\(place(event.location)): " + event.findings.map(\.message).joined(separator: "; ")))
            }
            let more = summary.rejectedCount - min(summary.rejected.count, textListLimit)
            if more > 0 { rows.append(("", "… and \(more) more (--json lists up to 1000; --events shows each)")) }
        }
        if let audit { rows += ExposureAuditReport.rows(audit, style: style, limit: textListLimit) }
        LabelValueBlock.write(rows, to: invocation.stdout)
    }

    static func formatText(_ source: QueueSourceSummary) -> String {
        var details: [String] = []
        if let line = source.legacyArrayLine { details.append("legacy array on line \(line)") }
        if source.tombstoneLines > 0 { details.append("\(source.tombstoneLines) tombstone line\(source.tombstoneLines == 1 ? "" : "s")") }
        return source.format.rawValue + (details.isEmpty ? "" : " (" + details.joined(separator: ", ") + ")")
    }

    static func eventCounts(live: Int, cancelled: Int, malformed: Int, truncated: Int, badEscapes: Int, unreadable: Int) -> String {
        var parts = ["\(live) live", "\(cancelled) cancelled", "\(malformed) malformed", "\(truncated) truncated"]
        if badEscapes > 0 { parts.append("\(badEscapes) bad XML escape\(badEscapes == 1 ? "" : "s")") }
        if unreadable > 0 { parts.append("unreadable parts") }
        return parts.joined(separator: ", ")
    }

    /// `line 7` or `_id 12`, within a source's section; a full location elsewhere.
    static func place(_ location: QueueLocation) -> String { location.description }

    static func distinct(_ counter: DistinctCounter) -> String { (counter.isApproximate ? "~" : "") + "\(counter.count)" }

    static func list(_ items: [(name: String, count: Int)]) -> String {
        items.isEmpty ? "-" : items.map { "\($0.name) \($0.count)" }.joined(separator: ", ")
    }

    static func sequenceText(_ summary: QueueSummary, style: Styler) -> String {
        var parts: [String] = []
        if summary.missingSequenceNumbers == 0 {
            parts.append("no gaps")
        } else {
            let gaps = summary.sequenceGaps.count + summary.gapsNotListed
            parts.append(style.apply(.yellow, "\(summary.missingSequenceNumbers) missing in \(gaps) gap\(gaps == 1 ? "" : "s")")
                         + " on \(summary.devicesWithGaps) device\(summary.devicesWithGaps == 1 ? "" : "s") (events lost on the device)")
        }
        if summary.repeatedSequenceNumbers > 0 { parts.append("\(summary.repeatedSequenceNumbers) repeated") }
        if summary.withoutSequence > 0 { parts.append("\(summary.withoutSequence) live event\(summary.withoutSequence == 1 ? "" : "s") without client_seq") }
        if summary.devicesNotFollowed > 0 { parts.append("\(summary.devicesNotFollowed) events of devices beyond the first \(QueueInspector.deviceLimit) not checked") }
        return parts.joined(separator: "; ")
    }

    // MARK: - JSON


    static func locationJSON(_ location: QueueLocation) -> JSONObject { location.jsonObject }

    static func findingJSON(_ finding: SchemaFinding) -> JSONValue {
        ["code": .string(finding.code), "pointer": .string(finding.pointer), "message": .string(finding.message)]
    }

    static func counted(_ items: [(name: String, count: Int)], key: String) -> JSONValue {
        .array(items.map { .object(JSONObject([(key, .string($0.name)), ("count", .integer($0.count))])) })
    }

    static func json(_ summary: QueueSummary) -> JSONValue {
        var object = JSONObject()
        object["now"] = .string(Timestamp.iso8601(milliseconds: summary.now))
        object["now_ms"] = .integer(summary.now)
        object["horizon_days"] = 7
        object["sources"] = .array(summary.sources.map { source in
            var item = JSONObject()
            item["path"] = .string(source.path)
            item["format"] = .string(source.format.rawValue)
            item["legacy_array_line"] = source.legacyArrayLine.map { .integer($0) } ?? .null
            item["tombstone_lines"] = .integer(source.tombstoneLines)
            item["live"] = .integer(source.live)
            item["cancelled"] = .integer(source.cancelled)
            item["malformed"] = .integer(source.malformed)
            item["truncated"] = .integer(source.truncated)
            item["bad_escapes"] = .integer(source.badEscapes)
            item["unreadable"] = .integer(source.unreadable)
            item["live_bytes"] = .integer(source.liveBytes)
            item["event_cap"] = .integer(QueueSourceSummary.eventCap)
            item["byte_cap"] = .integer(QueueSourceSummary.byteCap)
            item["over_event_cap"] = .bool(source.overEventCap)
            item["over_byte_cap"] = .bool(source.overByteCap)
            item["problems"] = .array(source.problems.map { problem in
                var entry = locationJSON(problem.location)
                entry["kind"] = .string(problem.kind.rawValue)
                entry["message"] = .string(problem.message)
                return .object(entry)
            })
            item["problems_not_listed"] = .integer(source.problemsNotListed)
            return .object(item)
        })
        object["live"] = .integer(summary.live)
        object["cancelled"] = .integer(summary.cancelled)
        object["malformed"] = .integer(summary.malformed)
        object["truncated"] = .integer(summary.truncated)
        object["bad_escapes"] = .integer(summary.badEscapes)
        object["unreadable"] = .integer(summary.unreadable)
        object["events_by_name"] = counted(summary.names, key: "name")
        object["other_names"] = .integer(summary.otherNames)
        object["unnamed"] = .integer(summary.unnamed)
        var time = JSONObject()
        time["oldest_ts_ms"] = summary.oldest.map { .integer($0) } ?? .null
        time["oldest"] = summary.oldest.map { .string(Timestamp.iso8601(milliseconds: $0)) } ?? .null
        time["newest_ts_ms"] = summary.newest.map { .integer($0) } ?? .null
        time["newest"] = summary.newest.map { .string(Timestamp.iso8601(milliseconds: $0)) } ?? .null
        time["past_horizon"] = .integer(summary.pastHorizon)
        time["in_future"] = .integer(summary.inFuture)
        time["without_ts_ms"] = .integer(summary.withoutTimestamp)
        object["time"] = .object(time)
        object["users"] = [
            "anon_ids": .integer(summary.users.count), "user_ids": .integer(summary.identifiedUsers.count),
            "sessions": .integer(summary.sessions.count),
            "approximate": .bool(summary.users.isApproximate || summary.identifiedUsers.isApproximate || summary.sessions.isApproximate),
        ]
        object["platforms"] = counted(summary.platforms, key: "platform")
        object["sdk_versions"] = counted(summary.sdkVersions, key: "sdk")
        object["client_seq"] = [
            "missing": .integer(summary.missingSequenceNumbers),
            "devices_with_gaps": .integer(summary.devicesWithGaps),
            "gaps": .array(summary.sequenceGaps.map { gap in
                ["anon_id": .string(gap.anonID), "from": .integer(gap.from), "to": .integer(gap.to), "count": .integer(gap.count)]
            }),
            "gaps_not_listed": .integer(summary.gapsNotListed),
            "repeated": .integer(summary.repeatedSequenceNumbers),
            "without_client_seq": .integer(summary.withoutSequence),
            "devices_not_followed": .integer(summary.devicesNotFollowed),
        ]
        object["sdk_events_dropped"] = ["events": .integer(summary.dropEvents), "dropped": .integer(summary.droppedTotal)]
        object["duplicates"] = [
            "event_ids": .integer(summary.duplicateIDs),
            "extra_events": .integer(summary.duplicateEvents),
            "approximate": .bool(summary.duplicatesApproximate),
            "list": .array(summary.duplicates.map { duplicate in
                ["event_id": .string(duplicate.eventID), "locations": .array(duplicate.locations.map { .object(locationJSON($0)) })]
            }),
        ]
        object["consent_false"] = .integer(summary.consentFalse)
        object["rejected"] = [
            "count": .integer(summary.rejectedCount),
            "by_code": .array(summary.rejectionCodes.map { ["code": .string($0.code), "count": .integer($0.count)] }),
            "events": .array(summary.rejected.map { event in
                var entry = locationJSON(event.location)
                entry["event_id"] = event.eventID.map { .string($0) } ?? .null
                entry["event_name"] = event.name.map { .string($0) } ?? .null
                entry["reasons"] = .array(event.findings.map(findingJSON))
                return .object(entry)
            }),
        ]
        return .object(object)
    }

    static func writeJSON(_ summary: QueueSummary, audit: ExposureAudit? = nil, to sink: OutputSink) {
        var document = json(summary)
        if let audit, case .object(var object) = document {
            object["exposure_audit"] = ExposureAuditReport.json(audit)
            document = .object(object)
        }
        sink.write(JSONWriter(indent: 2).write(document))
        sink.writeLine()
    }
}
