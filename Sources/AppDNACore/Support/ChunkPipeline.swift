/// Reads a file in fixed-size chunks of whole lines on worker threads and hands each chunk's
/// result to the calling thread strictly in file order, so whatever the caller computes from
/// them is exactly what one sequential pass would give. Memory is bounded: at most `slotCount`
/// chunks (each one chunk plus the longest line that starts in it) are in flight.
///
/// A chunk owns the lines that start in its byte range; it reads on past its end to finish
/// its last line.
///
/// Not Sendable: the slots pass between this thread and the workers, one holder at a time,
/// by the chunk numbers in `progress` (a slot is its worker's until `ready` says its chunk,
/// then the caller's until `consumed` passes it); the threads are started by `ThreadSpawner`.
final class ChunkPipeline {
    /// One chunk's lines and what a worker made of them.
    final class Slot {
        var buffer: UnsafeMutableRawPointer
        var capacity: Int
        /// The chunk's lines are `buffer[regionStart..<regionEnd]`; `buffer[0]` is at file
        /// offset `fileOffset`.
        var regionStart = 0, regionEnd = 0
        var fileOffset = 0
        var failure: Int32 = 0
        /// Per-use results (only one of them is used by a given pipeline).
        var records: [QueueLineRecord] = []
        var hits: [(offset: Int, line: [UInt8])] = []
        /// With an exposure audit: each record's verdicts, judged on the worker.
        var audits: [ExposureAudit.LineResult?] = []
        /// The chunk's last line when it is longer than `maxLineLength`: left out of the
        /// region (never held whole), known by its file offset and length.
        var oversizedLine: (fileOffset: Int, length: Int)? = nil

        init(capacity: Int) {
            self.capacity = capacity
            buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 64)
        }

        deinit { buffer.deallocate() }

        func reserve(_ count: Int) {
            guard count > capacity else { return }
            var bigger = capacity
            while bigger < count { bigger *= 2 }
            let fresh = UnsafeMutableRawPointer.allocate(byteCount: bigger, alignment: 64)
            fresh.copyMemory(from: buffer, byteCount: capacity)
            buffer.deallocate()
            buffer = fresh
            capacity = bigger
        }

