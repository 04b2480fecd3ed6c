/// 64-bit FNV-1a with a SplitMix64 finaliser: fast, well mixed, for sets of ids.
enum IDHash {
    static func hash(_ text: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return finish(h)
    }

    /// The same value as `hash(_:)` of the String these UTF-8 bytes spell.
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return finish(h)
    }

    @inline(__always)
    private static func finish(_ value: UInt64) -> UInt64 {
        var h = value
        h = (h ^ (h >> 30)) &* 0xbf58_476d_1ce4_e5b9
        h = (h ^ (h >> 27)) &* 0x94d0_49bb_1331_11eb
        return h ^ (h >> 31)
    }
}

/// Counts distinct values in bounded memory: exactly up to `exactLimit` values, then a
/// HyperLogLog estimate (4096 registers, about 1.6 % standard error), flagged as approximate.
public struct DistinctCounter: Sendable {
    public static let exactLimit = 65_536
    private var exact: Set<UInt64> = []
    private var registers: [UInt8]? = nil

    public init() {}

    public var isApproximate: Bool { registers != nil }

    public mutating func insert(_ text: String) { insert(hash: IDHash.hash(text)) }

    /// Counts the String these UTF-8 bytes spell.
    public mutating func insert(_ bytes: UnsafeRawBufferPointer) { insert(hash: IDHash.hash(bytes)) }

    mutating func insert(hash: UInt64) {
        if registers == nil {
            exact.insert(hash)
            if exact.count > Self.exactLimit {
                var fresh = [UInt8](repeating: 0, count: 4096)
                for value in exact { Self.add(value, to: &fresh) }
                registers = fresh
                exact = []
            }
        } else {
            Self.add(hash, to: &registers!)
        }
    }

    /// Adds what `other` counted: the result is the same as one counter that saw both inputs,
    /// in any order (exact while the union fits, else the registers of every value), so
    /// counters kept per thread can be merged.
    public mutating func merge(_ other: DistinctCounter) {
        if let theirs = other.registers {
            var mine = registers ?? [UInt8](repeating: 0, count: 4096)
            for value in exact { Self.add(value, to: &mine) }
            for index in mine.indices where theirs[index] > mine[index] { mine[index] = theirs[index] }
            registers = mine
            exact = []
        } else {
            for value in other.exact { insert(hash: value) }
        }
    }

    private static func add(_ hash: UInt64, to registers: inout [UInt8]) {
        let index = Int(hash >> 52)
        let rank = UInt8(min((hash << 12).leadingZeroBitCount, 52) + 1)
        if registers[index] < rank { registers[index] = rank }
    }

    public var count: Int {
        guard let registers else { return exact.count }
        let m = Double(registers.count)
        var sum = 0.0, zeros = 0
        for r in registers {
            sum += 1.0 / Double(UInt64(1) << UInt64(r))
            if r == 0 { zeros += 1 }
        }
        let estimate = 0.7213 / (1 + 1.079 / m) * m * m / sum
        if estimate <= 2.5 * m, zeros > 0 { return Int((m * CMath.log(m / Double(zeros))).rounded()) }
        return Int(estimate.rounded())
    }
}

/// The `client_seq` values seen for one device, as sorted disjoint ranges: memory grows with
/// the number of gaps, not of events.
struct SequenceRanges {
    private(set) var ranges: [(low: Int64, high: Int64)] = []
    private(set) var repeats = 0

    mutating func insert(_ value: Int64) {
        if let last = ranges.last {
            if value == last.high &+ 1 { ranges[ranges.count - 1].high = value; return }
            if value > last.high { ranges.append((value, value)); return }
        } else {
            ranges.append((value, value))
            return
        }
        // Out of order: binary search for the first range whose high >= value.
        var lo = 0, hi = ranges.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if ranges[mid].high < value { lo = mid + 1 } else { hi = mid }
        }
        if lo < ranges.count, ranges[lo].low <= value {
            repeats += 1
            return
        }
        let joinsNext = lo < ranges.count && ranges[lo].low == value + 1
        let joinsPrevious = lo > 0 && ranges[lo - 1].high == value - 1
        switch (joinsPrevious, joinsNext) {
        case (true, true):
            ranges[lo - 1].high = ranges[lo].high
            ranges.remove(at: lo)
        case (true, false): ranges[lo - 1].high = value
        case (false, true): ranges[lo].low = value
        case (false, false): ranges.insert((value, value), at: lo)
        }
    }

    /// The missing runs between the lowest and highest value seen.
    var gaps: [(from: Int64, to: Int64)] {
        guard ranges.count > 1 else { return [] }
        return (1..<ranges.count).map { (ranges[$0 - 1].high + 1, ranges[$0].low - 1) }
    }

    var missing: Int64 { gaps.reduce(0) { $0 + ($1.to - $1.from + 1) } }
}

