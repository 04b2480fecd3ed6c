#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writing to file descriptors the way every durable file of the tool needs it: all the bytes
/// (short writes and EINTR retried), and directory syncs that make a new name durable.
public enum FileWriting {
    /// Writes every byte of `bytes` to `fd`. On failure returns the errno (ENOSPC for a write
    /// that made no progress), so the caller can word the error for its own file.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        var written = 0
        while written < bytes.count {
            let n = write(fd, bytes.baseAddress! + written, bytes.count - written)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return n < 0 ? errno : ENOSPC }
            written += n
        }
        return nil
    }

    /// `writeAll` with the usual message: "PATH: cannot write: REASON" (status 74).
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(Failure) {
        if let code = bytes.withUnsafeBytes({ writeAll(fd, $0) }) {
            throw Failure(.ioError, "\(path): cannot write: \(SystemError.describe(code))")
        }
    }

    /// fsyncs a directory, so that a file created or renamed in it survives a crash. Best
    /// effort: a rename that already happened cannot be undone if this fails.
    public static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            _ = DiskSync.directory(fd)
            close(fd)
        }
    }
}
