/// One node of a parsed document: 16 bytes, no references, so the whole tape is a single
/// allocation the size of a few integers per value, and walking it touches memory in order.
struct JSONTapeNode {
    /// `JSONKind.rawValue`.
    var kind: UInt8
    /// `JSONTapeFlag` bits.
    var flags: UInt8
    /// For strings: the first and last bytes of the raw content (`JSONTapeNode.tag`), so a
    /// lookup by key rejects most other keys without reading the document's bytes (which, in
    /// a large document, are no longer in cache). Fits in what was padding: still 16 bytes.
    var tag: UInt16 = 0
    /// Byte offset of the value's first byte (the opening quote or bracket).
    var start: UInt32
    /// Byte offset one past the value's last byte (after the closing quote or bracket).
    var end: UInt32
    /// Index of the node after this value's subtree (its next sibling), so siblings skip in O(1).
    var next: UInt32

    init(kind: UInt8, flags: UInt8, tag: UInt16 = 0, start: UInt32, end: UInt32, next: UInt32) {
        self.kind = kind
        self.flags = flags
        self.tag = tag
        self.start = start
        self.end = end
        self.next = next
    }

    /// The tag of raw string content `bytes[from..<to]`: first byte | last byte << 8 (0 when empty).
    @inline(__always)
    static func tag(_ bytes: UnsafePointer<UInt8>, from: Int, to: Int) -> UInt16 {
        from < to ? UInt16(bytes[from]) | UInt16(bytes[to - 1]) << 8 : 0
    }
}

enum JSONTapeFlag {
    /// A string containing at least one backslash: it must be unescaped to be read.
    static let escaped: UInt8 = 1
    /// A number with a fraction or an exponent.
    static let nonInteger: UInt8 = 2
    /// The boolean `true`.
    static let isTrue: UInt8 = 4
    /// An array or object kept without its children (`JSONParseOptions.keepChildrenAboveDepth`).
    static let childrenDropped: UInt8 = 8
}

/// The finished tape. It lives in a `GrowableMapping` rather than an Array: growing it is a
/// `realloc` (for large blocks glibc moves pages with mremap instead of copying, so peak memory
/// is the final size rather than old + new), a big one is in huge pages on Linux, and it is cut
/// to fit once parsing ends.
///
/// Unchecked because it holds raw memory (a pointer is not Sendable); the nodes are never
/// written once the tape is finished, so any thread may read them (a view over a tape still
/// being written is read only as `JSONParseProgress` allows).
final class JSONTape: @unchecked Sendable {
    let base: UnsafeMutablePointer<JSONTapeNode>
    let count: Int
    /// The memory, freed with this object; nil for a view.
    private let memory: GrowableMapping?
    /// The tape whose memory a view reads (`JSONDocument.view()`), kept alive by it.
    private let owner: JSONTape?

    init(memory: GrowableMapping, count: Int) {
        base = memory.base.assumingMemoryBound(to: JSONTapeNode.self)
        self.count = count
        self.memory = memory
        owner = nil
    }

    /// Another object over the same nodes: a thread reading it counts references on its own
    /// object, not on one another core keeps changing.
    init(viewing other: JSONTape) {
        base = other.base
        count = other.count
        memory = nil
        owner = other
    }

    /// The nodes of a tape still being written (`JSONParseObserver`), owned by the parse: read
    /// only the nodes the progress says are final, and only while the parse's owner keeps it.
    init(unownedBase base: UnsafePointer<JSONTapeNode>, capacity: Int) {
        self.base = UnsafeMutablePointer(mutating: base)
        count = capacity
        memory = nil
        owner = nil
    }

    deinit { memory?.free() }

    @inline(__always) subscript(index: Int) -> JSONTapeNode { base[index] }
}

/// The growing tape while parsing. Owned by the parser; `finish()` hands the memory over.
struct JSONTapeBuilder {
    private(set) var base: UnsafeMutablePointer<JSONTapeNode>
    private(set) var count = 0
    private(set) var capacity: Int
    private var memory: GrowableMapping
    /// Reserved at the most nodes the input can need: it never grows, so it never moves.
    private let isReserved: Bool

