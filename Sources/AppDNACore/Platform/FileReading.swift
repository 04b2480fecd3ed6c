#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading whole files and standard input into memory, with errors that say which file and why.
public enum FileReading {
    /// The file's last byte, read alone (a file may be huge); nil when the file cannot be
    /// opened or read, or is empty. Appenders check it before adding a line.
    public static func lastByte(path: String) -> UInt8? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size > 0 else { return nil }
        var byte: UInt8 = 0
        return pread(fd, &byte, 1, info.st_size - 1) == 1 ? byte : nil
    }

    /// At most the first `count` bytes of the regular file at `path`, read without moving
    /// anything: nil for anything else (a pipe, a FIFO, a device, a missing file), which is
    /// neither opened nor read, so a pipe is left whole for whoever reads it next.
    public static func regularFilePrefix(path: String, count: Int) -> [UInt8]? {
        guard count > 0, (try? FileStatus.of(path: path))?.kind == .regular,
              let fd = try? SystemFile.open(path, [.read, .nonBlocking]) else { return nil }
        defer { SystemFile.close(fd) }
        guard (try? FileStatus.of(descriptor: fd))?.kind == .regular else { return nil }
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = buffer.withUnsafeMutableBytes { raw in
                (try? SystemFile.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...]), at: Int64(filled))) ?? -1
            }
            if n < 0 { return nil }
            if n == 0 { break }
            filled += n
        }
        return Array(buffer[..<filled])
    }

    /// The whole of a small regular file, or nil: the last component is not followed when it
    /// is a symbolic link (O_NOFOLLOW), a FIFO does not block the open (O_NONBLOCK), and
    /// anything but a regular file of at most `limit` bytes is closed unread. For files in a
    /// directory others may have put things in (a FIFO, a link to /dev/zero, a huge file).
    public static func smallRegularFile(path: String, limit: Int) -> [UInt8]? {
        guard let fd = try? SystemFile.open(path, [.read, .noFollow, .nonBlocking]) else { return nil }
        defer { SystemFile.close(fd) }
        guard let status = try? FileStatus.of(descriptor: fd), status.kind == .regular, status.size <= Int64(limit) else { return nil }
        var buffer = [UInt8](repeating: 0, count: limit + 1)
        var filled = 0
        while filled < buffer.count {
            let n = buffer.withUnsafeMutableBytes { raw in
                (try? SystemFile.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...]), at: Int64(filled))) ?? -1
            }
            if n < 0 { return nil }
            if n == 0 { break }
            filled += n
        }
        return filled > limit ? nil : Array(buffer[..<filled])  // grew past the limit since fstat
    }

    /// Reads the file at `path` ("-" is standard input) completely.
    public static func readAll(path: String) throws(Failure) -> [UInt8] {
        if path == "-" { return try readAll(fileDescriptor: 0, name: "standard input") }
        let file = try openForReading(path)
        defer { close(file.descriptor) }
        return try readAll(fileDescriptor: file.descriptor, name: path, sizeHint: file.size)
    }

    /// Reads the small file a setting names (an API key, a webhook secret, CA certificates).
    /// Not being able to read it is a fault of the setting, so the failure is `.configuration`:
    /// "[`setting`: ]cannot read `what`: why", with `hint` on what the setting should name.
    public static func readSettingFile(_ path: String, holding what: String, setting: String? = nil,
                                       hint: String) throws(Failure) -> [UInt8] {
        do {
            return try readAll(path: path)
        } catch {
            throw settingFailure(error, holding: what, setting: setting, hint: hint)
        }
    }

    /// How a setting's unreadable file is worded (`readSettingFile`, and `FileAccess`'s).
    public static func settingFailure(_ error: Failure, holding what: String, setting: String? = nil, hint: String) -> Failure {
        Failure(.configuration, "\(setting.map { "\($0): " } ?? "")cannot read \(what): \(error.message)", hint: hint)
    }

    /// An input file opened for reading, with what `fstat` says of it.
    public struct OpenedFile {
        public let descriptor: Int32
        /// The size of a regular file (0 for pipes and devices).
        public let size: Int
        public let isRegular: Bool
    }

    /// Opens `path` for reading; a missing, unreadable file or a directory is `.inputMissing`
    /// (status 66) with the reason in words. The caller closes the descriptor.
    public static func openForReading(_ path: String) throws(Failure) -> OpenedFile {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            let code = errno
            throw Failure(.inputMissing, "\(path): \(SystemError.describe(code))")
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw Failure(.inputMissing, "\(path): \(SystemError.describe(code))")
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw Failure(.inputMissing, "\(path): is a directory")
        }
        let isRegular = (info.st_mode & S_IFMT) == S_IFREG
        return OpenedFile(descriptor: fd, size: isRegular ? Int(info.st_size) : 0, isRegular: isRegular)
    }

    /// Reads `fileDescriptor` to its end. `sizeHint` (a regular file's size) sizes the buffer
    /// so that a large file is read in place, without the copy a regrowing buffer makes: peak
    /// memory stays at the file's size.
    public static func readAll(fileDescriptor fd: Int32, name: String, sizeHint: Int = 0) throws(Failure) -> [UInt8] {
        var capacity = max(sizeHint + 1, 64 * 1024)
        var filled = 0
        var failure: Int32 = 0
        var buffer = [UInt8](unsafeUninitializedCapacity: capacity) { raw, count in
            HugePages.advise(UnsafeMutableRawPointer(raw.baseAddress!), count: capacity)
            if sizeHint >= parallelReadBytes && ProcessControl.processorCount > 1 {
                filled = readInTwo(fd, into: raw.baseAddress!, count: sizeHint, failure: &failure)
                // Read on from there (pread moved no file offset); nothing more is expected.
                if failure == 0 && lseek(fd, off_t(filled), SEEK_SET) < 0 { failure = errno }
            }
            while failure == 0 {
                if filled == capacity { break }
                let n = read(fd, raw.baseAddress! + filled, capacity - filled)
                if n < 0 && errno == EINTR { continue }
                if n < 0 { failure = errno }
                if n <= 0 { break }
                filled += n
            }
            count = filled
        }
        if failure != 0 { throw Failure(.ioError, "\(name): \(SystemError.describe(failure))") }
        // Grew past the hint (a pipe, or a file that is still being written): read the rest in chunks.
        while filled == capacity {
            capacity *= 2
            buffer.reserveCapacity(capacity)
            let chunk = capacity - filled
            buffer.append(contentsOf: [UInt8](repeating: 0, count: chunk))  // not `repeatElement`: see LineReader
            let got = buffer.withUnsafeMutableBytes { raw -> Int in
                var got = 0
                while got < chunk {
                    let n = read(fd, raw.baseAddress! + filled + got, chunk - got)
                    if n < 0 && errno == EINTR { continue }
                    if n < 0 { failure = errno }
                    if n <= 0 { break }
                    got += n
                }
                return got
            }
            buffer.removeLast(chunk - got)
            filled += got
            if failure != 0 { throw Failure(.ioError, "\(name): \(SystemError.describe(failure))") }
        }
        return buffer
    }

    /// Files from this size are read by two threads (see `readInTwo`).
    static let parallelReadBytes = 8 << 20

    /// Reads the first `count` bytes of a regular file with two threads, one per half: reading
    /// is copying out of the page cache into pages the kernel first has to clear, and one core
    /// does that at about 2 GB/s here (a fifth of `bundle validate`'s time on a 40 MB bundle).
    /// Returns how many bytes from the start were read; a file that shrank meanwhile gives
    /// what was there. 0, with nothing read, when no thread could be started.
    private static func readInTwo(_ fd: Int32, into base: UnsafeMutablePointer<UInt8>, count: Int, failure: inout Int32) -> Int {
        // Split where a huge page of the buffer starts, so each thread faults in pages of its own.
        let middle = Int(bitPattern: base) + count / 2
        let half = min(max(middle / HugePages.size * HugePages.size - Int(bitPattern: base), 1), count - 1)
        // What the second thread read, handed back over `join`.
        let second = Locked((got: 0, failure: Int32(0)))
        guard let worker = ThreadSpawner.trySpawn({
            var failure: Int32 = 0
            let got = readFully(fd, into: base + half, count: count - half, at: half, failure: &failure)
            second.withLock { $0 = (got, failure) }
        }) else { return 0 }
        let got = readFully(fd, into: base, count: half, at: 0, failure: &failure)
        worker.join()
        if failure != 0 || got < half { return got }
        let (secondGot, secondFailure) = second.withLock { $0 }
        failure = secondFailure
        return half + secondGot
    }

    /// `pread` until `count` bytes are in, the file ends or reading fails (`failure` set).
    private static func readFully(_ fd: Int32, into base: UnsafeMutablePointer<UInt8>, count: Int, at offset: Int, failure: inout Int32) -> Int {
        var got = 0
        while got < count {
            do throws(SystemError) {
                let n = try SystemFile.read(fd, into: UnsafeMutableRawBufferPointer(start: base + got, count: count - got), at: Int64(offset + got))
                if n == 0 { break }
                got += n
            } catch {
                failure = error.code
                break
            }
        }
        return got
    }
}
