import AppDNACore

/// The flags of `queue inspect` and `queue replay`, each declared once, in help order.
enum QueueInspectFlags {
    static let events = Flag.switch("events", "List the live events (one per line) instead of the summary")
    static let name = Flag.repeated("name", value: "NAME", "With --events: only events with this event_name", .text)
    static let user = Flag.optional("user", value: "ID", "With --events: only events whose user.anon_id or user.user_id is ID", .text)
    static let since = Flag.optional("since", value: "TIME", "With --events: only events at or after TIME (ms since 1970, or ISO 8601)", .time)
    static let until = Flag.optional("until", value: "TIME", "With --events: only events at or before TIME (ms since 1970, or ISO 8601)", .time)
    static let now = Flag.optional("now", value: "TIME", "The time ages and the 7-day horizon are measured from (default: now)", .time)
    static let bundle = Flag.optional("bundle", value: "FILE", "Audit experiment exposures: recompute each event's variants from this config bundle (a file, or @remote for the live bundle)",
                                      completion: .file, .path)
    static let json = OutputFlags.json("Print one JSON document (with --events: one JSON object per line)")

    static let all: [FlagSpec] = [events.spec, name.spec, user.spec, since.spec, until.spec, now.spec, bundle.spec, json.spec]
        + APIFlags.wholeCommand + RetiredSQLFlags.queueInspectSpecs
}

enum QueueReplayFlags {
    static let yes = Flag.switch("yes", short: "y", "Send without asking (needed when not on a terminal)")
    static let dryRun = Flag.switch("dry-run", short: "n", "Print the plan and send nothing")
    static let batchSize = Flag.defaulted("batch-size", value: "N", "Events per request", default: "20", .integer(1...10_000))
    static let concurrency = Flag.defaulted("concurrency", value: "N", "Requests in flight at once", default: "1", .integer(1...64))
    static let rate = Flag.optional("rate", value: "EVENTS_PER_SECOND", "Send at most this many events per second", .decimal(0.001...1e9))
    static let maxAge = Flag.defaulted("max-age", value: "DURATION", "Skip events older than this (7d, 36h, 90m, 3600s)", default: "7d", .duration)
    static let includeStale = Flag.switch("include-stale", "Send events older than --max-age too")
    static let now = Flag.optional("now", value: "TIME", "The time --max-age is measured from (default: now)", .time)
    static let stateDir = Flag.optional("state-dir", value: "DIR", "Where the journal, the lock and the dead letters go (default: PATH.appdna-replay beside the first PATH)",
                                        completion: .directory, .path)
    static let deadLetter = Flag.optional("dead-letter", value: "PATH", "NDJSON file for events the server refused for good (default: dead-letter.ndjson in the state directory)",
                                          completion: .file, .path)
    static let json = OutputFlags.json("Print one JSON document (the plan, and what was sent)")

    static let all: [FlagSpec] = [yes.spec, dryRun.spec, batchSize.spec, concurrency.spec, rate.spec, maxAge.spec, includeStale.spec,
                                  now.spec, stateDir.spec, deadLetter.spec,
                                  APIFlags.keyFile.spec, APIFlags.batchTimeout.spec, APIFlags.batchRetries.spec, json.spec]
}

extension FlagValue where Value == Int64 {
    /// A time: milliseconds since 1970, or ISO 8601; the value is in milliseconds.
    static var time: FlagValue<Int64> {
        FlagValue(range: nil, choices: nil, sample: "0") { long, text throws(Failure) in
            guard let ms = Timestamp.milliseconds(from: text) else {
                throw Failure(.usage, "--\(long) takes milliseconds since 1970 or an ISO 8601 time (2026-02-19T10:00:00Z), not '\(text)'")
            }
            return ms
        }
    }

    /// A duration in the one syntax (`UnitText.seconds`: 3600, 90m, 36h, 7d); the value is in
    /// milliseconds.
    static var duration: FlagValue<Int64> {
        FlagValue(range: nil, choices: nil, sample: "7d") { long, text throws(Failure) in
            guard let seconds = UnitText.seconds(from: text), seconds * 1000 < 9e18 else {
                throw Failure(.usage, "--\(long) takes a duration (seconds, or with ms, s, m, h, d: 7d, 36h, 90m, 3600s), not '\(text)'")
            }
            return Int64((seconds * 1000).rounded())
        }
    }
}