    init(estimatedNodes: Int) {
        guard let tape = JSONTapeBuilder(capacity: estimatedNodes, isReserved: false) else {
            // Out of memory: there is nothing sensible left to do.
            fatalError("out of memory allocating a JSON tape of \(max(16, estimatedNodes)) nodes")
        }
        self = tape
    }

    /// A tape that never moves while `byteCount` bytes are parsed into it, for a reader that
    /// reads it during the parse (`JSONParseObserver`); nil when the address space for it is
    /// refused. Every value takes at least one byte and is followed by a comma, a closing
    /// bracket or the end (`[0,0]`, `[[],[]]`, `{"":0}`), so there are at most
    /// `byteCount / 2 + 1` nodes. Only the pages written take memory.
    init?(reservingFor byteCount: Int) {
        self.init(capacity: byteCount / 2 + 16, isReserved: true)
    }

    private init?(capacity wanted: Int, isReserved: Bool) {
        self.isReserved = isReserved
        capacity = max(16, wanted)
        guard let memory = GrowableMapping(byteCount: capacity * MemoryLayout<JSONTapeNode>.stride) else { return nil }
        self.memory = memory
        // The node type is trivial, so binding the bytes is all the initialisation needed.
        base = memory.base.bindMemory(to: JSONTapeNode.self, capacity: capacity)
    }

    @inline(__always)
    mutating func append(kind: JSONKind, flags: UInt8, tag: UInt16 = 0, start: Int, end: Int) {
        if count == capacity { grow() }
        base[count] = JSONTapeNode(kind: kind.rawValue, flags: flags, tag: tag, start: UInt32(truncatingIfNeeded: start),
                                   end: UInt32(truncatingIfNeeded: end), next: UInt32(truncatingIfNeeded: count + 1))
        count += 1
    }

    /// Records where a container ends once its closing bracket is seen.
    @inline(__always)
    mutating func close(_ index: Int, end: Int) {
        base[index].end = UInt32(truncatingIfNeeded: end)
        base[index].next = UInt32(truncatingIfNeeded: count)
    }

    /// Closes a container as if it were empty, forgetting the nodes inside it (see
    /// `JSONParseOptions.keepChildrenAboveDepth`); its byte range still covers its contents.
    @inline(__always)
    mutating func dropChildren(of index: Int, end: Int) {
        count = index + 1
        base[index].flags |= JSONTapeFlag.childrenDropped
        close(index, end: end)
    }

    @inline(__always) subscript(index: Int) -> JSONTapeNode { base[index] }

    @inline(never)
    private mutating func grow() {
        precondition(!isReserved, "a reserved JSON tape outgrew the most nodes its input can have")
        let stride = MemoryLayout<JSONTapeNode>.stride
        let wanted = capacity + capacity / 2 + 16
        guard memory.grow(to: wanted * stride, keeping: count * stride) else {
            fatalError("out of memory growing the JSON tape to \(wanted) nodes")
        }
        capacity = wanted
        base = memory.base.bindMemory(to: JSONTapeNode.self, capacity: capacity)
    }

    /// Cuts the memory to fit and transfers ownership. A reserved tape is not cut: a reader
    /// may still be reading it, and cutting may move it (realloc); its unwritten pages take no
    /// memory anyway.
    mutating func finish() -> JSONTape {
        guard !isReserved else { return JSONTape(memory: memory, count: count) }
        memory.shrink(to: max(count, 1) * MemoryLayout<JSONTapeNode>.stride)
        capacity = max(count, 1)
        base = memory.base.bindMemory(to: JSONTapeNode.self, capacity: capacity)
        return JSONTape(memory: memory, count: count)
    }

    /// Empties the tape, keeping its memory.
    mutating func reset() { count = 0 }

    /// Frees the memory when parsing failed.
    func discard() { memory.free() }
}
