/// MurmurHash3_x86_32, Austin Appleby's final version (public domain), as the AppDNA SDKs
/// use it for bucketing: blocks read little-endian, tail bytes unsigned, result unsigned.
///
/// Ports that got this wrong in the wild (signed tail bytes, UTF-16 input, signed modulo) are
/// modelled separately in `PortabilityHazards`; this is the one correct function.
public enum MurmurHash3 {
    private static let c1: UInt32 = 0xcc9e_2d51
    private static let c2: UInt32 = 0x1b87_3593

    /// Hashes `bytes` with `seed`.
    @inlinable
    public static func x86_32<Bytes: Collection>(_ bytes: Bytes, seed: UInt32 = 0) -> UInt32 where Bytes.Element == UInt8 {
        if let hash = bytes.withContiguousStorageIfAvailable({ x86_32(UnsafeRawBufferPointer($0), seed: seed) }) {
            return hash
        }
        return Array(bytes).withUnsafeBytes { x86_32($0, seed: seed) }
    }

    /// Hashes the UTF-8 bytes of `string` with `seed`, without copying when the string is native.
    @inlinable
    public static func x86_32(utf8 string: String, seed: UInt32 = 0) -> UInt32 {
        var string = string
        return string.withUTF8 { x86_32(UnsafeRawBufferPointer($0), seed: seed) }
    }

    /// The hot path: hashes raw memory.
    public static func x86_32(_ data: UnsafeRawBufferPointer, seed: UInt32 = 0) -> UInt32 {
        x86_32(continuing: seed, data, totalCount: data.count)
    }

    /// The state after the whole 4-byte blocks of `data` (its first `data.count / 4 * 4`
    /// bytes): a fixed prefix of many hashed strings is mixed once, then each string's rest
    /// is hashed with `x86_32(continuing:_:totalCount:)`.
    public static func state(afterBlocksOf data: UnsafeRawBufferPointer, seed: UInt32 = 0) -> UInt32 {
        mixBlocks(seed, data)
    }

    /// The hash of a longer input whose first `totalCount - data.count` bytes (a multiple of 4)
    /// left the state `h1` (`state(afterBlocksOf:)`), and whose remaining bytes are `data`.
    public static func x86_32(continuing h1: UInt32, _ data: UnsafeRawBufferPointer, totalCount: Int) -> UInt32 {
        let count = data.count
        var h1 = mixBlocks(h1, data)
        let tail = count & ~3
        var k1: UInt32 = 0
        switch count & 3 {
        case 3:
            k1 ^= UInt32(data[tail &+ 2]) << 16
            fallthrough
        case 2:
            k1 ^= UInt32(data[tail &+ 1]) << 8
            fallthrough
        case 1:
            k1 ^= UInt32(data[tail])
            h1 ^= mixKey(k1)
        default:
            break
        }
        h1 ^= UInt32(truncatingIfNeeded: totalCount)
        return finalMix(h1)
    }

    /// Mixes the whole 4-byte blocks of `data` into `h1`.
    @inline(__always)
    static func mixBlocks(_ h1: UInt32, _ data: UnsafeRawBufferPointer) -> UInt32 {
        var h1 = h1
        let blockCount = data.count / 4
        var index = 0
        while index < blockCount {
            var k1 = UInt32(littleEndian: data.loadUnaligned(fromByteOffset: index &* 4, as: UInt32.self))
            k1 = mixKey(k1)
            h1 ^= k1
            h1 = (h1 << 13) | (h1 >> 19)
            h1 = h1 &* 5 &+ 0xe654_6b64
            index &+= 1
        }
        return h1
    }

    @inline(__always)
    static func mixKey(_ key: UInt32) -> UInt32 {
        var k = key &* c1
        k = (k << 15) | (k >> 17)
        return k &* c2
    }

    /// fmix32: forces every input bit to affect every output bit.
    @inline(__always)
    static func finalMix(_ hash: UInt32) -> UInt32 {
        var h = hash
        h ^= h >> 16
        h = h &* 0x85eb_ca6b
        h ^= h >> 13
        h = h &* 0xc2b2_ae35
        h ^= h >> 16
        return h
    }
}
