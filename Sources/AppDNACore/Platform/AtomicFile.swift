#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Replaces a file so that readers (and a crash) see either the old bytes or the new ones,
/// never a mix: write a temporary file in the same directory, fsync it, rename it over the
/// target, fsync the directory. On any failure the temporary file is removed and the old
/// file is untouched.
public enum AtomicFile {
    ///
    /// A symbolic link is followed (its target is replaced, the link stays), also when the
    /// target does not exist yet: it is created if its directory exists, otherwise nothing is
    /// touched (73). A path that is not a regular file (`/dev/stdout`, `/dev/null`, a FIFO) is
    /// written to directly, since renaming over it would replace the device or pipe itself;
    /// that write never waits past `timeout` seconds (a FIFO nobody reads), nil = no bound.
    /// Whether `replace` could write `requested`, checked before the work that produces the
    /// bytes (a download): the directory it would create the file in exists and is writable,
    /// and the path is not a directory. Same failures and wording as `replace` (73).
    public static func checkWritable(path requested: String) throws(Failure) {
        let path = try followingLinks(requested)
        var info = stat()
        if stat(path, &info) == 0 {
            if (info.st_mode & S_IFMT) == S_IFDIR { throw Failure(.cannotCreateOutput, "\(requested): is a directory") }
            // A device or FIFO is written in place; a regular file is replaced from its directory.
            if (info.st_mode & S_IFMT) != S_IFREG { return }
        }
        let (directory, _) = split(path)
        var directoryInfo = stat()
        var code: Int32 = 0
        if stat(directory, &directoryInfo) != 0 {
            code = errno
        } else if (directoryInfo.st_mode & S_IFMT) != S_IFDIR {
            code = ENOTDIR
        } else if access(directory, W_OK | X_OK) != 0 {
            code = errno
        }
        if code != 0 { throw cannotCreate(path, in: directory, code) }
    }

    public static func replace(path requested: String, with bytes: [UInt8], timeout: Double? = nil) throws(Failure) {
        let path = try followingLinks(requested)
        var info = stat()
        let existing = stat(path, &info) == 0
        if existing && (info.st_mode & S_IFMT) == S_IFDIR {
            throw Failure(.cannotCreateOutput, "\(requested): is a directory")
        }
        if existing && (info.st_mode & S_IFMT) != S_IFREG {
            try writeInPlace(path: requested, bytes, timeout: timeout)
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
        if fd < 0 { throw cannotCreate(path, in: directory, errno) }
        func fail(_ kind: FailureKind, _ what: String, _ code: Int32) -> Failure {
            if fd >= 0 { close(fd) }
            unlink(temporary)
            return Failure(kind, "\(path): \(what): \(SystemError.describe(code))")
        }
        if existing { _ = fchmod(fd, mode) }
        if let code = bytes.withUnsafeBytes({ FileWriting.writeAll(fd, $0) }) { throw fail(.ioError, "cannot write", code) }
        if DiskSync.file(fd) != 0 { throw fail(.ioError, "cannot sync to disk", errno) }
        if close(fd) != 0 { fd = -1; throw fail(.ioError, "cannot write", errno) }
        fd = -1
        if rename(temporary, path) != 0 { throw fail(.cannotCreateOutput, "cannot replace the file", errno) }
        // The rename is durable only once the directory is synced.
        FileWriting.syncDirectory(directory)
    }

    /// The 73 of a file that cannot be created in `directory`, with what to do when the
    /// directory is missing (outputs never create directories: a typo would scatter them).
    private static func cannotCreate(_ path: String, in directory: String, _ code: Int32) -> Failure {
        Failure(.cannotCreateOutput, "\(path): cannot create a file in \(directory): \(SystemError.describe(code))",
                hint: directoryHint(for: path, code))
    }

    /// What to do when creating `path` failed with `code` because of its directory (missing,
    /// or not a directory), else nil: one wording for every output a command creates (these
    /// writes, and `--record`'s file).
    static func directoryHint(for path: String, _ code: Int32) -> String? {
        let (directory, _) = split(path)
        return code == ENOENT ? "the directory \(directory) does not exist; create it first (mkdir -p \(ShellWord.quoted(directory)))"
            : code == ENOTDIR ? "\(directory) is not a directory; write to a path inside a directory" : nil
    }

    /// Where writing `requested` must go: itself, or the end of its chain of symbolic links
    /// (which may not exist yet: a dangling link is followed, not replaced).
    static func followingLinks(_ requested: String) throws(Failure) -> String {
        var path = requested
        for _ in 0..<40 {
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { return path }
            var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink(path, &target, target.count - 1)
            guard length > 0 else { return path }
            let text = String(decoding: target[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            path = text.hasPrefix("/") ? text : split(path).0 + "/" + text
            var targetInfo = stat()
            if lstat(path, &targetInfo) != 0 {
                // The link dangles: create its target, if its directory exists.
                let directory = split(path).0
                var directoryInfo = stat()
                guard stat(directory, &directoryInfo) == 0, (directoryInfo.st_mode & S_IFMT) == S_IFDIR else {
                    throw Failure(.cannotCreateOutput, "\(requested) is a symbolic link to \(path), whose directory \(directory) does not exist; the link was left as it is",
                                  hint: "create \(directory), or remove the link to write a plain file")
                }
                return path
            }
        }
        throw Failure(.cannotCreateOutput, "\(requested): too many levels of symbolic links")
    }

    /// Writes to a device or pipe as it is (no temporary file, no rename). Opened without
    /// blocking and written with `poll`, so a FIFO without a reader (or one that stops
    /// reading) fails after `timeout` seconds instead of hanging the command.
    static func writeInPlace(path: String, _ bytes: [UInt8], timeout: Double?) throws(Failure) {
        let end = monotonicSeconds() + (timeout ?? Double.infinity)
        func timedOut() -> Failure {
            Failure(.temporary, "\(path): nothing read it before the time limit ran out; not written",
                    remedy: .fifoReader, settingFact: .outputNotReadInTime(path: path))
        }
        var fd: Int32 = -1
        while fd < 0 {
            fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            if fd >= 0 { break }
            let code = errno
            guard code == ENXIO || code == EINTR else { throw Failure(.cannotCreateOutput, "\(path): \(SystemError.describe(code))") }
            // ENXIO: a FIFO with no reader yet. Look again shortly, until the deadline.
            if monotonicSeconds() >= end { throw timedOut() }
            SystemTime.sleep(0.02)
        }
        defer { close(fd) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, bytes.count - written) }
            if n > 0 { written += n; continue }
            let code = n < 0 ? errno : ENOSPC
            if code == EINTR { continue }
            guard code == EAGAIN || code == EWOULDBLOCK else { throw Failure(.ioError, "\(path): cannot write: \(SystemError.describe(code))") }
            let left = end - monotonicSeconds()
            if left <= 0 { throw timedOut() }
            var ready = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            _ = poll(&ready, 1, Int32(min(left * 1000, 1000).rounded(.up)))
        }
    }

    static func monotonicSeconds() -> Double {
        Double(SystemTime.monotonicNanoseconds()) / 1e9
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
