/// An open-addressing set of key tape indexes for one large object, so duplicate detection
/// costs O(1) per key instead of comparing with every earlier key. Equality is decided by the
/// parser (it owns the bytes); the table only stores hashes and indexes.
struct JSONKeyTable {
    private(set) var hashes: [UInt32]
    /// Tape index of the key in each slot, -1 for an empty slot.
    private(set) var nodes: [Int32]
    private var mask: Int
    private var count = 0

    init(expected: Int) {
        var capacity = 16
        while capacity < expected * 2 { capacity <<= 1 }
        hashes = Array(repeating: 0, count: capacity)
        nodes = Array(repeating: -1, count: capacity)
        mask = capacity - 1
    }

    @inline(__always) func firstSlot(_ hash: UInt32) -> Int { Int(hash) & mask }
    @inline(__always) func nextSlot(_ slot: Int) -> Int { (slot + 1) & mask }

    /// Fills an empty slot found by probing; keeps the load factor at most one half.
    mutating func insert(at slot: Int, hash: UInt32, node: Int32) {
        hashes[slot] = hash
        nodes[slot] = node
        count += 1
        if count * 2 > nodes.count { rehash() }
    }

    /// Inserts a key known not to be present.
    mutating func insertNew(hash: UInt32, node: Int32) {
        var slot = firstSlot(hash)
        while nodes[slot] >= 0 { slot = nextSlot(slot) }
        insert(at: slot, hash: hash, node: node)
    }

    private mutating func rehash() {
        let oldHashes = hashes, oldNodes = nodes
        let capacity = oldNodes.count * 2
        hashes = Array(repeating: 0, count: capacity)
        nodes = Array(repeating: -1, count: capacity)
        mask = capacity - 1
        count = 0
        for i in 0..<oldNodes.count where oldNodes[i] >= 0 { insertNew(hash: oldHashes[i], node: oldNodes[i]) }
    }

    /// FNV-1a, folded to 32 bits; keys are short, so a byte loop is fine.
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        return UInt32(truncatingIfNeeded: h ^ (h >> 32))
    }
}
