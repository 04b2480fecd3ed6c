import AppDNACore

/// A buffered writer to a file descriptor (stdout, stderr) or to memory (tests).
///
/// Two kinds of writes: text for a person (`write(_: String)`, `writeLine`, `writeRow`), in
/// which data is escaped whatever the output is (`TerminalText`, `VisibleText`), and machine
/// formats that escape their own data (`writeVerbatim`, `write(_: [UInt8])`), written as they are.
///
/// Writes never throw: a command streaming ten million lines into `head` must stop quietly,
/// so the first failure is remembered, later writes are dropped, and loops poll `isBroken`.
/// The runner turns a broken pipe into status 0 and any other write error into 74.
///
/// Safe to use from any thread (replay's workers print retry notes while the main thread draws
/// the progress bar): every method holds the sink's lock, so a line is never torn or lost and
/// the buffer is never appended to by two threads at once.
public final class OutputSink: Sendable {
    private let fileDescriptor: Int32?
    private let flushThreshold: Int
    /// Everything a write changes, behind the sink's one lock.
    private let state: Locked<State>

    private struct State {
        var buffer: [UInt8] = []
        var capturedBytes: [UInt8] = []
        var failure: Int32 = 0
        /// Where the text written so far left the line (a CI command is looked for at its start).
        var lineState = TerminalText.LineState()
        var asciiOnly = false
    }

    /// Everything written, for sinks that capture (tests).
    public var captured: [UInt8] { state.withLock { $0.capturedBytes } }
    public var failureCode: Int32 { state.withLock { $0.failure } }
    /// Whether output reaches a terminal (decides colour and progress bars).
    public let isTerminal: Bool
    /// Text is written in ASCII: the tool's glyphs in their ASCII forms (`TerminalGlyphs`) and
    /// every other non-ASCII character escaped (`\u00E9`). Set when the locale says it is not
    /// UTF-8 (`Runner`), terminal or not; machine formats are left as they are.
    public var asciiOnly: Bool {
        get { state.withLock { $0.asciiOnly } }
        set { state.withLock { $0.asciiOnly = newValue } }
    }

    /// A sink writing to `fileDescriptor`.
    public init(fileDescriptor: Int32, bufferSize: Int = 64 * 1024) {
        self.fileDescriptor = fileDescriptor
        self.flushThreshold = bufferSize
        self.isTerminal = SystemFile.isTerminal(fileDescriptor)
        var state = State()
        state.buffer.reserveCapacity(bufferSize + 4096)
        self.state = Locked(state)
    }

    /// A sink that keeps what is written in `captured`.
    public init(capturingAsTerminal isTerminal: Bool = false) {
        self.fileDescriptor = nil
        self.flushThreshold = 1 << 30
        self.isTerminal = isTerminal
        state = Locked(State())
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

    // MARK: - Human-readable text: data in it is shown escaped (TerminalText)

    /// Text for a person: every control, bidi and marker character in it is escaped
    /// (`VisibleText`), the tool's colour markers become colours, and a line cannot start as a
    /// CI log command. Terminal or not: a pipe into a CI log is read by a machine that obeys.
    public func write(_ text: String) {
        writeText(text, lineEnds: false)
    }

    /// The text and its newline in one step: lines from several threads never interleave. The
    /// newline is the only raw line feed: one inside `text` is data, written `\n`.
    public func writeLine(_ text: String = "") {
        writeText(text, lineEnds: true)
    }

    /// One row of a tab-separated listing (`queue inspect --events`): each cell is text as in
    /// `write` (a tab inside a cell is written `\t`); the tabs between cells are the tool's.
    public func writeRow(_ cells: [String]) {
        state.withLock { state in
            var out: [UInt8] = []
            for (index, cell) in cells.enumerated() {
                if index > 0 { out.append(9) }
                render(cell, into: &out, lineEnds: index == cells.count - 1, &state)
            }
            out.append(10)
            state.lineState.atLineStart = true
            out.withUnsafeBytes { append($0, &state) }
        }
    }

    /// Text the tool wrote itself, with line breaks of its own (help): its line feeds are kept,
    /// everything else is written as by `write`. Never for text that holds data.
    public func writeToolText(_ text: String) {
        write(text.replacing("\n", with: TerminalText.newline))
    }

    private func writeText(_ text: String, lineEnds: Bool) {
        state.withLock { state in
            var out: [UInt8] = []
            render(text, into: &out, lineEnds: lineEnds, &state)
            if lineEnds {
                out.append(10)
                state.lineState.atLineStart = true
            }
            out.withUnsafeBytes { append($0, &state) }
        }
    }

    /// Called with the lock held (`state` is the sink's).
    private func render(_ text: String, into out: inout [UInt8], lineEnds: Bool, _ state: inout State) {
        let asciiOnly = state.asciiOnly
        var text = asciiOnly ? TerminalGlyphs.asASCII(text) : text
        text.withUTF8 { raw in
            out.reserveCapacity(out.count + raw.count + 1)
            TerminalText.render(UnsafeRawBufferPointer(raw), into: &out, state: &state.lineState, asciiOnly: asciiOnly, lineEnds: lineEnds)
        }
    }

    // MARK: - Machine formats: written as they are

    /// A machine format that escapes its own data (JSON, NDJSON, TSV, CSV, SQL, `--format
    /// github`, generated code, a completion script): written byte for byte, in any locale.
    public func writeVerbatim(_ text: String) {
        var text = text
        text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
    }

    /// `writeVerbatim` and a newline, in one step.
    public func writeVerbatimLine(_ text: String) {
        var line = text
        line.append("\n")
        writeVerbatim(line)
    }

    /// Bytes of a machine format, written as they are.
    public func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Bytes of a machine format, written as they are.
    public func write(_ bytes: UnsafeRawBufferPointer) {
        state.withLock { state in
            append(bytes, &state)
            if let last = bytes.last { state.lineState.atLineStart = last == 10 }
        }
    }

    public func flush() {
        state.withLock { flushLocked(&$0) }
    }

    /// Called with the lock held (`state` is the sink's).
    private func append(_ bytes: UnsafeRawBufferPointer, _ state: inout State) {
        guard state.failure == 0 else { return }
        guard fileDescriptor != nil else {
            state.capturedBytes.append(contentsOf: bytes)
            return
        }
        if bytes.count >= flushThreshold {
            // A block as large as the buffer (the batch's rows, a chunk at a time) goes out
            // as it is: copying it into the buffer first cost the batch's writer a tenth of its time.
            flushLocked(&state)
            guard state.failure == 0, let fd = fileDescriptor else { return }
            if let code = FileWriting.writeAll(fd, bytes) { state.failure = code }
            return
        }
        state.buffer.append(contentsOf: bytes)
        if state.buffer.count >= flushThreshold { flushLocked(&state) }
    }

    /// Called with the lock held (`state` is the sink's).
    private func flushLocked(_ state: inout State) {
        guard let fd = fileDescriptor, !state.buffer.isEmpty, state.failure == 0 else {
            state.buffer.removeAll(keepingCapacity: true)
            return
        }
        if let code = state.buffer.withUnsafeBytes({ FileWriting.writeAll(fd, $0) }) { state.failure = code }
        state.buffer.removeAll(keepingCapacity: true)
    }
}
