/// One queue file's part of the summary.
public struct QueueSourceSummary: Sendable {
    public let path: String
    /// iOS files starting with an array become `.iosNDJSON` when lines follow it.
    public var format: QueueFormat
    /// The line of a legacy array that stood first in an NDJSON file.
    public var legacyArrayLine: Int?
    public var tombstoneLines = 0
    public var live = 0, cancelled = 0, malformed = 0, truncated = 0, badEscapes = 0, unreadable = 0
    /// Bytes of the live events' JSON, as the SDK would send them.
    public var liveBytes = 0
    /// Malformed, truncated, bad-escape and unreadable findings, in file order (at most the list limit).
    public var problems: [QueueProblem] = []
    public var problemsNotListed = 0

    public static let eventCap = 10_000
    public static let byteCap = 5 * 1024 * 1024
    public var overEventCap: Bool { live > Self.eventCap }
    public var overByteCap: Bool { liveBytes > Self.byteCap }
}

/// An event the ingest API would reject, and why.
public struct RejectedEvent: Sendable {
    public let location: QueueLocation
    public let eventID: String?
    public let name: String?
    public let findings: [SchemaFinding]
}

/// A `client_seq` run missing for one device (`user.anon_id`).
public struct SequenceGap: Sendable {
    public let anonID: String
    public let from: Int64
    public let to: Int64
    public var count: Int64 { to - from + 1 }
}

/// An `event_id` carried by more than one live event.
public struct DuplicateID: Sendable {
    public let eventID: String
    public var locations: [QueueLocation]
}

/// Everything `queue inspect` reports about a set of queues.
public struct QueueSummary: Sendable {
    public var sources: [QueueSourceSummary] = []
    public let now: Int64
    public let horizon: Int64
    public var live: Int { sources.reduce(0) { $0 + $1.live } }
    public var cancelled: Int { sources.reduce(0) { $0 + $1.cancelled } }
    public var malformed: Int { sources.reduce(0) { $0 + $1.malformed } }
    public var truncated: Int { sources.reduce(0) { $0 + $1.truncated } }
    public var unreadable: Int { sources.reduce(0) { $0 + $1.unreadable } }
    public var badEscapes: Int { sources.reduce(0) { $0 + $1.badEscapes } }

    /// Live events per `event_name`, most frequent first (then by name).
    public var names: [(name: String, count: Int)] = []
    /// Live events whose name was beyond the first `QueueInspector.nameLimit` distinct names.
    public var otherNames = 0
    /// Live events without a string `event_name`.
    public var unnamed = 0

    public var oldest: Int64?
    public var newest: Int64?
    /// Live events older than the horizon (7 days before `now`): the SDK would not send them.
    public var pastHorizon = 0
    /// Live events more than an hour ahead of `now` (device clock wrong).
    public var inFuture = 0
    public var withoutTimestamp = 0

    public var users = DistinctCounter()
    public var identifiedUsers = DistinctCounter()
    public var sessions = DistinctCounter()
    public var platforms: [(name: String, count: Int)] = []
    /// "ios 1.0.70" → live events.
    public var sdkVersions: [(name: String, count: Int)] = []

    /// `client_seq` runs missing between a device's lowest and highest value (live and
    /// cancelled events both count as seen).
    public var sequenceGaps: [SequenceGap] = []
    public var gapsNotListed = 0
    public var missingSequenceNumbers: Int64 = 0
    public var devicesWithGaps = 0
    /// Events repeating a `client_seq` already seen for the device.
    public var repeatedSequenceNumbers = 0
    public var withoutSequence = 0
    /// Devices beyond `QueueInspector.deviceLimit` are not followed.
    public var devicesNotFollowed = 0

    /// `_sdk_events_dropped` events and the sum of their `properties.count`.
    public var dropEvents = 0
    public var droppedTotal: Int64 = 0

    public var duplicates: [DuplicateID] = []
    public var duplicateIDs = 0
    /// Live events beyond the first with the same id (what the server would discard).
    public var duplicateEvents = 0
    /// More repeat candidates than could be verified: the duplicate counts are a lower bound.
    public var duplicatesApproximate = false

    /// Live events with `privacy.consent.analytics` false.
    public var consentFalse = 0

    public var rejected: [RejectedEvent] = []
    public var rejectedCount = 0
    /// Findings by code over all rejected events.
    public var rejectionCodes: [(code: String, count: Int)] = []
}

/// Builds a `QueueSummary` from queues in bounded memory: counters and capped lists, a Bloom
/// filter for repeated ids (verified by a second pass over only the candidates), ranges of
/// `client_seq` per device.
public final class QueueInspector {
    public static let day: Int64 = 86_400_000
    public static let nameLimit = 1000
    public static let deviceLimit = 10_000
    public static let candidateLimit = 200_000

    let listLimit: Int
    var summary: QueueSummary
    private var names: [String: Int] = [:]
    private var platforms: [String: Int] = [:]
    private var versions: [String: Int] = [:]
    private var codes: [String: Int] = [:]
    private var devices: [String: SequenceRanges] = [:]
    private var bloom = IDBloomFilter()
    private var candidates: Set<UInt64> = []

    public init(now: Int64, horizonDays: Int64 = 7, listLimit: Int = 1000) {
        summary = QueueSummary(now: now, horizon: now - horizonDays * Self.day)
        self.listLimit = listLimit
    }

    /// Reads every source (twice when ids may repeat) and returns the summary.
    public func inspect(_ sources: [QueueSource]) throws(Failure) -> QueueSummary {
        for source in sources {
            var part = QueueSourceSummary(path: source.path, format: source.format)
            try source.read { item in
                self.add(item, to: &part)
                return true
            }
            summary.sources.append(part)
        }
        finishCounts()
        if !candidates.isEmpty { try verifyDuplicates(sources) }
        return summary
    }