        var region: UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(start: buffer + regionStart, count: regionEnd - regionStart)
        }
    }

    let fd: Int32
    let size: Int
    let chunkSize: Int
    let chunkCount: Int
    let workerCount: Int
    /// Lines longer than this are not read into a slot (see `Slot.oversizedLine`). Chunks are
    /// smaller than any cap used, so only a chunk's last line can be that long.
    let maxLineLength: Int
    let slots: [Slot]
    /// Work on a filled slot: worker index, slot.
    let work: (Int, Slot) -> Void
    /// Which chunk's result each slot holds, how far the caller has consumed, whether the run
    /// ended; broadcast whenever one changes.
    private let progress: Locked<Progress>

    private struct Progress {
        /// By slot: the chunk whose result it holds; -1 while free or being filled.
        var ready: [Int]
        var consumed = 0
        var aborted = false
    }

    init(fd: Int32, size: Int, workers: Int, chunkSize: Int = 1 << 20, maxLineLength: Int = .max, work: @escaping (Int, Slot) -> Void) {
        self.fd = fd
        self.size = size
        self.chunkSize = chunkSize
        self.maxLineLength = maxLineLength
        chunkCount = (size + chunkSize - 1) / chunkSize
        workerCount = max(1, workers)
        slots = (0..<(workerCount * 3)).map { _ in Slot(capacity: chunkSize + 64 * 1024) }
        progress = Locked(Progress(ready: [Int](repeating: -1, count: slots.count)))
        self.work = work
    }

    /// How many workers to use: the online processors, at most 4.
    static var defaultWorkers: Int {
        min(ProcessControl.processorCount, 4)
    }

    /// Runs the workers; calls `consume` with each chunk's slot in file order. A read error
    /// stops everything and is returned (errno).
    func run(_ consume: (Slot) -> Void) -> Int32 {
        var threads: [SpawnedThread] = []
        var hasThread = [Bool](repeating: false, count: workerCount)
        for w in 0..<workerCount {
            // No thread: this worker's chunks are done here, one at a time, below.
            guard let thread = ThreadSpawner.trySpawn({ self.workerLoop(w) }) else { continue }
            threads.append(thread)
            hasThread[w] = true
        }
        var failure: Int32 = 0
        for c in 0..<chunkCount {
            let index = c % slots.count
            let slot = slots[index]
            if !hasThread[c % workerCount] {
                fill(slot, chunk: c)
                if slot.failure == 0 { work(c % workerCount, slot) }
                progress.withLock { $0.ready[index] = c }
            }
            progress.withLock(until: { $0.ready[index] == c }) { _ in }
            if slot.failure != 0 {
                failure = slot.failure
                break
            }
            consume(slot)
            progress.withLock { progress in
                progress.ready[index] = -1
                progress.consumed = c + 1
                self.progress.broadcast()
            }
        }
        progress.withLock { progress in
            progress.aborted = true
            self.progress.broadcast()
        }
        for thread in threads { thread.join() }
        return failure
    }

    private func workerLoop(_ w: Int) {
        var c = w
        while c < chunkCount {
            let index = c % slots.count
            let slot = slots[index]
            let stop = progress.withLock(until: { $0.aborted || c - $0.consumed < slots.count }) { $0.aborted }
            if stop { return }
            fill(slot, chunk: c)
            if slot.failure == 0 { work(w, slot) }
            progress.withLock { progress in
                progress.ready[index] = c
                self.progress.broadcast()
            }
            if slot.failure != 0 { return }
            c += workerCount
        }
    }

    /// Reads chunk `c`'s lines into `slot`.
    private func fill(_ slot: Slot, chunk c: Int) {
        slot.failure = 0
        slot.oversizedLine = nil
        let lo = c * chunkSize, hi = min(lo + chunkSize, size)
        let readStart = c == 0 ? 0 : lo - 1
        slot.fileOffset = readStart
        slot.reserve(hi - readStart)
        var filled = 0
        guard readFully(slot, at: readStart, count: hi - readStart, filled: &filled), filled == hi - readStart else {
            if slot.failure == 0 { slot.failure = SystemError.inputOutput.code }
            return
        }
        // The first line that starts in [lo, hi).
        var start = 0
        if c > 0 {
            guard let newline = RawMemory.firstIndex(of: 10, in: slot.buffer, count: filled) else {
                slot.regionStart = filled; slot.regionEnd = filled
                return
            }
            start = newline - slot.buffer + 1
        }
        slot.regionStart = start
        guard start < filled else {
            slot.regionEnd = filled
            return
        }
        // Finish the last line past `hi`.
        if hi == size || slot.buffer.load(fromByteOffset: filled - 1, as: UInt8.self) == 10 {
            slot.regionEnd = filled
            return
        }
        var lastLineStart = filled
        while lastLineStart > start && slot.buffer.load(fromByteOffset: lastLineStart - 1, as: UInt8.self) != 10 { lastLineStart -= 1 }
        while true {
            let before = filled
            slot.reserve(filled + 64 * 1024)
            guard readFully(slot, at: readStart + filled, count: min(64 * 1024, size - (readStart + filled)), filled: &filled) else { return }
            if filled == before {
                slot.regionEnd = filled
                return
            }
            if let newline = RawMemory.firstIndex(of: 10, in: slot.buffer + before, count: filled - before) {
                slot.regionEnd = newline - slot.buffer + 1
                let length = slot.regionEnd - 1 - lastLineStart
                let carriageReturn = length > 0 && slot.buffer.load(fromByteOffset: slot.regionEnd - 2, as: UInt8.self) == 13
                if length - (carriageReturn ? 1 : 0) > maxLineLength { leaveOut(lastLineStart, length: length, of: slot) }
                return
            }
            // One byte of slack: a `\r` that the `\n` may yet follow is not counted.
            if filled - lastLineStart - 1 > maxLineLength {
                // Too long to hold: measure the rest of the line in the same 64 KiB, then leave it out.
                var length = filled - lastLineStart
                while true {
                    var scratchEnd = lastLineStart
                    let offset = readStart + lastLineStart + length
                    guard readFully(slot, at: offset, count: min(64 * 1024, size - offset), filled: &scratchEnd) else { return }
                    let got = scratchEnd - lastLineStart
                    if got == 0 { break }
                    if let newline = RawMemory.firstIndex(of: 10, in: slot.buffer + lastLineStart, count: got) {
                        length += newline - (slot.buffer + lastLineStart)
                        break
                    }
                    length += got
                }
                leaveOut(lastLineStart, length: length, of: slot)
                return
            }
        }
    }

    /// Ends the region before the over-long line at `start` and records that line instead.
    private func leaveOut(_ start: Int, length: Int, of slot: Slot) {
        var trimmed = length
        let end = slot.fileOffset + start + length
        // As lines are split everywhere: a `\r` before the `\n` is not part of the line.
        if trimmed > 0, SystemFile.readByte(fd, at: Int64(end - 1)) == 13 { trimmed -= 1 }
        slot.regionEnd = start
        slot.oversizedLine = (slot.fileOffset + start, trimmed)
    }

    private func readFully(_ slot: Slot, at offset: Int, count: Int, filled: inout Int) -> Bool {
        var got = 0
        while got < count {
            let n: Int
            do {
                n = try SystemFile.read(fd, into: UnsafeMutableRawBufferPointer(start: slot.buffer + filled, count: count - got), at: Int64(offset + got))
            } catch {
                slot.failure = error.code
                return false
            }
            if n == 0 { break }
            got += n
            filled += n
        }
        return true
    }

    /// Calls `body` with each line of `region` (without `\n` and a `\r` before it) and the
    /// line's offset in the region, the way `LineReader` splits lines.
    @inline(__always)
    static func forEachLine(_ region: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer, Int) -> Void) {
        LineChunk.forEachLine(region, body)
    }
}
