import AppDNACore

/// The connections of `HTTPServer` that its accept loop polls: every connection whose request
/// is still arriving (head or body), between keep-alive requests, or being answered and closed
/// after a refusal. They cost a descriptor and their buffered bytes each, no thread, so a
/// thousand senders that stop half way, in the head or in the body, hold no slot of
/// `--max-connections` and cannot keep a real delivery waiting. A connection leaves the set
/// when its request is complete (to a worker thread), when it closes, or when a timeout passes.
struct PolledConnections {
    struct Entry {
        let fd: Int32
        let peer: String
        var reader: RequestReader
        var state: State
        /// When the connection is given up (see `HTTPServer.deadline(for:)`).
        var deadline: Deadline
        /// Monotonic nanoseconds of the accept loop's turn that last received bytes on it (or
        /// accepted it): the stalest connection is closed first when descriptors or memory run
        /// short, the earliest accepted first among those of the same turn.
        var lastProgress: Int64
        /// Order of arrival.
        let sequence: UInt64
        /// When the head's first byte came (the header timeout runs from it).
        var headStarted: Int64?
        /// When the body's first byte was due (the whole-body limit runs from it).
        var bodyStarted: Int64?
    }

    enum State {
        /// Reading a request.
        case reading
        /// Sending a refusal (`bytes` from `sent` on), then draining.
        case answering(bytes: [UInt8], sent: Int)
        /// Refusal sent and our side shut: reading and dropping what the sender still sends,
        /// up to a bound, so that closing does not reset the connection before the answer is read.
        case draining(discarded: Int)
    }

    private(set) var entries: [Entry] = []
    private var nextSequence: UInt64 = 0

    /// The next connection's place in the order of arrival.
    mutating func takeSequence() -> UInt64 {
        defer { nextSequence += 1 }
        return nextSequence
    }
    /// Bytes held by the requests still arriving, kept up to date by every change below (a
    /// sum over a thousand connections per read would cost more than the reads).
    private(set) var heldBytes = 0

    var count: Int { entries.count }

    mutating func add(_ entry: Entry) {
        heldBytes += entry.reader.heldBytes
        entries.append(entry)
    }

    mutating func remove(at index: Int) -> Entry {
        entries.swapAt(index, entries.count - 1)
        let entry = entries.removeLast()
        heldBytes -= entry.reader.heldBytes
        return entry
    }

    subscript(index: Int) -> Entry {
        get { entries[index] }
        _modify {
            let before = entries[index].reader.heldBytes
            yield &entries[index]
            heldBytes += entries[index].reader.heldBytes - before
        }
    }

    /// The connection to close when descriptors run out: one already refused (answering or
    /// draining) if any, else the one that received nothing for the longest.
    var stalest: Int? {
        if let refused = entries.indices.first(where: { if case .reading = entries[$0].state { return false } else { return true } }) {
            return refused
        }
        return entries.indices.min(by: staler)
    }

    /// Whether `a` made progress before `b` (or, in the same turn, arrived before it).
    private func staler(_ a: Int, _ b: Int) -> Bool {
        (entries[a].lastProgress, entries[a].sequence) < (entries[b].lastProgress, entries[b].sequence)
    }

    /// The request body (other than `excluded`'s) that made progress longest ago, to refuse
    /// when the buffered bytes are over budget.
    func stalestBody(excluding excluded: Int?) -> Int? {
        entries.indices
            .filter { $0 != excluded && isArrivingBody(at: $0) }
            .min(by: staler)
    }

    /// A request whose head is complete and whose body is arriving (what a stop waits for).
    func isArrivingBody(at index: Int) -> Bool {
        guard case .reading = entries[index].state else { return false }
        return entries[index].reader.isInBody
    }

    /// Milliseconds until the nearest deadline (for `poll`), -1 when there is none.
    var pollTimeout: Int32 {
        guard let nearest = entries.map({ $0.deadline.remaining }).min() else { return -1 }
        return Int32(min(max(0, (nearest * 1000).rounded(.up)), 60_000))
    }
}
