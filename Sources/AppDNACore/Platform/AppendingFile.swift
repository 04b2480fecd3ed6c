/// A file a command appends durable lines to, opened through its `FileAccess` (a replay's
/// journal and dead letters, `webhook listen --record`): whole writes, a sync before a line
/// counts, and a cut back to the size before a write that failed half way, so the file holds
/// whole lines only. Closed when the last reference goes.
public protocol AppendingFile: AnyObject, Sendable {
    var path: String { get }
    /// The size now, nil when it cannot be told.
    func size() -> Int64?
    /// The last byte, nil when the file is empty or cannot be read.
    func lastByte() -> UInt8?
    /// Appends every byte of `bytes` (short writes and EINTR retried); the error otherwise
    /// (ENOSPC for a write that made no progress).
    func append(_ bytes: [UInt8]) -> SystemError?
    /// Makes what was appended durable; the error otherwise.
    func sync() -> SystemError?
    /// Cuts the file back to `size` bytes.
    func truncate(to size: Int64) throws(SystemError)
}

extension AppendingFile {
    /// `append` worded as every durable file of the tool words it: "PATH: cannot write: REASON" (74).
    public func appendAll(_ bytes: [UInt8]) throws(Failure) {
        if let error = append(bytes) { throw Failure(.ioError, "\(path): cannot write: \(error)") }
    }
}

/// An exclusive lock on a file, held until the value goes (a replay's state directory lock).
public protocol HeldFileLock: AnyObject, Sendable {
    /// Replaces the lock file's contents with `bytes` (who holds it: the process id).
    func replaceContents(with bytes: [UInt8]) throws(SystemError)
}

/// A file of the system's open for appending, by its descriptor.
final class SystemAppendingFile: AppendingFile {
    let path: String
    private let fd: Int32

    init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    deinit { SystemFile.close(fd) }

    func size() -> Int64? { try? FileStatus.of(descriptor: fd).size }

    func lastByte() -> UInt8? { FileReading.lastByte(path: path) }

    func append(_ bytes: [UInt8]) -> SystemError? {
        bytes.withUnsafeBytes { FileWriting.writeAll(fd, $0) }.map { SystemError(code: $0) }
    }

    func sync() -> SystemError? { DiskSync.file(fd) == 0 ? nil : .last }

    func truncate(to size: Int64) throws(SystemError) { try SystemFile.truncate(fd, to: size) }
}

/// A lock file of the system's, locked by its descriptor (`flock`, released when it closes).
final class SystemFileLock: HeldFileLock {
    private let fd: Int32

    init(fd: Int32) { self.fd = fd }

    deinit { SystemFile.close(fd) }

    func replaceContents(with bytes: [UInt8]) throws(SystemError) {
        try SystemFile.truncate(fd, to: 0)
        try SystemFile.writeAll(fd, bytes, at: 0)
    }
}
