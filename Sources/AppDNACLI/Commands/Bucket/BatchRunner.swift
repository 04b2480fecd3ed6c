import AppDNACore

/// `bucket -`'s loop over the user ids on stdin, on one thread or on every core with the same
/// output. On one thread (`APPDNA_THREADS=1`, or a one-core machine) ids are read line by line
/// (`UserIDLines`) and rows handed to stdout a megabyte at a time. Otherwise stdin is read in
/// chunks of whole lines (`LineChunkReader`), worker threads turn each chunk into its rows and
/// skipped-line counts, and this thread writes the chunks' rows and adds up their counts in
/// input order (`OrderedChunkWork`): the same bytes on stdout and stderr as one thread gives,
/// in bounded memory (a few chunks in flight).
enum BatchRunner {
    /// The environment variable that sets the number of worker threads.
    static let threadsVariable = "APPDNA_THREADS"
    static let maxThreads = 64

    /// What was read, and the per-thread rows (their counts, for `--summary`).
    struct Outcome<Rows> {
        var lines: UserIDLines
        var rows: [Rows]
    }

    /// Worker threads: `APPDNA_THREADS`, else one per core (at most 4). 1: all on this thread.
    static func threads(_ invocation: Invocation) throws -> Int {
        guard let text = invocation.io.environment[threadsVariable], !text.isEmpty else {
            return OrderedChunkWork<LineChunk>.defaultWorkers
        }
        guard let value = Int(text), (1...maxThreads).contains(value) else {
            throw Failure(.usage, "\(threadsVariable) is '\(text)': give a whole number of threads from 1 to \(maxThreads)")
        }
        return value
    }

    /// Calls `makeRows` once per thread, feeds every id to one of them and writes their rows to
    /// stdout in input order. `chunkSize`: bytes of input per chunk (smaller when a line makes
    /// many rows, so a chunk's rows stay a few megabytes).
    static func run<Rows: BatchRows>(_ invocation: Invocation, chunkSize: Int, makeRows: () -> Rows) throws -> Outcome<Rows> {
        let threads = try threads(invocation)
        if threads <= 1 { return try sequential(invocation, rows: makeRows()) }
        return try parallel(invocation, workers: threads, chunkSize: chunkSize, makeRows: makeRows)
    }

    private static func sequential<Rows: BatchRows>(_ invocation: Invocation, rows: Rows) throws -> Outcome<Rows> {
        let out = invocation.stdout
        var rows = rows
        var buffer = RawByteBuffer(capacity: BucketBatch.flushSize + 64 * 1024)
        defer { buffer.free() }
        var lines = UserIDLines()
        // Whether stdout failed (a closed pipe ends the loop), read after each hand-over only:
        // asking the sink on every line costs more than the rest of a row.
        var broken = out.isBroken
        try lines.forEachID(invocation, keepGoing: { !broken }) { line, _ in
            rows.take(line, into: &buffer)
            if buffer.count >= BucketBatch.flushSize {
                out.write(buffer.bytes)
                buffer.count = 0
                broken = out.isBroken
            }
            return !broken
        }
        if buffer.count > 0 { out.write(buffer.bytes) }
        return Outcome(lines: lines, rows: [rows])
    }

    /// One chunk of input and what a worker made of it.
    private final class Slot {
        let chunk = LineChunk()
        var output = RawByteBuffer(capacity: 64 * 1024)
        var tally = UserIDLines.ChunkTally()
        deinit { output.free() }
    }

    /// One thread's rows (a class: each thread changes only its own).
    private final class ThreadRows<Rows> {
        var rows: Rows
        init(_ rows: Rows) { self.rows = rows }
    }

    /// A line that is not a plain id (`PlainLines`): judged as one thread judges it. Out of the
    /// chunk's loop, which then stays small enough to keep in registers.
    @inline(never)
    private static func takeOther<Rows: BatchRows>(_ line: UnsafeRawBufferPointer, rows: inout Rows, output: inout RawByteBuffer,
                                                   tally: inout UserIDLines.ChunkTally) {
        if tally.count(UserIDLines.kind(of: line)) { rows.take(line, into: &output) }
    }

    private static func parallel<Rows: BatchRows>(_ invocation: Invocation, workers: Int, chunkSize: Int, makeRows: () -> Rows) throws -> Outcome<Rows> {
        let out = invocation.stdout
        // Index `workers` is this thread's (it works on a chunk when no worker has taken it).
        let perThread = (0...workers).map { _ in ThreadRows(makeRows()) }
        var reader = LineChunkReader(fileDescriptor: invocation.io.stdinDescriptor, chunkSize: chunkSize, maxLineLength: UserIDLines.maxLineLength)
        defer { reader.free() }
        let work = OrderedChunkWork(slots: (0..<(2 * workers + 2)).map { _ in Slot() })
        var lines = UserIDLines()
        var nextLine = 1
        try work.run(workers: workers, make: { slot throws(Failure) in
            try reader.next(into: slot.chunk)
        }, work: { thread, slot in
            var rows = perThread[thread].rows
            var output = slot.output
            output.count = 0
            var tally = UserIDLines.ChunkTally()
            var lines = PlainLines(slot.chunk.lines)
            while let (line, plain) = lines.next() {
                if plain && line.count <= UserIDLines.maxLineLength {
                    tally.countID()
                    rows.takePlain(line, into: &output)
                } else {
                    takeOther(line, rows: &rows, output: &output, tally: &tally)
                }
            }
            if slot.chunk.overlongLineLength != nil { _ = tally.count(.oversized) }
            perThread[thread].rows = rows
            slot.output = output
            slot.tally = tally
        }, consume: { slot in
            if slot.output.count > 0 { out.write(slot.output.bytes) }
            lines.add(slot.tally, firstLine: nextLine)
            nextLine += slot.tally.lines
            return !out.isBroken
        })
        return Outcome(lines: lines, rows: perThread.map(\.rows))
    }
}
