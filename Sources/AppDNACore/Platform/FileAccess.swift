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

    // api serve, api override (issue 54.3)
    /// The whole of `path`, failing as `FileReading.readAll` fails (66 when there is no such
    /// file): `api serve`'s bundle file and its `--state` file, a `--key-file`.
    func readAll(path: String) throws(Failure) -> [UInt8]
    /// What `path` is, nil when nothing can be looked at there; `followingLinks: false` looks
    /// at a symbolic link itself (`lstat`): a state file or a discovery directory that is a
    /// link is refused, not followed.
    func status(path: String, followingLinks: Bool) -> FileStatus?
    /// The whole of a regular file of at most `limit` bytes, else nil, opened without
    /// following a final symbolic link or waiting on a FIFO (`FileReading.smallRegularFile`):
    /// for directories others may have put things in (the discovery files).
    func smallRegularFile(path: String, limit: Int) -> [UInt8]?
    /// Makes the directory `path` with exactly `permissions`, whatever the umask; when it
    /// cannot be made, 73 with the system's reason as the message (the caller names the path).
    func makeDirectory(path: String, permissions: UInt32) throws(Failure)
    /// The names in `directory`, "." and ".." left out; nil when it cannot be read.
    func entries(of directory: String) -> [String]?
    /// Removes the file `path`; whether it was there to remove.
    func removeFile(path: String) -> Bool
    /// `path` opened to append records to (`RecordFile`: a regular file only, never through a
    /// symbolic link, a new one 0600; 73 otherwise): `api serve --record`.
    func openForAppending(path: String) throws(Failure) -> any AppendingFile
}

// api serve, api override (issue 54.3)
extension FileAccess {
    /// The small file a setting names (an API key): not being able to read it is the
    /// setting's fault (78), worded as `FileReading.readSettingFile` words it.
    public func readSetting(path: String, holding what: String, hint: String) throws(Failure) -> [UInt8] {
        do {
            return try readAll(path: path)
        } catch {
            throw Failure(.configuration, "cannot read \(what): \(error.message)", hint: hint)
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

    // api serve, api override (issue 54.3)
    public func readAll(path: String) throws(Failure) -> [UInt8] {
        try FileReading.readAll(path: path)
    }

    public func status(path: String, followingLinks: Bool) -> FileStatus? {
        followingLinks ? try? FileStatus.of(path: path) : try? FileStatus.ofLink(path: path)
    }

    public func smallRegularFile(path: String, limit: Int) -> [UInt8]? {
        FileReading.smallRegularFile(path: path, limit: limit)
    }

    public func makeDirectory(path: String, permissions: UInt32) throws(Failure) {
        do {
            try FileSystem.makeDirectory(path, permissions: permissions)
            // The umask took bits away: the chmod makes the mode exact.
            try FileSystem.setPermissions(path, permissions)
        } catch {
            throw Failure(.cannotCreateOutput, error.description)
        }
    }

    public func entries(of directory: String) -> [String]? {
        FileSystem.entries(of: directory)
    }

    public func removeFile(path: String) -> Bool {
        FileSystem.removeFile(path)
    }

    public func openForAppending(path: String) throws(Failure) -> any AppendingFile {
        try SystemAppendingFile(path: path)
    }
}
