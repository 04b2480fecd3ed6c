#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Open files by descriptor: opening (always close-on-exec), reading and writing with EINTR
/// retried, positioned I/O, locks, permissions and what a descriptor is connected to.
public enum SystemFile {
    /// How `open` opens: the access, and what happens when the file exists or not.
    public struct Mode: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let read = Mode(rawValue: 1)
        public static let write = Mode(rawValue: 2)
        public static let create = Mode(rawValue: 4)
        /// With `create`: fail with `.exists` when it does.
        public static let exclusive = Mode(rawValue: 8)
        public static let append = Mode(rawValue: 16)
        public static let truncate = Mode(rawValue: 32)
        public static let nonBlocking = Mode(rawValue: 64)
        /// Fail with `.symbolicLinkLoop` when the last component is a symbolic link, instead
        /// of opening (and writing to) what it points to.
        public static let noFollow = Mode(rawValue: 128)

        var flags: Int32 {
            var flags: Int32 = contains([.read, .write]) ? O_RDWR : contains(.write) ? O_WRONLY : O_RDONLY
            if contains(.create) { flags |= O_CREAT }
            if contains(.exclusive) { flags |= O_EXCL }
            if contains(.append) { flags |= O_APPEND }
            if contains(.truncate) { flags |= O_TRUNC }
            if contains(.nonBlocking) { flags |= O_NONBLOCK }
            if contains(.noFollow) { flags |= O_NOFOLLOW }
            return flags | O_CLOEXEC
        }
    }

    /// `open`; a created file gets `permissions` minus the umask.
    public static func open(_ path: String, _ mode: Mode, permissions: UInt32 = 0o644) throws(SystemError) -> Int32 {
        #if canImport(Glibc)
        let fd = Glibc.open(path, mode.flags, mode_t(permissions))
        #elseif canImport(Musl)
        let fd = Musl.open(path, mode.flags, mode_t(permissions))
        #elseif canImport(Darwin)
        let fd = Darwin.open(path, mode.flags, mode_t(permissions))
        #endif
        guard fd >= 0 else { throw .last }
        return fd
    }

    /// `close`; false when it reported an error (a delayed write failure on some file systems).
    @discardableResult
    public static func close(_ fd: Int32) -> Bool {
        #if canImport(Glibc)
        return Glibc.close(fd) == 0
        #elseif canImport(Musl)
        return Musl.close(fd) == 0
        #elseif canImport(Darwin)
        return Darwin.close(fd) == 0
        #endif
    }

    /// One `read` into `buffer` (EINTR retried); 0 at the end of the input.
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        try retryingInterrupts {
            #if canImport(Glibc)
            Glibc.read(fd, buffer.baseAddress, buffer.count)
            #elseif canImport(Musl)
            Musl.read(fd, buffer.baseAddress, buffer.count)
            #elseif canImport(Darwin)
            Darwin.read(fd, buffer.baseAddress, buffer.count)
            #endif
        }
    }

    /// One `pread` at `offset` (EINTR retried); fewer bytes than asked for at the end of the file.
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(SystemError) -> Int {
        try retryingInterrupts { pread(fd, buffer.baseAddress, buffer.count, off_t(offset)) }
    }

    /// `read` into the start of `buffer`: the bytes read, 0 at the end of the input.
    public static func read(_ fd: Int32, into buffer: inout [UInt8]) throws(SystemError) -> Int {
        var failure: SystemError?
        let n = buffer.withUnsafeMutableBytes { raw -> Int in
            do throws(SystemError) { return try read(fd, into: raw) } catch { failure = error; return 0 }
        }
        if let failure { throw failure }
        return n
    }

    /// `pread` into the start of `buffer` at `offset`.
    public static func read(_ fd: Int32, into buffer: inout [UInt8], at offset: Int64) throws(SystemError) -> Int {
        var failure: SystemError?
        let n = buffer.withUnsafeMutableBytes { raw -> Int in
            do throws(SystemError) { return try read(fd, into: raw, at: offset) } catch { failure = error; return 0 }
        }
        if let failure { throw failure }
        return n
    }

    /// One byte (`read`, or `pread` at `offset`); nil at the end of the input or on an error.
    public static func readByte(_ fd: Int32, at offset: Int64? = nil) -> UInt8? {
        var byte: UInt8 = 0
        let n = withUnsafeMutableBytes(of: &byte) { raw -> Int in
            if let offset { return (try? read(fd, into: raw, at: offset)) ?? 0 }
            return (try? read(fd, into: raw)) ?? 0
        }
        return n == 1 ? byte : nil
    }

    /// One `write` (EINTR retried): the number of bytes written, maybe fewer than given.
    public static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemError) -> Int {
        try retryingInterrupts {
            #if canImport(Glibc)
            Glibc.write(fd, bytes.baseAddress, bytes.count)
            #elseif canImport(Musl)
            Musl.write(fd, bytes.baseAddress, bytes.count)
            #elseif canImport(Darwin)
            Darwin.write(fd, bytes.baseAddress, bytes.count)
            #endif
        }
    }

    /// Runs a read or write call again while a signal handler interrupted it (EINTR); its
    /// result, or the error it failed with.
    private static func retryingInterrupts(_ call: () -> Int) throws(SystemError) -> Int {
        while true {
            let n = call()
            if n >= 0 { return n }
            if errno != EINTR { throw .last }
        }
    }

    /// Writes all of `bytes` at `offset` (`pwrite`, short writes and EINTR retried).
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(SystemError) {
        var written = 0
        while written < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + written, bytes.count - written, off_t(offset) + off_t(written))
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw .last }
            if n == 0 { throw .noSpace }
            written += n
        }
    }

    /// Writes all of `bytes` at `offset`.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8], at offset: Int64) throws(SystemError) {
        var failure: SystemError?
        bytes.withUnsafeBytes { raw in
            do throws(SystemError) { try writeAll(fd, raw, at: offset) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// `ftruncate`.
    public static func truncate(_ fd: Int32, to size: Int64) throws(SystemError) {
        guard ftruncate(fd, off_t(size)) == 0 else { throw .last }
    }

    /// An exclusive `flock` on the whole file, held until it is closed; without `wait`, a lock
    /// another process holds fails at once with `.wouldBlock`.
    public static func lockExclusively(_ fd: Int32, wait: Bool) throws(SystemError) {
        while flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) != 0 {
            if errno != EINTR { throw .last }
        }
    }

    /// `fchmod`.
    public static func setPermissions(_ fd: Int32, _ permissions: UInt32) throws(SystemError) {
        guard fchmod(fd, mode_t(permissions)) == 0 else { throw .last }
    }

    /// Whether `fd` is a terminal (`isatty`).
    public static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// Sets or clears `O_NONBLOCK`.
    public static func setNonBlocking(_ fd: Int32, _ on: Bool) {
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0 else { return }
        _ = fcntl(fd, F_SETFL, on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK)
    }

    /// Close-on-exec for a descriptor made without it (a pipe, an accepted socket).
    public static func setCloseOnExec(_ fd: Int32) {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }

    /// A pipe, both ends close-on-exec; the write end non-blocking when asked.
    public static func makePipe(nonBlockingWrites: Bool) throws(SystemError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw .last }
        for end in ends { setCloseOnExec(end) }
        if nonBlockingWrites { setNonBlocking(ends[1], true) }
        return (ends[0], ends[1])
    }

    /// When `fd` is a pipe, asks the kernel for a pipe buffer of `bytes` (Linux F_SETPIPE_SZ;
    /// capped by /proc/sys/fs/pipe-max-size, 1 MiB by default): a stream of megabyte writes then
    /// wakes the reader a megabyte at a time instead of every 64 KiB (`bucket -` into a pipe:
    /// 69 voluntary context switches instead of 1,117 for 2M ids). Anything else (a file, a
    /// terminal, another OS, a refusal) is left as it is.
    public static func preferLargePipeBuffer(_ fd: Int32, bytes: Int32) {
        #if os(Linux) // Linux-only tuning: Darwin's pipe buffer size cannot be set
        guard (try? FileStatus.of(descriptor: fd))?.kind == .fifo else { return }
        _ = fcntl(fd, 1031 /* F_SETPIPE_SZ */, bytes)
        #endif
    }
}
