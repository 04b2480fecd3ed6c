/// Work on a stream of chunks shared out to worker threads, each chunk's result handed back to
/// the calling thread in the order the chunks were made: whatever the caller does with the
/// results (write them, count them) is what one thread doing everything in order would do.
/// The calling thread makes the chunks (reads the input) and consumes the results (writes the
/// output); when the oldest chunk is not taken yet, it does that chunk's work itself rather
/// than wait. At most `slots.count` chunks are in flight: memory is the slots, whatever the
/// input's size. Unlike `ChunkPipeline` (workers `pread` a file), the input may be a pipe.
///
/// Not Sendable: a slot passes between this thread and the workers, one holder at a time, by
/// the chunk numbers in `progress`; the threads are started by `ThreadSpawner`.
public final class OrderedChunkWork<Slot: AnyObject> {
    private let slots: [Slot]
    /// Broadcast whenever it changes.
    private let progress: Locked<Progress>

    /// Chunks made, the next chunk a worker may take, which slots hold a result, and whether
    /// the run is over (workers return).
    private struct Progress {
        var made = 0
        var nextToTake = 0
        var done: [Bool]
        var over = false
    }

    /// `slots` are the chunks' memory, reused in turn (three per worker keep every thread busy).
    public init(slots: [Slot]) {
        precondition(!slots.isEmpty)
        self.slots = slots
        progress = Locked(Progress(done: [Bool](repeating: false, count: slots.count)))
    }

    /// How many worker threads a machine's cores call for: the online processors, at most 4.
    public static var defaultWorkers: Int { ChunkPipeline.defaultWorkers }

    /// Runs to the end of the chunks. `make` fills a free slot on this thread and returns false
    /// when there are no more; `work` runs on a worker thread, or on this one, with a worker
    /// index in `0...workers` (`workers` is this thread: give each index its own scratch state);
    /// `consume` gets each filled slot in order on this thread and returns false to stop early.
    /// An error from `make` stops the run (the workers end first) and is rethrown.
    public func run(workers: Int, make: (Slot) throws(Failure) -> Bool,
                    work: @escaping (Int, Slot) -> Void, consume: (Slot) -> Bool) throws(Failure) {
        var threads: [SpawnedThread] = []
        for index in 0..<max(0, workers) {
            // A thread the system refuses is not fatal: this thread helps with the work anyway.
            guard let thread = ThreadSpawner.trySpawn({ self.workerLoop(index, work) }) else { break }
            threads.append(thread)
        }
        defer {
            progress.withLock { progress in
                progress.over = true
                self.progress.broadcast()
            }
            for thread in threads { thread.join() }
        }
        // Only this thread makes chunks: its count is the one in `progress`.
        var made = 0
        var consumed = 0
        var noMoreInput = false
        while true {
            if !noMoreInput && made - consumed < slots.count {
                if try make(slots[made % slots.count]) {
                    made += 1
                    progress.withLock { progress in
                        progress.made = made
                        self.progress.broadcast()
                    }
                } else {
                    noMoreInput = true
                }
                continue
            }
            if consumed == made { return }
            let index = consumed % slots.count
            // The oldest chunk's result, or the chunk itself when no worker took it yet.
            let mine = progress.withLock(until: { $0.done[index] || $0.nextToTake == consumed }) { progress -> Bool in
                if progress.done[index] {
                    progress.done[index] = false
                    return false
                }
                progress.nextToTake += 1
                return true
            }
            if mine { work(workers, slots[index]) }
            guard consume(slots[index]) else { return }
            consumed += 1
        }
    }

    private func workerLoop(_ worker: Int, _ work: (Int, Slot) -> Void) {
        while true {
            let chunk = progress.withLock(until: { $0.over || $0.nextToTake < $0.made }) { progress -> Int? in
                if progress.over { return nil }
                progress.nextToTake += 1
                return progress.nextToTake - 1
            }
            guard let chunk else { return }
            let index = chunk % slots.count
            work(worker, slots[index])
            progress.withLock { progress in
                progress.done[index] = true
                self.progress.broadcast()
            }
        }
    }
}
