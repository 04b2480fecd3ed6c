/// The one door every file a command touches goes through (issue 54.3), injected beside its
/// clock and its transport (`CommandIO.files`), as SwiftPM passes a `FileSystem` value: the
/// binary passes the system's (`SystemFileAccess`); a test passes one of its own, so a
/// command's file behaviour (what it reads, what it writes and reads back, what it does when a
/// write is refused) runs in process and is observed without touching the disk. No file call
/// under Commands/ goes around it (`CommandFileDoorTests`); the libraries a command hands it
/// to (the replay journal, the servers' `--state` and `--record`, the discovery files) use it too.
public protocol FileAccess: Sendable {
    // Output files
    /// Whether `replace` could write `path`, checked before the work that produces the bytes;
    /// a refusal is `cannotCreateOutput` (73), worded as `replace` words it.
    func checkWritable(path: String) throws(Failure)
    /// Replaces `path` with `bytes` so that readers see the old bytes or the new ones, never
    /// a mix; a write that cannot finish within `timeout` seconds fails (nil = no bound).
    func replace(path: String, with bytes: [UInt8], timeout: Double?) throws(Failure)
    /// The bytes of `path` when it is a regular file that can be read, else nil: a FIFO or a
    /// device is an output, and reading it would wait for a writer that never comes.
    func regularFileBytes(path: String) -> [UInt8]?

    // What is there
    /// What is at `path` (`followingLinks: false` looks at a symbolic link itself, `lstat`: a
    /// state file or a discovery directory that is a link is refused, not followed);
    /// `SystemError.notFound` when nothing is, another error when it cannot be looked at.
    func status(path: String, followingLinks: Bool) throws(SystemError) -> FileStatus
    /// What `fstat` says of an open descriptor (standard input).
    func status(fileDescriptor: Int32) throws(SystemError) -> FileStatus
    /// The names in `directory`, "." and ".." left out; nil when it cannot be read.
    func entries(of directory: String) -> [String]?

    // Reading
    /// Every byte of the file at `path`, read to its end (a FIFO too; "-" names a file, not
    /// standard input): missing, unreadable or a directory is `inputMissing` (66) as
    /// "PATH: why", a read that fails `ioError` (74). A bundle, a state file, a key file.
    func readAll(path: String) throws(Failure) -> [UInt8]
    /// Everything left on `fileDescriptor` (standard input); `name` is for errors.
    func readAll(fileDescriptor: Int32, name: String) throws(Failure) -> [UInt8]
    /// One byte of `fileDescriptor` (an answer typed on the terminal); nil at its end.
    func readByte(fileDescriptor: Int32) -> UInt8?
    /// At most the first `count` bytes of the regular file at `path`; nil for anything else
    /// (a pipe, a FIFO, a device, a missing file), which is neither opened nor read.
    func regularFilePrefix(path: String, count: Int) -> [UInt8]?
    /// The whole of a regular file of at most `limit` bytes, else nil, opened without
    /// following a final symbolic link or waiting on a FIFO (`FileReading.smallRegularFile`):
    /// for directories others may have put things in (the discovery files).
    func smallRegularFile(path: String, limit: Int) -> [UInt8]?
    /// Calls `body` with each chunk of the file at `path` (constant memory whatever its size);
    /// missing or a directory is `inputMissing` (66).
    func forEachChunk(path: String, _ body: (UnsafeRawBufferPointer) -> Void) throws(Failure)
    /// Calls `body` with each chunk read from `fileDescriptor` until its end.
    func forEachChunk(fileDescriptor: Int32, name: String, _ body: (UnsafeRawBufferPointer) -> Void) throws(Failure)

    // Making, changing, removing
    /// Whether this process may create files in the directory `path`; why not, when not.
    func checkCanCreateFiles(inDirectory path: String) throws(SystemError)
    /// Makes the directory `path` with `permissions` less the umask; `SystemError.exists`
    /// when something is there already.
    func makeDirectory(_ path: String, permissions: UInt32) throws(SystemError)
    /// Sets the permission bits of `path` exactly.
    func setPermissions(_ path: String, _ permissions: UInt32) throws(SystemError)
    /// Makes the entries of the directory `path` durable (best effort).
    func syncDirectory(path: String)
    /// Removes the file `path`; whether it was there to remove.
    func removeFile(path: String) -> Bool
    /// Opens `path` for appending, creating it with `permissions` and setting them on it
    /// whatever the umask (a replay's journal and dead letters).
    func openForAppending(path: String, permissions: UInt32) throws(SystemError) -> any AppendingFile
    /// Opens a record file for appending as `RecordFile` rules: a symbolic link or anything
    /// but a regular file refused (73) unopened, a new file created 0600 (`--record` of both servers).
    func openRecordFile(path: String) throws(Failure) -> any AppendingFile
    /// Creates `path` (`permissions`) if needed and takes an exclusive lock on it without
    /// waiting, held while the returned lock lives; nil when another process holds it.
    func lockExclusively(path: String, permissions: UInt32) throws(SystemError) -> (any HeldFileLock)?
}

/// The most bytes a file holding one setting (an API key, a webhook secret) may have.
public let settingFileLimit = 64 * 1024

extension FileAccess {
    /// What `stat` says of `path`, symbolic links followed.
    public func status(path: String) throws(SystemError) -> FileStatus {
        try status(path: path, followingLinks: true)
    }

    /// What is at `path`, links followed.
    public func kind(path: String) throws(SystemError) -> FileStatus.Kind {
        try status(path: path, followingLinks: true).kind
    }

    /// The small file a setting names (an API key, a webhook secret), read through the door:
    /// not being able to read it is a fault of the setting (78, `FileReading.settingFailure`).
    public func readSettingFile(_ path: String, holding what: String, hint: String) throws(Failure) -> [UInt8] {
        do throws(Failure) {
            // A setting's file holds one short value: a device (/dev/zero) would be read until
            // memory ran out, and a huge file is not a key; a pipe (`<(pass show key)`) is read
            // as it comes.
            if let status = try? self.status(path: path, followingLinks: true) {
                switch status.kind {
                case .regular where status.size > settingFileLimit:
                    throw Failure(.inputMissing, "\(path) is \(status.size) bytes; a file that holds one setting is at most \(settingFileLimit)")
                case .regular, .fifo: break
                default: throw Failure(.inputMissing, "\(path) is \(status.kindName), not a file")
                }
            }
            return try readAll(path: path)
        } catch {
            throw FileReading.settingFailure(error, holding: what, hint: hint)
        }
    }

    /// Makes the directory `path` with exactly `permissions`, whatever the umask (a private
    /// directory: the discovery files'); when it cannot be made, 73 with the system's reason
    /// as the message (the caller names the path).
    public func makePrivateDirectory(path: String, permissions: UInt32) throws(Failure) {
        do {
            try makeDirectory(path, permissions: permissions)
            // The umask took bits away: the chmod makes the mode exact.
            try setPermissions(path, permissions)
        } catch {
            throw Failure(.cannotCreateOutput, error.description)
        }
    }
}
