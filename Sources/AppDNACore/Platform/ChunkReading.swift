#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Streams a file descriptor in fixed-size chunks: constant memory whatever the input's size
/// (a 256 MB webhook body is hashed while it is read, never held).
public enum ChunkReading {
    /// Calls `body` with each chunk read from `fd` until end of input. `name` is for errors.
    public static func forEachChunk(
        fileDescriptor fd: Int32, name: String, chunkSize: Int = 1 << 20,
        _ body: (UnsafeRawBufferPointer) -> Void
    ) throws(Failure) {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunkSize, alignment: 64)
        defer { buffer.deallocate() }
        while true {
            let n = read(fd, buffer, chunkSize)
            if n < 0 {
                let code = errno
                if code == EINTR { continue }
                throw Failure(.ioError, "\(name): \(SystemError.describe(code))")
            }
            if n == 0 { return }
            body(UnsafeRawBufferPointer(start: buffer, count: n))
        }
    }

    /// Opens `path` for reading ("-" is not handled here), with the errors `FileReading` gives.
    public static func open(path: String) throws(Failure) -> Int32 {
        let fd: Int32
        do { fd = try SystemFile.open(path, .read) } catch { throw Failure(.inputMissing, "\(path): \(error)") }
        if (try? FileStatus.of(descriptor: fd))?.kind == .directory {
            SystemFile.close(fd)
            throw Failure(.inputMissing, "\(path): is a directory")
        }
        return fd
    }
}
