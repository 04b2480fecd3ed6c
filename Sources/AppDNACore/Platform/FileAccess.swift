/// The file operations a command's output goes through, injected beside its clock and its
/// transport (`CommandIO.files`), as SwiftPM passes a `FileSystem` value: the binary passes
/// the system's (`SystemFileAccess`); a test passes one of its own, so a command's file
/// behaviour (what it writes, what it reads back, what it does when a write is refused) runs
/// in process and is observed without touching the disk.
public protocol FileAccess: Sendable {
    /// Whether `replace` could write `path`, checked before the work that produces the bytes;
    /// a refusal is `cannotCreateOutput` (73), worded as `replace` words it.
    func checkWritable(path: String) throws(Failure)
    /// Replaces `path` with `bytes` so that readers see the old bytes or the new ones, never
    /// a mix; a write that cannot finish within `timeout` seconds fails (nil = no bound).
    func replace(path: String, with bytes: [UInt8], timeout: Double?) throws(Failure)
    /// The bytes of `path` when it is a regular file that can be read, else nil: a FIFO or a
    /// device is an output, and reading it would wait for a writer that never comes.
    func regularFileBytes(path: String) -> [UInt8]?

    // queue, webhook, warehouse (issue 54.3)
    /// What `stat` says of `path` (symbolic links followed).
    func status(path: String) throws(SystemError) -> FileStatus
    /// What `fstat` says of an open descriptor (standard input).
    func status(fileDescriptor: Int32) throws(SystemError) -> FileStatus
    /// The whole file at `path`; missing, unreadable or a directory is `inputMissing` (66).
    func readAll(path: String) throws(Failure) -> [UInt8]
    /// Everything left on `fileDescriptor` (standard input); `name` is for errors.
    func readAll(fileDescriptor: Int32, name: String) throws(Failure) -> [UInt8]
    /// One byte of `fileDescriptor` (an answer typed on the terminal); nil at its end.
    func readByte(fileDescriptor: Int32) -> UInt8?
    /// At most the first `count` bytes of the regular file at `path`; nil for anything else
    /// (a pipe, a FIFO, a device, a missing file), which is neither opened nor read.
    func regularFilePrefix(path: String, count: Int) -> [UInt8]?
    /// Calls `body` with each chunk of the file at `path` (constant memory whatever its size);
    /// missing or a directory is `inputMissing` (66).
    func forEachChunk(path: String, _ body: (UnsafeRawBufferPointer) -> Void) throws(Failure)
    /// Calls `body` with each chunk read from `fileDescriptor` until its end.
    func forEachChunk(fileDescriptor: Int32, name: String, _ body: (UnsafeRawBufferPointer) -> Void) throws(Failure)
    /// Creates the directory `path` with `permissions` (`.exists` when it does).
    func makeDirectory(path: String, permissions: UInt32) throws(SystemError)
    /// Sets the permission bits of `path`.
    func setPermissions(path: String, _ permissions: UInt32) throws(SystemError)
    /// Makes the entries of the directory `path` durable (best effort).
    func syncDirectory(path: String)
    /// Opens `path` for appending, creating it with `permissions` and setting them on it
    /// whatever the umask (a replay's journal and dead letters).
    func openForAppending(path: String, permissions: UInt32) throws(SystemError) -> any AppendingFile
    /// Opens a record file for appending as `RecordFile` rules: a symbolic link or anything
    /// but a regular file refused (73) unopened, a new file created 0600.
    func openRecordFile(path: String) throws(Failure) -> any AppendingFile
    /// Creates `path` (`permissions`) if needed and takes an exclusive lock on it without
    /// waiting, held while the returned lock lives; nil when another process holds it.
    func lockExclusively(path: String, permissions: UInt32) throws(SystemError) -> (any HeldFileLock)?
}

extension FileAccess {
    /// The small file a setting names (an API key, a webhook secret), read through the door:
    /// not being able to read it is a fault of the setting (78, `FileReading.settingFailure`).
    public func readSettingFile(_ path: String, holding what: String, hint: String) throws(Failure) -> [UInt8] {
        do {
            return try readAll(path: path)
        } catch {
            throw FileReading.settingFailure(error, holding: what, hint: hint)
        }
    }
}

/// The system's files: `AtomicFile`, `FileStatus`, `FileReading`.
public struct SystemFileAccess: FileAccess {
    public init() {}

    public func checkWritable(path: String) throws(Failure) {
        try AtomicFile.checkWritable(path: path)
    }

    public func replace(path: String, with bytes: [UInt8], timeout: Double?) throws(Failure) {
        try AtomicFile.replace(path: path, with: bytes, timeout: timeout)
    }

    public func regularFileBytes(path: String) -> [UInt8]? {
        guard FileStatus.kind(path: path) == .regular else { return nil }
        return try? FileReading.readAll(path: path)
    }
}
