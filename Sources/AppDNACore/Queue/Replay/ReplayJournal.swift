/// An `event_id` (a lowercase UUID) as 128 bits: exact, and a fraction of a String's memory in
/// the sets `queue replay` keeps of delivered and seen events.
public struct EventID128: Hashable, Sendable {
    public let high: UInt64
    public let low: UInt64

    /// Nil unless `text` is a lowercase UUID (the schema's rule for event_id).
    public init?<Bytes: Collection>(utf8 text: Bytes) where Bytes.Element == UInt8 {
        guard text.count == 36 else { return nil }
        var high: UInt64 = 0, low: UInt64 = 0, digits = 0
        for (index, byte) in text.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            let value: UInt64
            switch byte {
            case 48...57: value = UInt64(byte - 48)
            case 97...102: value = UInt64(byte - 87)
            default: return nil
            }
            if digits < 16 { high = high << 4 | value } else { low = low << 4 | value }
            digits += 1
        }
        self.high = high
        self.low = low
    }

    public init?(_ text: String) { self.init(utf8: Array(text.utf8)) }
}

/// The state of a replay, in a directory of its own (never the input queue): an append-only
/// journal of acknowledged batches, the dead-letter file, and a lock. Every file of it goes
/// through the `FileAccess` the command hands over (`CommandIO.files`).
///
/// Journal: a first line `appdna-replay-journal 1`, then one line per batch the server answered
/// for good, written with one `write` and fsynced before the next batch is counted:
/// `delivered STATUS ID…` (2xx) or `dead-letter STATUS ID…` (a permanent 4xx). Only complete
/// lines count: a line cut off by a crash is ignored (its events are sent again, which the server
/// deduplicates by event_id).
public final class ReplayJournal: Sendable {
    public static let header = "appdna-replay-journal 1"
    public let directory: String
    public var journalPath: String { directory + "/journal" }
    public var lockPath: String { directory + "/lock" }
    /// The door every file of the state directory goes through.
    let files: any FileAccess

    /// What the journal file says (read when opened).
    public struct Recorded: Sendable {
        /// Ids the journal records as delivered / dead-lettered.
        public var delivered: Set<EventID128> = []
        public var deadLettered: Set<EventID128> = []
        /// Lines ignored (cut off or not understood).
        public var ignoredLines = 0
    }

    /// The journal as read, and its open file and lock (each closed when it goes); batches are
    /// recorded from several sending threads, one at a time under this box's lock.
    private let state = Locked(State())

    private struct State {
        var recorded = Recorded()
        var file: (any AppendingFile)?
        var lock: (any HeldFileLock)?
    }

    public var recorded: Recorded { state.withLock { $0.recorded } }
    public var delivered: Set<EventID128> { recorded.delivered }
    public var deadLettered: Set<EventID128> { recorded.deadLettered }
    public var ignoredLines: Int { recorded.ignoredLines }

    /// Reads the journal in `directory` through `files` if there is one; creates nothing.
    public init(directory: String, files: any FileAccess = SystemFileAccess()) throws(Failure) {
        self.directory = directory
        self.files = files
        try load()
    }

    /// The same journal read again, keeping the lock and the open file (call after
    /// `openForWriting`: another run may have finished while this one planned).
    public func reloaded() throws(Failure) -> ReplayJournal {
        try load()
        return self
    }

    /// Reads the journal file afresh into `recorded`.
    private func load() throws(Failure) {
        let fresh = try read()
        state.withLock { $0.recorded = fresh }
    }

    private func read() throws(Failure) -> Recorded {
        var recorded = Recorded()
        let bytes: [UInt8]
        do {
            bytes = try files.readAll(path: journalPath)
        } catch {
            do { _ = try files.status(path: journalPath) } catch where error == .notFound { return recorded } catch {}
            throw Failure(.ioError, "cannot read the replay journal: \(error.message)")
        }
        var lineStart = 0
        var first = true
        for index in bytes.indices where bytes[index] == 10 {
            let line = bytes[lineStart..<index]
            lineStart = index + 1
            if first {
                first = false
                if Array(line) == Array(Self.header.utf8) { continue }
                throw Failure(.malformedInput, "\(journalPath): not an appdna replay journal",
                              remedy: .stateDirectoryOfItsOwn)
            }
            Self.parse(line, into: &recorded)
        }
        if lineStart < bytes.count { recorded.ignoredLines += 1 }   // cut off by a crash
        return recorded
    }

    private static func parse(_ line: ArraySlice<UInt8>, into recorded: inout Recorded) {
        let words = line.split(separator: 0x20)
        guard words.count >= 3 else { recorded.ignoredLines += 1; return }
        let kind = String(decoding: words[0], as: UTF8.self)
        var ids: [EventID128] = []
        for word in words.dropFirst(2) {
            guard let id = EventID128(utf8: word) else { recorded.ignoredLines += 1; return }
            ids.append(id)
        }
        switch kind {
        case "delivered": recorded.delivered.formUnion(ids)
        case "dead-letter": recorded.deadLettered.formUnion(ids)
        default: recorded.ignoredLines += 1
        }
    }

