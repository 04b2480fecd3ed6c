/// Reads Android's `appdna_events.db` (`pending_events(_id, event_json, created_at)`) in
/// `created_at, _id` order, the order the SDK sends.
///
/// The user's files are never opened for writing: the database and its `-wal` (events still in
/// the write-ahead log count) and `-journal` are copied into a private temporary directory and
/// the copy is opened read-only, so SQLite's `-shm` and any recovery happen there. Nothing is
/// created or changed beside the input.
struct SQLiteQueueReader {
    let path: String

    static let companions = ["-wal", "-journal"]

    func read(_ body: (QueueItem) -> Bool) throws(Failure) {
        // Without the library nothing can be said about the file: the command fails (69) with
        // the line naming the package, instead of reporting the database as unreadable.
        _ = try SQLite.api()
        let copy = try TemporaryCopy(of: path, companions: Self.companions)
        defer { copy.remove() }
        let database: SQLiteDatabase
        do {
            database = try SQLiteDatabase(path: "file:" + Self.uriEscaped(copy.path) + "?mode=ro",
                                          flags: SQLite.openReadOnly | SQLite.openURI)
        } catch {
            _ = body(.problem(QueueProblem(.unreadable, QueueLocation(path: path), "cannot open the database: \(error.message)")))
            return
        }
        let hasTable: Bool, schemaIsEmpty: Bool
        do {
            hasTable = try database.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'pending_events'").step()
            // Android's own table (`android_metadata`) is created with the SDK's, in the same log.
            schemaIsEmpty = try !database.prepare("SELECT 1 FROM sqlite_master WHERE name <> 'android_metadata'").step()
        } catch {
            _ = body(.problem(QueueProblem(.unreadable, QueueLocation(path: path), "cannot read the database: \(error.message)")))
            return
        }
        guard hasTable else {
            // Copied off a device without its write-ahead log (`adb pull` of the .db alone): a
            // database never checkpointed has its tables and events in the missing `-wal`, and
            // an empty schema in the file. (A WAL database closed cleanly has no `-wal` either,
            // but its tables are in the file: one without pending_events is another database.)
            if schemaIsEmpty && Self.isWriteAheadLogMissing(path) { throw Self.missingWriteAheadLog(path) }
            _ = body(.problem(QueueProblem(.notAQueue, QueueLocation(path: path), "the database has no pending_events table")))
            return
        }
        var rows = 0
        var stopped = false
        func scan(_ sql: String) throws(Failure) {
            let statement = try database.prepare(sql)
            while try statement.step() {
                rows += 1
                let rowID = statement.int64(0)
                let location = QueueLocation(path: path, rowID: rowID)
                let text = statement.text(1)
                let item: QueueItem
                if statement.isNull(1) {
                    item = .problem(QueueProblem(.malformed, location, "event_json is NULL"))
                } else {
                    do {
                        let document = try JSONDocument(bytes: Array(text))
                        if document.root.kind == .object {
                            item = .event(QueueEvent(document: document, location: location, cancelled: false))
                        } else {
                            item = .problem(QueueProblem(.malformed, location, "event_json is a \(document.root.kind), not an event object"))
                        }
                    } catch {
                        item = .problem(QueueProblem(.malformed, location, "event_json: \(error.message)"))
                    }
                }
                if !body(item) {
                    stopped = true
                    return
                }
            }
        }
        do {
            try scan("SELECT _id, event_json, created_at FROM pending_events ORDER BY created_at, _id")
        } catch {
            guard !stopped else { return }
            if rows == 0 {
                // Sorting reads every page first; in _id order the rows before the damage still come out.
                do {
                    try scan("SELECT _id, event_json, created_at FROM pending_events")
                    _ = body(.problem(QueueProblem(.unreadable, QueueLocation(path: path),
                                                   "could not sort by created_at (\(error.message)); rows read in _id order")))
                } catch let second {
                    _ = body(.problem(QueueProblem(.unreadable, QueueLocation(path: path),
                                                   "the database is damaged: \(second.message); \(rows) row\(rows == 1 ? "" : "s") read in _id order before the damage, the rest is unreadable")))
                }
            } else {
                _ = body(.problem(QueueProblem(.unreadable, QueueLocation(path: path),
                                               "the database is damaged: \(error.message); the rest after \(rows) rows is unreadable")))
            }
        }
    }

    /// Whether the database at `path` is in WAL mode (its header's file format write and read
    /// versions, bytes 18 and 19, are 2) and no `-wal` file is beside it.
    static func isWriteAheadLogMissing(_ path: String) -> Bool {
        guard let head = try? QueueSource.head(path, count: 20), head.count == 20, head[18] == 2, head[19] == 2 else { return false }
        do {
            _ = try FileStatus.of(path: path + "-wal")
            return false
        } catch {
            return error == .notFound
        }
    }

    /// The 66 for a WAL-mode database read without its log: the input is incomplete, and the
    /// message says which files to copy (the SDK's database is `appdna_events.db`).
    static func missingWriteAheadLog(_ path: String) -> Failure {
        Failure(.inputMissing, "\(path): the database is in WAL mode but its write-ahead log \(path)-wal is missing: the pending_events table and the events not yet checkpointed are in that file",
                hint: "copy appdna_events.db-wal (and appdna_events.db-shm) from the device with appdna_events.db, into the same directory under the same name (\(path)-wal), then run this again")
    }

    /// A path as the path part of a `file:` URI.
    static func uriEscaped(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "%"), ..<0x21, 0x7F...:
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
            default:
                out.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return out
    }
}

/// A copy of a file (and whichever of its companions exist) in a fresh private directory.
struct TemporaryCopy {
    let directory: String
    let path: String

    init(of source: String, companions: [String]) throws(Failure) {
        let base = (ProcessEnvironment.value("TMPDIR").flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp")
        do {
            directory = try FileSystem.makeTemporaryDirectory(prefix: (base.hasSuffix("/") ? base : base + "/") + "appdna-queue-")
        } catch {
            throw Failure(.cannotCreateOutput, "cannot create a temporary directory in \(base): \(error)")
        }
        path = directory + "/queue.db"
        do {
            try Self.copyFile(source, to: path, required: true)
            for suffix in companions {
                try Self.copyFile(source + suffix, to: path + suffix, required: false)
            }
        } catch {
            remove()
            throw error
        }
    }

    func remove() {
        for suffix in ["", "-wal", "-shm", "-journal"] { FileSystem.removeFile(path + suffix) }
        FileSystem.removeDirectory(directory)
    }

    static func copyFile(_ source: String, to destination: String, required: Bool) throws(Failure) {
        let input: Int32
        do {
            input = try SystemFile.open(source, .read)
        } catch {
            if !required && error == .notFound { return }
            throw Failure(.inputMissing, "\(source): \(error)")
        }
        defer { SystemFile.close(input) }
        let output: Int32
        do {
            output = try SystemFile.open(destination, [.write, .create, .exclusive], permissions: 0o600)
        } catch {
            throw Failure(.cannotCreateOutput, "\(destination): \(error)")
        }
        defer { SystemFile.close(output) }
        var failure: Failure? = nil
        try ChunkReading.forEachChunk(fileDescriptor: input, name: source) { chunk in
            guard failure == nil else { return }
            if let code = FileWriting.writeAll(output, chunk) {
                failure = Failure(.ioError, "copying \(source) to \(destination): \(SystemError.describe(code))")
            }
        }
        if let failure { throw failure }
    }
}
