/// SplitMix64: tiny, fast and fully determined by its seed, so a failing randomised or fuzz
/// test repeats exactly. Shared by every test target (through TestSupport).
public struct SplitMix64: RandomNumberGenerator {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// `count` random bytes.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(count)
        while out.count < count {
            let word = next()
            withUnsafeBytes(of: word) { out.append(contentsOf: $0.prefix(count - out.count)) }
        }
        return out
    }
}