    private func add(_ item: QueueItem, to part: inout QueueSourceSummary) {
        switch item {
        case .tombstone:
            part.tombstoneLines += 1
        case .legacyArray(let location):
            part.format = .iosNDJSON
            part.legacyArrayLine = location.line
        case .problem(let problem):
            switch problem.kind {
            case .malformed: part.malformed += 1
            case .truncated: part.truncated += 1
            case .badEscape: part.badEscapes += 1
            case .unreadable: part.unreadable += 1
            }
            if part.problems.count < listLimit { part.problems.append(problem) } else { part.problemsNotListed += 1 }
        case .event(let event):
            let fields = EventFields(event.root)
            track(sequence: fields)
            if event.cancelled {
                part.cancelled += 1
                return
            }
            part.live += 1
            part.liveBytes += event.byteCount
            count(fields, event: event)
        }
    }

    private func track(sequence fields: EventFields) {
        guard let seq = fields.clientSeq else { return }
        let device = fields.anonID ?? ""
        if devices[device] == nil {
            guard devices.count < Self.deviceLimit else { summary.devicesNotFollowed += 1; return }
            devices[device] = SequenceRanges()
        }
        devices[device]!.insert(seq)
    }

    private func count(_ fields: EventFields, event: QueueEvent) {
        if let name = fields.name {
            if names[name] != nil || names.count < Self.nameLimit { names[name, default: 0] += 1 } else { summary.otherNames += 1 }
        } else {
            summary.unnamed += 1
        }
        if let ts = fields.timestamp {
            summary.oldest = min(summary.oldest ?? ts, ts)
            summary.newest = max(summary.newest ?? ts, ts)
            if ts < summary.horizon { summary.pastHorizon += 1 }
            if ts > summary.now + 3_600_000 { summary.inFuture += 1 }
        } else {
            summary.withoutTimestamp += 1
        }
        if let anon = fields.anonID { summary.users.insert(anon) }
        if let user = fields.userID { summary.identifiedUsers.insert(user) }
        if let session = fields.sessionID { summary.sessions.insert(session) }
        let platform = fields.platform ?? "(none)"
        if platforms[platform] != nil || platforms.count < 100 { platforms[platform, default: 0] += 1 }
        let version = platform + " " + (fields.sdkVersion ?? "(none)")
        if versions[version] != nil || versions.count < 100 { versions[version, default: 0] += 1 }
        if fields.clientSeq == nil { summary.withoutSequence += 1 }
        if fields.name == EventFields.droppedEventName {
            summary.dropEvents += 1
            summary.droppedTotal += fields.propertiesCount ?? 0
        }
        if fields.analyticsConsent == false { summary.consentFalse += 1 }
        if let id = fields.eventID {
            let hash = IDHash.hash(id)
            if bloom.insert(hash) {
                if candidates.count < Self.candidateLimit { candidates.insert(hash) } else { summary.duplicatesApproximate = true }
            }
        }
        if fields.rejected {
            summary.rejectedCount += 1
            for finding in fields.findings { codes[finding.code, default: 0] += 1 }
            if summary.rejected.count < listLimit {
                summary.rejected.append(RejectedEvent(location: event.location, eventID: fields.eventID, name: fields.name, findings: fields.findings))
            }
        }
    }

    private func finishCounts() {
        func sorted(_ map: [String: Int]) -> [(name: String, count: Int)] {
            map.map { (name: $0.key, count: $0.value) }.sorted { $0.count != $1.count ? $0.count > $1.count : $0.name < $1.name }
        }
        summary.names = sorted(names)
        summary.platforms = sorted(platforms)
        summary.sdkVersions = sorted(versions)
        summary.rejectionCodes = sorted(codes).map { (code: $0.name, count: $0.count) }
        for (device, ranges) in devices.sorted(by: { $0.key < $1.key }) {
            summary.repeatedSequenceNumbers += ranges.repeats
            let gaps = ranges.gaps
            guard !gaps.isEmpty else { continue }
            summary.devicesWithGaps += 1
            summary.missingSequenceNumbers += ranges.missing
            for gap in gaps {
                if summary.sequenceGaps.count < listLimit {
                    summary.sequenceGaps.append(SequenceGap(anonID: device, from: gap.from, to: gap.to))
                } else {
                    summary.gapsNotListed += 1
                }
            }
        }
        devices = [:]
    }

    /// Second pass: exact occurrences of the candidate ids among live events.
    private func verifyDuplicates(_ sources: [QueueSource]) throws(Failure) {
        var seen: [UInt64: DuplicateID] = [:]
        var counts: [UInt64: Int] = [:]
        for source in sources {
            try source.read { item in
                guard case .event(let event) = item, !event.cancelled, let node = event.root["event_id"], let id = node.string else { return true }
                let hash = IDHash.hash(id)
                guard self.candidates.contains(hash) else { return true }
                counts[hash, default: 0] += 1
                if seen[hash] == nil {
                    seen[hash] = DuplicateID(eventID: id, locations: [event.location])
                } else if seen[hash]!.locations.count < 10 {
                    seen[hash]!.locations.append(event.location)
                }
                return true
            }
        }
        var duplicates: [DuplicateID] = []
        for (hash, count) in counts where count > 1 {
            summary.duplicateIDs += 1
            summary.duplicateEvents += count - 1
            duplicates.append(seen[hash]!)
        }
        duplicates.sort { ($0.locations[0].path, $0.locations[0].line, $0.locations[0].rowID ?? 0) < ($1.locations[0].path, $1.locations[0].line, $1.locations[0].rowID ?? 0) }
        summary.duplicates = Array(duplicates.prefix(listLimit))
        candidates = []
    }
}