/// A blocked Bloom filter of event ids (8 MiB; 6 bits within one 64-byte block per id, so one
/// cache miss per insert): the first pass finds ids that may repeat in constant memory; a second
/// pass over only those candidates makes the answer exact.
struct IDBloomFilter {
    private var words: [UInt64]
    private let blocks: UInt64

    init(bytes: Int = 8 << 20) {
        words = [UInt64](repeating: 0, count: bytes / 8)
        blocks = UInt64(bytes / 64)
    }

    /// Adds `hash`; true when every bit was already set (a possible repeat).
    mutating func insert(_ hash: UInt64) -> Bool {
        let block = Int((hash >> 32) % blocks) * 8
        var present = true
        var bits = (hash ^ (hash >> 29)) &* 0x9E37_79B9_7F4A_7C15
        words.withUnsafeMutableBufferPointer { w in
            for _ in 0..<6 {
                let bit = Int(bits & 511)
                bits >>= 9
                let word = block + bit >> 6, flag = UInt64(1) << UInt64(bit & 63)
                if w[word] & flag == 0 {
                    present = false
                    w[word] |= flag
                }
            }
        }
        return present
    }
}

/// Counts (or other values) per key for at most `limit` distinct keys, admitted in the order
/// first seen, keys compared as Swift Strings (as the dictionary it replaces did). A cache keyed
/// by the exact UTF-8 bytes lets the fast NDJSON path find a key without making a String.
struct CappedTable<Value> {
    let limit: Int
    let initial: Value
    private var ids: [String: Int] = [:]
    private(set) var keys: [String] = []
    var values: [Value] = []
    private var cache = ByteKeyCache()

    init(limit: Int, initial: Value) {
        self.limit = limit
        self.initial = initial
    }

    var count: Int { keys.count }

    /// The slot of `key`, admitting it when there is room; nil when the table is full.
    mutating func slot(for key: String) -> Int? {
        if let id = ids[key] { return id }
        guard keys.count < limit else { return nil }
        ids[key] = keys.count
        keys.append(key)
        values.append(initial)
        return keys.count - 1
    }

    /// The same as `slot(for: String(decoding: bytes, as: UTF8.self))`; `hash` is `IDHash.hash(bytes)`.
    mutating func slot(bytes: UnsafeRawBufferPointer, hash: UInt64) -> Int? {
        if let id = cache.find(bytes, hash: hash) { return id }
        guard let id = slot(for: String(decoding: bytes, as: UTF8.self)) else { return nil }
        cache.insert(bytes, hash: hash, id: id)
        return id
    }

    mutating func removeAll() {
        ids = [:]
        keys = []
        values = []
        cache = ByteKeyCache()
    }
}

/// Exact UTF-8 bytes → small integer, open addressing; stops accepting entries when full.
struct ByteKeyCache {
    private var slots = [Int32](repeating: -1, count: 8192)
    private var hashes = [UInt64](repeating: 0, count: 8192)
    private var entries: [(start: Int, count: Int, id: Int)] = []
    private var storage: [UInt8] = []
    static let maxEntries = 4096

    func find(_ bytes: UnsafeRawBufferPointer, hash: UInt64) -> Int? {
        var slot = Int(truncatingIfNeeded: hash) & 8191
        while true {
            let e = slots[slot]
            if e < 0 { return nil }
            if hashes[slot] == hash {
                let entry = entries[Int(e)]
                if entry.count == bytes.count
                    && storage.withUnsafeBytes({ bytes.count == 0 || RawMemory.compare($0.baseAddress! + entry.start, bytes.baseAddress!, count: bytes.count) == 0 }) {
                    return entry.id
                }
            }
            slot = (slot + 1) & 8191
        }
    }

    mutating func insert(_ bytes: UnsafeRawBufferPointer, hash: UInt64, id: Int) {
        guard entries.count < Self.maxEntries, bytes.count <= 4096 else { return }
        var slot = Int(truncatingIfNeeded: hash) & 8191
        while slots[slot] >= 0 { slot = (slot + 1) & 8191 }
        slots[slot] = Int32(entries.count)
        hashes[slot] = hash
        entries.append((storage.count, bytes.count, id))
        storage.append(contentsOf: bytes)
    }
}
