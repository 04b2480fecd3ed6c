/// One queue file, its format detected from its content (never from its name).
public struct QueueSource: Sendable, Equatable {
    public let path: String
    /// As detected before reading; an iOS file starting with an array may turn out to be NDJSON
    /// with a legacy first line (the reader then reports `.legacyArray`).
    public let format: QueueFormat

    public init(path: String, format: QueueFormat) {
        self.path = path
        self.format = format
    }

    static let sqliteMagic = Array("SQLite format 3\0".utf8)

    /// Detects the format of the file at `path`; throws 66 for a missing file and 65 when the
    /// content is no queue format, or is one but holds no event (`checkHoldsEvents`).
    public static func detect(path: String) throws(Failure) -> QueueSource {
        let head = try Self.head(path, count: 4096)
        guard let format = format(head: head, path: path) else {
            throw notAQueue(path, head.isEmpty ? "the file is empty" : "the content is none of the queue formats")
        }
        let source = QueueSource(path: path, format: format)
        try source.checkHoldsEvents()
        return source
    }

    /// The 65 for a file that is no event queue, with the formats that are.
    static func notAQueue(_ path: String, _ why: String) -> Failure {
        Failure(.malformedInput, "\(path): not an event queue: \(why)",
                hint: "expected an iOS pending_events.json (JSON array or NDJSON), an Android appdna_events.db (SQLite) or ai.appdna.sdk.xml")
    }

    /// The keys only events (`event_id`, `event_name`) and tombstones (`appdna_removed`) have.
    static let eventKeys = ["event_id", "event_name", IOSQueueReader.tombstoneKey].map { Array("\"\($0)\"".utf8) }

    /// Whether a JSON text names one of `eventKeys` as a key (`"event_id"` then `:`), as every
    /// line of a queue's event does, in any layout the SDKs wrote.
    static func namesAnEventKey(_ bytes: UnsafeRawBufferPointer) -> Bool {
        for key in eventKeys {
            var start = 0
            while start < bytes.count, let found = ByteSearch.find(key, in: UnsafeRawBufferPointer(rebasing: bytes[start...])) {
                var next = start + found + key.count
                while next < bytes.count, bytes[next] == 0x20 || bytes[next] == 0x09 || bytes[next] == 0x0A || bytes[next] == 0x0D { next += 1 }
                if next < bytes.count, bytes[next] == UInt8(ascii: ":") { return true }
                start = start + found + 1
            }
        }
        return false
    }

    /// A JSON file that starts like a queue but in which nothing is an event — a config bundle
    /// (`{` on a line of its own reads as NDJSON), `{"hello": 1}` — is not a queue: 65 rather
    /// than a summary of "malformed" lines or of one nameless "live event". A queue is a file in
    /// which some line names an event key (usually the first line: the check stops there), or
    /// one with no items at all (`[]`: a queue the device emptied). Lines that are not events
    /// in a file that has events stay what they are: malformed lines of a queue. SQLite is
    /// judged by its table when read (`QueueProblem.Kind.notAQueue`); shared preferences hold
    /// the queue in one string, read as it is.
    func checkHoldsEvents() throws(Failure) {
        guard format == .iosArray || format == .iosNDJSON else { return }
        var holdsEvents = false
        try IOSQueueReader(path: path).forEachLine { line, _ in
            holdsEvents = Self.namesAnEventKey(line)
            return !holdsEvents
        }
        if holdsEvents { return }
        var lines = 0
        try read { item in
            lines += 1
            return true
        }
        if lines > 0 {
            let entries = lines == 1 ? "its one entry is not" : "none of its \(lines) entries is"
            throw Self.notAQueue(path, "\(entries) an event (a JSON object with event_id and event_name)")
        }
    }

    static func format(head: [UInt8], path: String) -> QueueFormat? {
        if head.starts(with: sqliteMagic) { return .androidSQLite }
        if head.isEmpty, hasWriteAheadLog(path) { return .androidSQLite }
        guard let first = head.withUnsafeBytes({ IOSQueueReader.firstNonSpace($0) }) else { return nil }
        switch head[first] {
        case UInt8(ascii: "["): return .iosArray
        case UInt8(ascii: "{"): return .iosNDJSON
        case UInt8(ascii: "<"): return .androidSharedPrefs
        default: return nil
        }
    }

