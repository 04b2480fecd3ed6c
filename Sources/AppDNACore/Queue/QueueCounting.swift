/// 64-bit FNV-1a with a SplitMix64 finaliser: fast, well mixed, for sets of ids.
enum IDHash {
    static func hash(_ text: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
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
        if estimate <= 2.5 * m, zeros > 0 { return Int((m * log(m / Double(zeros))).rounded()) }
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
