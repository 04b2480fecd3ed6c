/// Reading whole files and standard input into memory, with errors that say which file and why.
public enum FileReading {
    /// Reads the file at `path` ("-" is standard input) completely.
    public static func readAll(path: String) throws(Failure) -> [UInt8] {
        if path == "-" { return try readAll(fileDescriptor: 0, name: "standard input") }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            let code = errno
            throw Failure(.inputMissing, "\(path): \(SystemError.describe(code))")
        }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            throw Failure(.inputMissing, "\(path): is a directory")
        }
        return try readAll(fileDescriptor: fd, name: path, sizeHint: Int(info.st_size))
    }

    /// Reads `fileDescriptor` to its end. `sizeHint` (a regular file's size) avoids regrowing.
    public static func readAll(fileDescriptor fd: Int32, name: String, sizeHint: Int = 0) throws(Failure) -> [UInt8] {
        var buffer = [UInt8]()
        buffer.reserveCapacity(max(sizeHint + 1, 64 * 1024))
        let chunk = 256 * 1024
        var failure: Int32 = 0
        while true {
            let before = buffer.count
            var got = 0
            buffer.append(contentsOf: repeatElement(0, count: chunk))
            buffer.withUnsafeMutableBytes { raw in
                while true {
                    let n = read(fd, raw.baseAddress! + before, chunk)
                    if n < 0 && errno == EINTR { continue }
                    if n < 0 { failure = errno }
                    got = max(n, 0)
                    break
                }
            }
            buffer.removeLast(chunk - got)
            if failure != 0 { throw Failure(.ioError, "\(name): \(SystemError.describe(failure))") }
            if got == 0 { return buffer }
        }
    }
}

/// Words for `errno` values, the way `strerror` says them.
public enum SystemError {
    public static func describe(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        let message = String(cString: text)
        // Lower-case the first letter so it reads well after "path: ".
        guard let first = message.first else { return message }
        return first.lowercased() + message.dropFirst()
    }
}
