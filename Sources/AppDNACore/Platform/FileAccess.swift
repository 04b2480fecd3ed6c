/// The one door every file a command touches goes through (issue 54.3), injected beside its
/// clock and its transport (`CommandIO.files`), as SwiftPM passes a `FileSystem` value: the
/// binary passes the system's (`SystemFileAccess`); a test passes one of its own, so a
/// command's file behaviour (what it reads, what it writes and reads back, what it does when a
/// write is refused) runs in process and is observed without touching the disk. No file call
/// under Commands/ goes around it (`CommandFileDoorTests`).
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

    // What is there
    /// What is at `path` (`followingLinks: false` looks at a symbolic link itself, `lstat`: a
    /// state file or a discovery directory that is a link is refused, not followed);
    /// `SystemError.notFound` when nothing is, another error when it cannot be looked at.
    func status(path: String, followingLinks: Bool) throws(SystemError) -> FileStatus
    /// The names in `directory`, "." and ".." left out; nil when it cannot be read.
    func entries(of directory: String) -> [String]?

    // Reading
    /// Every byte of the file at `path`, read to its end (a FIFO too; "-" names a file, not
    /// standard input): missing, unreadable or a directory is `inputMissing` (66) as
    /// "PATH: why", a read that fails `ioError` (74). A bundle, a state file, a key file.
    func readAll(path: String) throws(Failure) -> [UInt8]
    /// The whole of a regular file of at most `limit` bytes, else nil, opened without
    /// following a final symbolic link or waiting on a FIFO (`FileReading.smallRegularFile`):
    /// for directories others may have put things in (the discovery files).
    func smallRegularFile(path: String, limit: Int) -> [UInt8]?

    // Making and removing
    /// Whether this process may create files in the directory `path`; why not, when not.
    func checkCanCreateFiles(inDirectory path: String) throws(SystemError)
    /// Makes the directory `path` with `permissions` less the umask; `SystemError.exists`
    /// when something is there already.
    func makeDirectory(_ path: String, permissions: UInt32) throws(SystemError)
    /// Sets the permission bits of `path` exactly.
    func setPermissions(_ path: String, _ permissions: UInt32) throws(SystemError)
    /// Removes the file `path`; whether it was there to remove.
    func removeFile(path: String) -> Bool
    /// `path` opened to append records to (`RecordFile`: a regular file only, never through a
    /// symbolic link, a new one 0600; 73 otherwise): `--record` of both servers, the replay journal.
    func openForAppending(path: String) throws(Failure) -> any AppendingFile
}

extension FileAccess {
    /// What is at `path`, links followed: `status(path:followingLinks:)`'s kind.
    public func kind(path: String) throws(SystemError) -> FileStatus.Kind {
        try status(path: path, followingLinks: true).kind
    }

    /// The small file a setting names (an API key): not being able to read it is the
    /// setting's fault (78), worded as `FileReading.readSettingFile` words it.
    public func readSetting(path: String, holding what: String, hint: String) throws(Failure) -> [UInt8] {
        do {
            return try readAll(path: path)
        } catch {
            throw Failure(.configuration, "cannot read \(what): \(error.message)", hint: hint)
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

/// The system's files: `AtomicFile`, `FileStatus`, `FileReading`, `FileSystem`.
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

    public func status(path: String, followingLinks: Bool) throws(SystemError) -> FileStatus {
        followingLinks ? try FileStatus.of(path: path) : try FileStatus.ofLink(path: path)
    }

    public func entries(of directory: String) -> [String]? {
        FileSystem.entries(of: directory)
    }

    public func readAll(path: String) throws(Failure) -> [UInt8] {
        // FileReading takes "-" for standard input: here it is a file of that name.
        try FileReading.readAll(path: path == "-" ? "./-" : path)
    }

    public func smallRegularFile(path: String, limit: Int) -> [UInt8]? {
        FileReading.smallRegularFile(path: path, limit: limit)
    }

    public func checkCanCreateFiles(inDirectory path: String) throws(SystemError) {
        try FileSystem.checkCanCreateFiles(in: path)
    }

    public func makeDirectory(_ path: String, permissions: UInt32) throws(SystemError) {
        try FileSystem.makeDirectory(path, permissions: permissions)
    }

    public func setPermissions(_ path: String, _ permissions: UInt32) throws(SystemError) {
        try FileSystem.setPermissions(path, permissions)
    }

    public func removeFile(path: String) -> Bool {
        FileSystem.removeFile(path)
    }

    public func openForAppending(path: String) throws(Failure) -> any AppendingFile {
        try SystemAppendingFile(path: path)
    }
}
