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
        self.isTerminal = SystemFile.isTerminal(fileDescriptor)
        buffer.reserveCapacity(bufferSize + 4096)
    }

    /// A sink that keeps what is written in `captured`.
    public init(capturingAsTerminal isTerminal: Bool = false) {
        self.fileDescriptor = nil
        self.flushThreshold = 1 << 30
        self.isTerminal = isTerminal
    }

    public var isBroken: Bool { failureCode != 0 }
    public var isBrokenPipe: Bool { failureCode == SystemError.brokenPipe.code }

    public var capturedText: String { String(decoding: captured, as: UTF8.self) }

    /// When the sink writes into a pipe, asks for a 1 MiB pipe buffer on Linux
    /// (`SystemFile.preferLargePipeBuffer`: fewer wake-ups of the reader).
    public func preferLargePipeBuffer(_ bytes: Int32 = 1 << 20) {
        guard let fd = fileDescriptor else { return }
        SystemFile.preferLargePipeBuffer(fd, bytes: bytes)
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
        if let code = buffer.withUnsafeBytes({ FileWriting.writeAll(fd, $0) }) { failure = code }
        buffer.removeAll(keepingCapacity: true)
    }
}
