import AppDNACore

/// The connections of `HTTPServer` that are waiting for a request's head: just accepted, or
/// handed back between keep-alive requests. They cost a descriptor and a few bytes each, no
/// thread, so a thousand clients that send half a request line and stop hold no slot of
/// `--max-connections` and cannot keep a real delivery waiting. The accept loop polls them all
/// at once; a connection leaves the set when its head is complete (to a worker thread), when
/// it closes, or when its header or idle timeout passes.
struct WaitingConnections {
    struct Entry {
        let fd: Int32
        let peer: String
        /// Bytes received so far: the start of a request head.
        var buffer: [UInt8]
        /// Order of arrival: under descriptor pressure the oldest goes first.
        let sequence: UInt64
        /// When the connection is given up: the idle timeout while nothing arrived, the header
        /// timeout from the first byte on.
        var deadline: Deadline
        /// The blank line ending the head has arrived.
        var headIsComplete = false
    }

    private(set) var entries: [Entry] = []
    private var nextSequence: UInt64 = 0

    var count: Int { entries.count }

    mutating func add(fd: Int32, peer: String, buffer: [UInt8], idleTimeout: Double, headerTimeout: Double) {
        let deadline = Deadline(secondsFromNow: buffer.isEmpty ? idleTimeout : headerTimeout)
        entries.append(Entry(fd: fd, peer: peer, buffer: buffer, sequence: nextSequence, deadline: deadline,
                             headIsComplete: ServerConnection.endOfHead(buffer) != nil))
        nextSequence += 1
    }

    mutating func remove(at index: Int) -> Entry {
        entries.swapAt(index, entries.count - 1)
        return entries.removeLast()
    }

    /// The index of the connection that arrived first, to close when descriptors run out.
    var oldest: Int? {
        entries.indices.min { entries[$0].sequence < entries[$1].sequence }
    }

    /// Milliseconds until the nearest deadline (for `poll`), -1 when there is none.
    var pollTimeout: Int32 {
        guard let nearest = entries.map({ $0.deadline.remaining }).min() else { return -1 }
        return Int32(min(max(0, (nearest * 1000).rounded(.up)), 60_000))
    }

    /// Appends what arrived on `entries[index]` (one non-blocking `recv` into `scratch`) and
    /// notes whether the head is now complete; false when the peer closed or reset the connection.
    mutating func receive(at index: Int, into scratch: inout [UInt8], headerTimeout: Double) -> Bool {
        let count = scratch.withUnsafeMutableBytes { Sockets.receive(entries[index].fd, into: $0, dontWait: true) }
        if count < 0 { return SystemError.last == .interrupted || SystemError.last == .wouldBlock }
        if count == 0 { return false }
        let before = entries[index].buffer.count
        if before == 0 { entries[index].deadline = Deadline(secondsFromNow: headerTimeout) }
        entries[index].buffer.append(contentsOf: scratch[..<count])
        entries[index].headIsComplete = ServerConnection.endOfHead(entries[index].buffer, from: before - 2) != nil
        return true
    }
}
