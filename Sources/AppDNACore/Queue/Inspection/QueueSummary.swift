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