    /// Creates the directory, takes the lock (or says who holds it) and opens the journal for
    /// appending. Call once, before sending.
    ///
    /// Private whatever the umask: the directory 0700 and its files 0600, since they name the
    /// events and the dead letters hold them whole. A directory made by an older version (or
    /// by this one) is tightened when it holds a journal; a directory given with --state-dir
    /// that holds none (".", a shared folder) keeps its mode, and the files stay 0600.
    public func openForWriting() throws(Failure) {
        let directoryExisted = (try? files.status(path: directory)) != nil
        do {
            try files.makeDirectory(directory, permissions: 0o700)
        } catch where error != .exists {
            throw Failure(.cannotCreateOutput, "cannot create the replay state directory \(directory): \(error)",
                          remedy: .writableStateDirectory)
        } catch {}
        let existing = try? files.status(path: journalPath)
        if !directoryExisted || existing != nil { try? files.setPermissions(directory, 0o700) }
        let lock = try lock()
        state.withLock { $0.lock = lock }
        let file: any AppendingFile
        do {
            file = try files.openForAppending(path: journalPath, permissions: 0o600)
        } catch {
            throw Failure(.cannotCreateOutput, "cannot open the replay journal \(journalPath): \(error)")
        }
        state.withLock { $0.file = file }
        if (existing?.size ?? 0) == 0 {
            try file.appendAll(Array((Self.header + "\n").utf8))
            files.syncDirectory(path: directory)
        } else if file.lastByte() != 10 {
            try file.appendAll([10])   // end a line a crash cut off, so the next one starts clean
        }
    }

    /// Takes the state directory's lock, held until the journal goes, and writes this process's
    /// id in it.
    private func lock() throws(Failure) -> any HeldFileLock {
        let taken: (any HeldFileLock)?
        do {
            taken = try files.lockExclusively(path: lockPath, permissions: 0o600)
        } catch {
            throw Failure(.cannotCreateOutput, "cannot create the lock \(lockPath): \(error)")
        }
        guard let taken else {
            let holder = (try? files.readAll(path: lockPath)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            let pid = holder.split(separator: "\n").first.map(String.init) ?? ""
            throw Failure(.temporary, "another appdna queue replay\(pid.isEmpty ? "" : " (pid \(pid))") is replaying this queue (lock \(lockPath))",
                          hint: "wait for it to finish; the lock goes away with the process, even when it is killed")
        }
        try? taken.replaceContents(with: Array("\(ProcessControl.id)\n".utf8))
        return taken
    }

    /// Records a batch the server answered for good, durably (write + fsync) before returning.
    public func record(deadLetter: Bool, status: Int, ids: [String]) throws(Failure) {
        var line = deadLetter ? "dead-letter " : "delivered "
        line += String(status)
        for id in ids { line += " " + id }
        line += "\n"
        try state.withLock { state throws(Failure) in
            guard let file = state.file else { throw Failure(.internalError, "\(journalPath): recorded to before it was opened") }
            try file.appendAll(Array(line.utf8))
            if let error = file.sync() {
                throw Failure(.ioError, "\(journalPath): cannot sync to disk: \(error)")
            }
        }
    }
}

/// The dead-letter file: one JSON object per line for every event the server refused for good,
/// appended and fsynced before the journal records them.
public final class DeadLetterFile: Sendable {
    public let path: String
    let files: any FileAccess
    /// The file once opened; batches are dead-lettered from several sending threads, one at a
    /// time under this box's lock.
    private let file = Locked<(any AppendingFile)?>(nil)

    public init(path: String, files: any FileAccess = SystemFileAccess()) {
        self.path = path
        self.files = files
    }

    /// Appends `lines` (each ending in a newline) with one write, then fsyncs.
    public func append(_ lines: [UInt8]) throws(Failure) {
        try file.withLock { file throws(Failure) in try appendLocked(lines, &file) }
    }

    private func appendLocked(_ lines: [UInt8], _ opened: inout (any AppendingFile)?) throws(Failure) {
        let file: any AppendingFile
        if let opened {
            file = opened
        } else {
            // 0600 whatever the umask: it holds whole events (user ids, purchases).
            do {
                file = try files.openForAppending(path: path, permissions: 0o600)
            } catch {
                throw Failure(.cannotCreateOutput, "cannot open the dead-letter file \(path): \(error)")
            }
            opened = file
            if let last = file.lastByte(), last != 10 { _ = file.append([10]) }
        }
        try file.appendAll(lines)
        if let error = file.sync() { throw Failure(.ioError, "\(path): cannot sync to disk: \(error)") }
    }
}
