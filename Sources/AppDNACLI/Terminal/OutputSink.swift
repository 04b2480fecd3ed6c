import AppDNACore

/// A buffered writer to a file descriptor (stdout, stderr) or to memory (tests).
///
/// Writes never throw: a command streaming ten million lines into `head` must stop quietly,
/// so the first failure is remembered, later writes are dropped, and loops poll `isBroken`.
/// The runner turns a broken pipe into status 0 and any other write error into 74.
///
/// Safe to use from any thread (replay's workers print retry notes while the main thread draws
/// the progress bar): every method holds the sink's lock, so a line is never torn or lost and
/// the buffer is never appended to by two threads at once.
public final class OutputSink: @unchecked Sendable {
    private let fileDescriptor: Int32?
    private var buffer: [UInt8] = []
    private let flushThreshold: Int
    private let lock = PthreadLock()
    private var capturedBytes: [UInt8] = []
    private var failure: Int32 = 0
    /// Everything written, for sinks that capture (tests).
    public var captured: [UInt8] { lock.locked { capturedBytes } }
    public var failureCode: Int32 { lock.locked { failure } }
    /// Whether output reaches a terminal (decides colour and progress bars).
    public let isTerminal: Bool
    /// Text (not bytes) is written with `TerminalGlyphs`' ASCII forms: set for a terminal whose
    /// locale is not UTF-8 (`Runner`).
    public var asciiGlyphs = false

    /// A sink writing to `fileDescriptor`.
    public init(fileDescriptor: Int32, bufferSize: Int = 64 * 1024) {
        self.fileDescriptor = fileDescriptor
        self.flushThreshold = bufferSize
        self.isTerminal = isatty(fileDescriptor) == 1
        buffer.reserveCapacity(bufferSize + 4096)
    }

    /// A sink that keeps what is written in `captured`.
    public init(capturingAsTerminal isTerminal: Bool = false) {
        self.fileDescriptor = nil
        self.flushThreshold = 1 << 30
        self.isTerminal = isTerminal
    }

    public var isBroken: Bool { failureCode != 0 }
    public var isBrokenPipe: Bool { failureCode == EPIPE }

    public var capturedText: String { String(decoding: captured, as: UTF8.self) }

    /// When the sink writes into a pipe, asks the kernel for a pipe buffer of `bytes` (Linux
    /// F_SETPIPE_SZ; capped by /proc/sys/fs/pipe-max-size, 1 MiB by default): a stream of
    /// megabyte writes then wakes the reader a megabyte at a time instead of every 64 KiB
    /// (`bucket -` into a pipe: 69 voluntary context switches instead of 1,117 for 2M ids).
    /// Anything else (a file, a terminal, another OS, a refusal) is left as it is.
    public func preferLargePipeBuffer(_ bytes: Int32 = 1 << 20) {
        #if os(Linux) // Linux-only tuning: Darwin's pipe buffer size cannot be set
        guard let fd = fileDescriptor else { return }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFIFO else { return }
        _ = fcntl(fd, 1031 /* F_SETPIPE_SZ */, bytes)
        #endif
    }

    public func write(_ text: String) {
        var text = asciiGlyphs ? TerminalGlyphs.asASCII(text) : text
        text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
    }

    public func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    public func write(_ bytes: UnsafeRawBufferPointer) {
        // Controls from bundles and queues are shown escaped on a terminal; the tool's own
        // colour and progress markers become ESC and CR (TerminalText).
        if let rendered = TerminalText.rendered(bytes, terminal: isTerminal) {
            rendered.withUnsafeBytes { raw in lock.locked { append(raw) } }
            return
        }
        lock.locked { append(bytes) }
    }

    /// Appends straight into the buffer; for hot loops that format bytes themselves. `body`
    /// runs under the lock: it must not use the sink itself.
    public func withBuffer(_ body: (inout [UInt8]) -> Void) {
        lock.locked {
            guard failure == 0 else { return }
            if fileDescriptor == nil {
                body(&capturedBytes)
                return
            }
            body(&buffer)
            if buffer.count >= flushThreshold { flushLocked() }
        }
    }

    /// The text and its newline in one step: lines from several threads never interleave.
    public func writeLine(_ text: String = "") {
        var line = text
        line.append("\n")
        write(line)
    }

    public func flush() {
        lock.locked { flushLocked() }
    }

    private func append(_ bytes: UnsafeRawBufferPointer) {
        guard failure == 0 else { return }
        guard fileDescriptor != nil else {
            capturedBytes.append(contentsOf: bytes)
            return
        }
        buffer.append(contentsOf: bytes)
        if buffer.count >= flushThreshold { flushLocked() }
    }

    private func flushLocked() {
        guard let fd = fileDescriptor, !buffer.isEmpty, failure == 0 else {
            buffer.removeAll(keepingCapacity: true)
            return
        }
        buffer.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = systemWrite(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += n
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// `write(2)`, named apart from the sink's own `write` methods.
@inline(__always)
private func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.write(fd, bytes, count)
    #else
    return Darwin.write(fd, bytes, count)
    #endif
}
