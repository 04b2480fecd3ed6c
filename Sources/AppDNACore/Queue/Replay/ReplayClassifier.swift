/// Why `queue replay` does not send an event.
public enum ReplaySkip: String, Sendable, CaseIterable {
    /// A later tombstone removed it on the device.
    case cancelled
    /// Older than --max-age (the SDK would not send it; the server may no longer deduplicate it).
    case stale
    /// The ingest API would reject it (event schema).
    case invalid
    /// The journal records it as delivered by an earlier run.
    case delivered = "already-delivered"
    /// The journal records it as dead-lettered by an earlier run.
    case deadLettered = "dead-lettered-before"
    /// An earlier live event in the queues has the same event_id.
    case duplicate
}

/// One live event to send: its JSON text as stored (spliced into the batch byte for byte).
public struct ReplayEvent: Sendable {
    public let id: String
    public let bytes: [UInt8]
    public let location: QueueLocation

    public init(id: String, bytes: [UInt8], location: QueueLocation) {
        self.id = id
        self.bytes = bytes
        self.location = location
    }
}

/// The `x-sdk-platform` / `x-sdk-version` a batch is sent with: events of different platforms
/// or SDK versions never share a batch.
public struct ReplayGroup: Hashable, Sendable, Comparable {
    public let platform: String
    public let sdkVersion: String

    public init(platform: String, sdkVersion: String) {
        self.platform = platform
        self.sdkVersion = sdkVersion
    }
    public static func < (a: ReplayGroup, b: ReplayGroup) -> Bool { (a.platform, a.sdkVersion) < (b.platform, b.sdkVersion) }
}

/// A batch ready to send.
public struct ReplayBatch: Sendable {
    public let group: ReplayGroup
    public var events: [ReplayEvent]

    public init(group: ReplayGroup, events: [ReplayEvent]) {
        self.group = group
        self.events = events
    }

    /// `{"batch":[event,…]}` with each event's bytes as stored.
    public var body: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(events.reduce(12) { $0 + $1.bytes.count + 1 })
        out.append(contentsOf: "{\"batch\":[".utf8)
        for (index, event) in events.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: event.bytes)
        }
        out.append(contentsOf: "]}".utf8)
        return out
    }
}

/// Decides, event by event, what `queue replay` sends, and cuts the events into batches. The
/// same decisions are made in the planning pass and the sending pass (both stream the queues).
public struct ReplayClassifier {
    public let now: Int64
    public let maxAgeMilliseconds: Int64
    public let includeStale: Bool
    public let journal: ReplayJournal?
    /// What the journal recorded when the classifier was made (read once, not per event).
    private let recorded: ReplayJournal.Recorded?
    private var seen: Set<EventID128> = []

    public init(now: Int64, maxAgeMilliseconds: Int64, includeStale: Bool, journal: ReplayJournal?) {
        self.now = now
        self.maxAgeMilliseconds = maxAgeMilliseconds
        self.includeStale = includeStale
        self.journal = journal
        recorded = journal?.recorded
    }

    public enum Decision {
        case send(ReplayEvent, ReplayGroup)
        case skip(ReplaySkip, EventFields)
    }

    /// What to do with one event read from `source`.
    public mutating func decide(_ event: QueueEvent, source: QueueSource) -> Decision {
        let fields = EventFields(event.root)
        if event.cancelled { return .skip(.cancelled, fields) }
        guard !fields.rejected, let idText = fields.eventID, let id = EventID128(idText) else { return .skip(.invalid, fields) }
        if let ts = fields.timestamp, ts < now - maxAgeMilliseconds, !includeStale { return .skip(.stale, fields) }
        if let recorded {
            if recorded.delivered.contains(id) { return .skip(.delivered, fields) }
            if recorded.deadLettered.contains(id) { return .skip(.deadLettered, fields) }
        }
        guard seen.insert(id).inserted else { return .skip(.duplicate, fields) }
        let platform = fields.platform ?? Self.platform(of: source.format)
        let group = ReplayGroup(platform: platform, sdkVersion: fields.sdkVersion ?? "unknown")
        return .send(ReplayEvent(id: idText, bytes: Self.eventBytes(event.document), location: event.location), group)
    }

    /// The platform a queue format comes from, for events without `device.platform`.
    public static func platform(of format: QueueFormat) -> String {
        switch format {
        case .iosArray, .iosNDJSON: return "ios"
        case .androidSQLite, .androidSharedPrefs: return "android"
        }
    }

    /// The event's text as stored, without a byte-order mark or surrounding white space.
    static func eventBytes(_ document: JSONDocument) -> [UInt8] {
        let bytes = document.bytes
        var start = document.hadByteOrderMark ? 3 : 0
        var end = bytes.count
        func space(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        while start < end, space(bytes[start]) { start += 1 }
        while end > start, space(bytes[end - 1]) { end -= 1 }
        return start == 0 && end == bytes.count ? bytes : Array(bytes[start..<end])
    }

    /// The environment an event says it comes from, when it says (an `environment` field at the
    /// top level, in `device` or in `context`): true production, false sandbox, nil unknown.
    public static func isProduction(_ event: JSONNode) -> Bool? {
        for node in [event, event["device"], event["context"]] {
            guard let text = node?["environment"]?.string?.lowercased() else { continue }
            switch text {
            case "production", "prod", "live", "release": return true
            case "sandbox", "test", "testing", "development", "dev", "debug", "staging": return false
            default: continue
            }
        }
        return nil
    }
}

/// Collects events into batches of at most `size` per group, in queue order.
public struct ReplayBatcher {
    public let size: Int
    private var open: [ReplayGroup: [ReplayEvent]] = [:]
    private var order: [ReplayGroup] = []

    public init(size: Int) { self.size = size }

    /// Adds an event; returns a batch when one is full.
    public mutating func add(_ event: ReplayEvent, group: ReplayGroup) -> ReplayBatch? {
        if open[group] == nil { order.append(group) }
        open[group, default: []].append(event)
        guard open[group]!.count >= size else { return nil }
        let events = open[group]!
        open[group] = []
        return ReplayBatch(group: group, events: events)
    }

    /// The partly filled batches, in the order their groups first appeared.
    public mutating func finish() -> [ReplayBatch] {
        var batches: [ReplayBatch] = []
        for group in order {
            if let events = open[group], !events.isEmpty { batches.append(ReplayBatch(group: group, events: events)) }
        }
        open = [:]
        order = []
        return batches
    }
}
