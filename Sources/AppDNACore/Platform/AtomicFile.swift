/// Replaces a file so that readers (and a crash) see either the old bytes or the new ones,
/// never a mix: write a temporary file in the same directory, fsync it, rename it over the
/// target, fsync the directory. On any failure the temporary file is removed and the old
/// file is untouched.
public enum AtomicFile {
    ///
    /// A symbolic link is followed (its target is replaced, the link stays); a path that is
    /// not a regular file (`/dev/stdout`, `/dev/null`, a FIFO) is written to directly, since
    /// renaming over it would replace the device or pipe itself.
    public static func replace(path requested: String, with bytes: [UInt8]) throws(Failure) {
        var path = requested
        var linkInfo = stat()
        if lstat(requested, &linkInfo) == 0, (linkInfo.st_mode & S_IFMT) == S_IFLNK, let resolved = realpath(requested, nil) {
            path = String(cString: resolved)
            free(resolved)
        }
        var info = stat()
        let existing = stat(path, &info) == 0
        if existing && (info.st_mode & S_IFMT) == S_IFDIR {
            throw Failure(.cannotCreateOutput, "\(requested): is a directory")
        }
        if existing && (info.st_mode & S_IFMT) != S_IFREG {
            try writeInPlace(path: requested, bytes)
            return
        }
        let (directory, name) = split(path)
        // New files get 0644 minus the umask, like any editor; a replaced file keeps its mode.
        let mode: mode_t = existing ? (info.st_mode & 0o7777) : 0o644
        var temporary = ""
        var fd: Int32 = -1
        for attempt in 0..<16 {
            var random: UInt64 = 0
            withUnsafeMutableBytes(of: &random) { arc4randomFill($0) }
            temporary = directory + "/." + name + ".appdna-" + String(getpid()) + "-" + String(random % 1_000_000_000 &+ UInt64(attempt), radix: 36) + ".tmp"
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
            if fd >= 0 || errno != EEXIST { break }
        }
        if fd < 0 {
            let code = errno
            throw Failure(.cannotCreateOutput, "\(path): cannot create a file in \(directory): \(SystemError.describe(code))")
        }
        func fail(_ kind: FailureKind, _ what: String, _ code: Int32) -> Failure {
            if fd >= 0 { close(fd) }
            unlink(temporary)
            return Failure(kind, "\(path): \(what): \(SystemError.describe(code))")
        }
        if existing { _ = fchmod(fd, mode) }
        if let code = bytes.withUnsafeBytes({ FileWriting.writeAll(fd, $0) }) { throw fail(.ioError, "cannot write", code) }
        if fsync(fd) != 0 { throw fail(.ioError, "cannot sync to disk", errno) }
        if close(fd) != 0 { fd = -1; throw fail(.ioError, "cannot write", errno) }
        fd = -1
        if rename(temporary, path) != 0 { throw fail(.cannotCreateOutput, "cannot replace the file", errno) }
        // The rename is durable only once the directory is synced.
        FileWriting.syncDirectory(directory)
    }

    /// Writes to a device or pipe as it is (no temporary file, no rename).
    static func writeInPlace(path: String, _ bytes: [UInt8]) throws(Failure) {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        if fd < 0 { throw Failure(.cannotCreateOutput, "\(path): \(SystemError.describe(errno))") }
        defer { close(fd) }
        try FileWriting.writeAll(fd, bytes, path: path)
    }

    /// ("dir", "name") of a path; "." for a bare name.
    static func split(_ path: String) -> (String, String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }

    /// Fills `buffer` with unpredictable bytes (names of temporary files).
    static func arc4randomFill(_ buffer: UnsafeMutableRawBufferPointer) {
        var generator = SystemRandomNumberGenerator()
        for i in 0..<buffer.count { buffer[i] = UInt8.random(in: 0...255, using: &generator) }
    }
}
