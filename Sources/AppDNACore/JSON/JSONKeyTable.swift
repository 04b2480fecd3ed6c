/// An open-addressing set of key tape indexes for one large object, so duplicate detection
/// costs O(1) per key instead of comparing with every earlier key. Equality is decided by the
/// parser (it owns the bytes); the table only stores hashes and indexes.
///
/// Each slot is one word, the hash beside the index, so a probe of a table too big for the
/// cache (the 20,000 experiments of a large bundle) misses memory once, not once per array.
struct JSONKeyTable {
    /// `hash << 32 | UInt32(node)`, or `empty`.
    private(set) var slots: [UInt64]
    private var mask: Int
    private var count = 0
    private static let empty = UInt64.max

    init(expected: Int) {
        var capacity = 16
        while capacity < expected * 2 { capacity <<= 1 }
        slots = Array(repeating: JSONKeyTable.empty, count: capacity)
        mask = capacity - 1
    }

    @inline(__always) func firstSlot(_ hash: UInt32) -> Int { Int(hash) & mask }
    @inline(__always) func nextSlot(_ slot: Int) -> Int { (slot + 1) & mask }

    /// The tape index of the key in `slot`, or nil for an empty slot.
    @inline(__always) func node(at slot: Int) -> Int32? {
        let word = slots[slot]
        return word == JSONKeyTable.empty ? nil : Int32(truncatingIfNeeded: word & 0xFFFF_FFFF)
    }

    @inline(__always) func hash(at slot: Int) -> UInt32 { UInt32(truncatingIfNeeded: slots[slot] >> 32) }

    /// Fills an empty slot found by probing; keeps the load factor at most one half.
    mutating func insert(at slot: Int, hash: UInt32, node: Int32) {
        slots[slot] = UInt64(hash) << 32 | UInt64(UInt32(bitPattern: node))
        count += 1
        if count * 2 > slots.count { rehash() }
    }

    /// Inserts a key known not to be present.
    mutating func insertNew(hash: UInt32, node: Int32) {
        var slot = firstSlot(hash)
        while slots[slot] != JSONKeyTable.empty { slot = nextSlot(slot) }
        insert(at: slot, hash: hash, node: node)
    }

    private mutating func rehash() {
        let old = slots
        slots = Array(repeating: JSONKeyTable.empty, count: old.count * 2)
        mask = slots.count - 1
        count = 0
        for word in old where word != JSONKeyTable.empty {
            insertNew(hash: UInt32(truncatingIfNeeded: word >> 32), node: Int32(truncatingIfNeeded: word & 0xFFFF_FFFF))
        }
    }

    /// FNV-1a, folded to 32 bits; keys are short, so a byte loop is fine.
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        return UInt32(truncatingIfNeeded: h ^ (h >> 32))
    }
}
