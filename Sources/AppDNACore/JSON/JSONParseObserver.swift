/// What a parse tells a reader that reads its tape while it is still being written: where the
/// tape is, and, every so often, how far it is final. The parser only reports; the
/// synchronisation is the observer's (`bundle validate`'s runner has the one observer,
/// `JSONParseProgress`, beside the validator's threads: the parser knows nothing of threads).
///
/// Every node below a reported count is final except the open containers reported with it
/// (their end and next are written when they close). The parser reports only where no open
/// container can later drop its children (`JSONParseOptions.keepChildrenAboveDepth`), so no
/// reported node is ever rewritten; and the tape is reserved at the largest size the input can
/// need, so it never moves (`JSONTapeBuilder(reservingFor:)`).
protocol JSONParseObserver: AnyObject {
    /// The tape is reserved at `base` for `capacity` nodes and will not move.
    func started(tape base: UnsafePointer<JSONTapeNode>, capacity: Int)
    /// Nodes below `count` are final except the containers in `open`.
    func publish(count: Int, open: JSONOpenContainers)
    /// The whole tape (`count` nodes) is final.
    func finished(count: Int)
    /// The parse failed, or will report nothing (no tape that never moves could be reserved).
    /// Returns only when the tape may be freed.
    func failed()
}

/// The open containers at a report, outermost first: their tape indexes and whether each is an
/// object (read here, not from their nodes, which the parser is still writing).
struct JSONOpenContainers {
    private(set) var nodes: (Int32, Int32, Int32, Int32, Int32) = (0, 0, 0, 0, 0)
    private(set) var objects: UInt8 = 0
    private(set) var count = 0
    static let capacity = 5

    /// The deepest close that reports: the containers open around it (at most this many) must
    /// fit.
    static let deepestReportingClose = capacity - 1
    /// Nodes written between two reports (about 130 KB of compact JSON): often enough that a
    /// reader waiting for its next run of work waits little, rarely enough to cost nothing.
    static let nodesBetweenReports = 16_384

    @inline(__always)
    mutating func append(node: Int32, isObject: Bool) {
        withUnsafeMutableBytes(of: &nodes) { $0.storeBytes(of: node, toByteOffset: count * 4, as: Int32.self) }
        if isObject { objects |= 1 << UInt8(count) }
        count += 1
    }

    func node(_ depth: Int) -> Int {
        Int(withUnsafeBytes(of: nodes) { $0.load(fromByteOffset: depth * 4, as: Int32.self) })
    }

    func isObject(_ depth: Int) -> Bool { objects & 1 << UInt8(depth) != 0 }

    /// The depth of the open container at tape index `node`, if it is open.
    func depth(of node: Int) -> Int? { (0..<count).first { self.node($0) == node } }
}
