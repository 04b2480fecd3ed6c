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
        let fd = openForReading(path)
        if fd < 0 {
            let code = errno
            throw Failure(.inputMissing, "\(path): \(SystemError.describe(code))")
        }
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw Failure(.inputMissing, "\(path): is a directory")
        }
        return fd
    }
}

/// `open(2)`, named apart from `ChunkReading.open`.
private func openForReading(_ path: String) -> Int32 {
    #if canImport(Glibc)
    return Glibc.open(path, O_RDONLY | O_CLOEXEC)
    #elseif canImport(Musl)
    return Musl.open(path, O_RDONLY | O_CLOEXEC)
    #else
    return Darwin.open(path, O_RDONLY | O_CLOEXEC)
    #endif
}
