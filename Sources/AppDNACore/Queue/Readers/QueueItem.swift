/// The on-device queue formats, told apart by content.
public enum QueueFormat: String, Sendable, CaseIterable {
    /// iOS up to 1.0.68: one JSON array of events.
    case iosArray = "ios-json-array"
    /// iOS 1.0.69+: one event per line (maybe a legacy array on the first line, tombstones).
    case iosNDJSON = "ios-ndjson"
    /// Android `appdna_events.db`, table `pending_events`.
    case androidSQLite = "android-sqlite"
    /// Android legacy `shared_prefs/ai.appdna.sdk.xml`, `<string name="event_queue">`.
    case androidSharedPrefs = "android-shared-prefs"
}

/// Where an item is: a file and a line (text formats) or a row (SQLite).
public struct QueueLocation: Sendable, Equatable, CustomStringConvertible {
    public let path: String
    /// 1-based line; 0 when the format has no lines.
    public let line: Int
    /// `pending_events._id` for SQLite rows.
    public let rowID: Int64?

    public init(path: String, line: Int = 0, rowID: Int64? = nil) {
        self.path = path
        self.line = line
        self.rowID = rowID
    }

    /// `path:12` or `path:_id=7`.
    public var description: String {
        if let rowID { return "\(path):_id=\(rowID)" }
        return line > 0 ? "\(path):\(line)" : path
    }
}

/// One event as stored, parsed, and whether a later tombstone cancelled it.
public struct QueueEvent {
    public let document: JSONDocument
    public let location: QueueLocation
    /// A later tombstone line names this event's id: it was delivered (or given up) on the device.
    public let cancelled: Bool
    public var root: JSONNode { document.root }
    /// The event's JSON bytes as stored (what the SDK would send).
    public var byteCount: Int { document.bytes.count }
}

/// Something in a queue that is not an event.
public struct QueueProblem: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// A line or row that is not an event (not JSON, not an object). Reading goes on.
        case malformed
        /// The cut-off end of the file (a crash while appending). Skipped.
        case truncated
        /// A bad XML escape in shared preferences; the raw text was kept.
        case badEscape = "bad-escape"
        /// Part of the input could not be read at all (damaged database, unknown format).
        case unreadable
        /// The file is no event queue at all (an SQLite database without a `pending_events`
        /// table). `QueueSource.read` turns it into a 65 error, so summaries never count it.
        case notAQueue = "not-a-queue"
    }

    public let kind: Kind
    public let location: QueueLocation
    public let message: String

    public init(_ kind: Kind, _ location: QueueLocation, _ message: String) {
        self.kind = kind
        self.location = location
        self.message = message
    }
}

/// What a reader hands its caller, in queue order.
public enum QueueItem {
    case event(QueueEvent)
    case problem(QueueProblem)
    /// A tombstone line `{"appdna_removed": [...]}` naming `ids` event ids.
    case tombstone(QueueLocation, ids: Int)
    /// A legacy JSON array of `events` elements started on this line (NDJSON's first line).
    case legacyArray(QueueLocation)
}

extension QueueProblem {
    /// A line longer than any device writes (`cap` bytes, from the SDK's 5 MB queue cap):
    /// reported by its length, never held.
    static func oversizedLine(_ location: QueueLocation, length: Int, cap: Int) -> QueueProblem {
        QueueProblem(.malformed, location, "oversized line: \(length) bytes, over the \(cap) bytes a device can write under the SDK's 5 MB queue cap; skipped unread")
    }
}