    /// A WAL-mode database never checkpointed can be an empty file beside its `-wal`.
    static func hasWriteAheadLog(_ path: String) -> Bool {
        guard let head = try? Self.head(path + "-wal", count: 4), head.count == 4 else { return false }
        return head[0] == 0x37 && head[1] == 0x7F && head[2] == 0x06 && (head[3] == 0x82 || head[3] == 0x83)
    }

    static func head(_ path: String, count: Int) throws(Failure) -> [UInt8] {
        let fd = try ChunkReading.open(path: path)
        defer { SystemFile.close(fd) }
        var buffer = [UInt8](repeating: 0, count: count)
        let n: Int
        do {
            n = try SystemFile.read(fd, into: &buffer, at: 0)
        } catch {
            throw Failure(.ioError, "\(path): \(error)")
        }
        buffer.removeLast(count - n)
        return buffer
    }

    /// The queues in `path`: the file itself (whatever its content: an error if it is no
    /// queue), or every queue file under a directory (a device container dump), found by
    /// content: SQLite databases with a `pending_events` table, XML with an `event_queue`
    /// string, JSON whose start names an event key (`event_id`, `event_name`, `appdna_removed`).
    /// Sorted by path.
    public static func sources(at path: String) throws(Failure) -> [QueueSource] {
        let kind: FileStatus.Kind
        do { kind = try FileStatus.of(path: path).kind } catch { throw Failure(.inputMissing, "\(path): \(error)") }
        guard kind == .directory else { return [try detect(path: path)] }
        var found: [QueueSource] = []
        walk(path, depth: 0, into: &found)
        return found
    }

    static func walk(_ directory: String, depth: Int, into found: inout [QueueSource]) {
        guard depth < 32, let names = FileSystem.entries(of: directory) else { return }
        for name in names.sorted() {
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            switch (try? FileStatus.ofLink(path: path))?.kind {
            case .directory: walk(path, depth: depth + 1, into: &found)
            case .regular: if let source = probe(path) { found.append(source) }
            default: continue
            }
        }
    }

    /// A file in a directory dump that holds an AppDNA queue, or nil.
    static func probe(_ path: String) -> QueueSource? {
        guard let head = try? Self.head(path, count: 64 * 1024), let format = format(head: head, path: path) else { return nil }
        func contains(_ text: String) -> Bool {
            let needle = Array(text.utf8)
            return head.withUnsafeBytes { ByteSearch.find(needle, in: $0) != nil }
        }
        switch format {
        case .androidSQLite:
            var hasTable = false
            try? SQLiteQueueReader(path: path).read { item in
                if case .problem(let problem) = item, problem.kind == .notAQueue {
                    hasTable = false
                } else {
                    hasTable = true
                }
                return false
            }
            return hasTable || contains("pending_events") ? QueueSource(path: path, format: format) : nil
        case .androidSharedPrefs:
            return contains("event_queue") ? QueueSource(path: path, format: format) : nil
        case .iosArray, .iosNDJSON:
            return head.withUnsafeBytes(namesAnEventKey) ? QueueSource(path: path, format: format) : nil
        }
    }

    /// Reads the queue, calling `body` with each item in queue order until it returns false.
    /// Never writes to the input (SQLite reads a private copy; see `SQLiteQueueReader`). A file
    /// a reader finds to be no queue at all is a 65 error, not an item.
    public func read(_ body: (QueueItem) -> Bool) throws(Failure) {
        var notAQueue: QueueProblem?
        let items = { (item: QueueItem) -> Bool in
            if case .problem(let problem) = item, problem.kind == .notAQueue { notAQueue = problem; return false }
            return body(item)
        }
        switch format {
        case .iosArray, .iosNDJSON: try IOSQueueReader(path: path).read(items)
        case .androidSQLite: try SQLiteQueueReader(path: path).read(items)
        case .androidSharedPrefs: try SharedPrefsQueueReader(path: path).read(items)
        }
        if let notAQueue { throw Self.notAQueue(path, notAQueue.message) }
    }
}
