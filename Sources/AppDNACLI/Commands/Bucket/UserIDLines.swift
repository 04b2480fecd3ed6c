import AppDNACore

/// User ids from stdin, one per line, read the one way every batch mode of `bucket` shares:
/// blank and CR-only lines (spreadsheet exports end with them) are skipped with a note; lines
/// that are not UTF-8, or longer than `maxLineLength` (no user id is: a stray file), are skipped
/// and reported, and make the status 65. Memory stays flat whatever the input.
struct UserIDLines {
    /// The longest user id read (64 KiB): a longer line is skipped unread, so a gigabyte
    /// without a newline costs no more memory than a short line.
    static let maxLineLength = 64 * 1024

    private(set) var invalid = SkippedLines()
    private(set) var oversized = SkippedLines()
    private(set) var blank = SkippedLines()

    /// Calls `body` with each id's bytes and line number; `body` returns false to stop.
    /// `keepGoing` says whether to go on after a skipped line (false once stdout is broken).
    mutating func forEachID(_ invocation: Invocation, keepGoing: () -> Bool,
                            _ body: (UnsafeRawBufferPointer, Int) -> Bool) throws {
        try LineReader(fileDescriptor: invocation.io.stdinDescriptor, maxLineLength: Self.maxLineLength).forEachLine { line, number in
            switch Self.kind(of: line) {
            case .id: return body(line, number)
            case .blank:
                blank.add(number)
                return true
            case .invalid:
                invalid.add(number)
                return keepGoing()
            case .oversized:
                oversized.add(number)
                return true
            }
        } oversized: { number, _ in
            oversized.add(number)
            return true
        }
    }

    enum Kind { case id, blank, invalid, oversized }

    /// What a line (without its line end) is to the batch: an id, or skipped for a reason.
    @inline(__always)
    static func kind(of line: UnsafeRawBufferPointer) -> Kind {
        if line.count > maxLineLength { return .oversized }
        if line.isEmpty || (line[0] == 13 && line.allSatisfy { $0 == 13 }) { return .blank }
        return BucketBatch.isValidUTF8(line) ? .id : .invalid
    }

    /// Adds the skipped lines of one chunk of the input, whose first line is line `first`.
    mutating func add(_ chunk: ChunkTally, firstLine first: Int) {
        invalid.add(chunk.invalid, after: first - 1)
        oversized.add(chunk.oversized, after: first - 1)
        blank.add(chunk.blank, after: first - 1)
    }

    /// One chunk's lines: how many, and which were skipped, numbered from 1 in the chunk.
    struct ChunkTally {
        var lines = 0
        var invalid = SkippedLines()
        var oversized = SkippedLines()
        var blank = SkippedLines()

        /// Counts one line known to be an id (a plain one: `PlainLines`).
        @inline(__always)
        mutating func countID() { lines &+= 1 }

        /// Counts one line of the chunk; true when it is an id.
        @inline(__always)
        mutating func count(_ kind: Kind) -> Bool {
            lines += 1
            switch kind {
            case .id: return true
            case .blank: blank.add(lines)
            case .invalid: invalid.add(lines)
            case .oversized: oversized.add(lines)
            }
            return false
        }
    }

    /// The stderr lines for what was skipped, and the status: 65 when an id could not be read.
    func report(_ invocation: Invocation) -> ExitStatus {
        if blank.count > 0 {
            invocation.note("appdna: standard input: \(blank.describe("blank line(s) were skipped"))")
        }
        let stderr = invocation.io.stderr
        if invalid.count > 0 {
            stderr.writeLine("appdna: standard input: \(invalid.describe("line(s) are not valid UTF-8 and were skipped"))")
        }
        if oversized.count > 0 {
            stderr.writeLine("appdna: standard input: \(oversized.describe("line(s) are longer than \(Self.maxLineLength) bytes (no user id is) and were skipped"))")
        }
        return invalid.count + oversized.count > 0 ? .malformedInput : .success
    }

    /// Lines skipped for one reason: how many, and the first few numbers for the message.
    struct SkippedLines {
        private(set) var count = 0
        private var first: [Int] = []

        mutating func add(_ number: Int) {
            count += 1
            if first.count < 5 { first.append(number) }
        }

        /// Adds lines skipped in a later part of the input, numbered from 1 there.
        mutating func add(_ later: SkippedLines, after offset: Int) {
            count += later.count
            for number in later.first where first.count < 5 { first.append(offset + number) }
        }

        func describe(_ what: String) -> String {
            "\(count) \(what) (line \(first.map(String.init).joined(separator: ", "))\(count > 5 ? ", …" : ""))"
        }
    }
}
