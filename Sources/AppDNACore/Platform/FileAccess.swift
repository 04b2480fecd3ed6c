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

    // bundle, codegen, completions (issue 54.3)
    /// What is at `path`, symbolic links followed; `SystemError.notFound` when nothing is, another
    /// error when it cannot be looked at (a directory on the way that may not be searched).
    func kind(path: String) throws(SystemError) -> FileStatus.Kind
    /// Every byte of the file at `path`, read to its end (a FIFO too; "-" names a file, not
    /// standard input): missing, unreadable or a directory is `inputMissing` (66) as
    /// "PATH: why", a read that fails `ioError` (74).
    func readAll(path: String) throws(Failure) -> [UInt8]
    /// Whether this process may create files in the directory `path`; why not, when not.
    func checkCanCreateFiles(inDirectory path: String) throws(SystemError)
    /// Makes the directory `path` with `permissions` (less the umask); `SystemError.exists`
    /// when something is there already.
    func makeDirectory(_ path: String, permissions: UInt32) throws(SystemError)
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
}

// bundle, codegen, completions (issue 54.3)
extension SystemFileAccess {
    public func kind(path: String) throws(SystemError) -> FileStatus.Kind {
        try FileStatus.of(path: path).kind
    }

    public func readAll(path: String) throws(Failure) -> [UInt8] {
        // FileReading takes "-" for standard input: here it is a file of that name.
        try FileReading.readAll(path: path == "-" ? "./-" : path)
    }

    public func checkCanCreateFiles(inDirectory path: String) throws(SystemError) {
        try FileSystem.checkCanCreateFiles(in: path)
    }

    public func makeDirectory(_ path: String, permissions: UInt32) throws(SystemError) {
        try FileSystem.makeDirectory(path, permissions: permissions)
    }
}
