/// MurmurHash3_x86_32, Austin Appleby's final version (public domain), as the AppDNA SDKs
/// use it for bucketing: blocks read little-endian, tail bytes unsigned, result unsigned.
///
/// Ports that got this wrong in the wild (signed tail bytes, UTF-16 input, signed modulo) are
/// modelled separately in `PortabilityHazards`; this is the one correct function.
public enum MurmurHash3 {
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
        finish(mixBlocks(data, into: seed), tailOf: data, totalCount: data.count)
    }

    /// The running state after the whole 4-byte blocks of `prefix`, for hashing many strings
    /// that start with the same prefix (`EXP.SALT.user` in batch bucketing) without redoing it:
    /// continue with `x86_32(resuming:totalCount:_:)` on the prefix's last `count % 4` bytes
    /// followed by the rest.
    public static func state(afterBlocksOf prefix: UnsafeRawBufferPointer, seed: UInt32 = 0) -> UInt32 {
        mixBlocks(UnsafeRawBufferPointer(rebasing: prefix[..<(prefix.count & ~3)]), into: seed)
    }

    /// Finishes a hash begun with `state(afterBlocksOf:)`: `rest` is everything after the
    /// prefix's whole blocks, and `totalCount` the length of the whole hashed string.
    /// Inlinable: the batch calls it for every id from another module (`BatchBucketer.hash`).
    @inlinable
    public static func x86_32(resuming state: UInt32, totalCount: Int, _ rest: UnsafeRawBufferPointer) -> UInt32 {
        finish(mixBlocks(rest, into: state), tailOf: rest, totalCount: totalCount)
    }

    /// `x86_32(resuming:totalCount:_:)` with the prefix's last `leadingCount` (0–3) bytes given
    /// as a little-endian word instead of in front of `rest`: the batch hashes each id where it
    /// lies in the input, without first copying it behind those bytes (the copy, and the
    /// block loads that straddled its stores, cost the batch more than the mixing).
    @inlinable @inline(__always)
    public static func x86_32(resuming state: UInt32, leading: UInt32, leadingCount: Int, totalCount: Int,
                              _ rest: UnsafeRawBufferPointer) -> UInt32 {
        var h1 = state
        var after = rest
        if leadingCount > 0 {
            // Rare (an id under 4 bytes) and out of line: this body is inlined into the batch's
            // loops, whose other calls are inlined only while those stay small.
            guard rest.count >= 4 else { return shortRest(state, leading: leading, leadingCount: leadingCount, totalCount: totalCount, rest) }
            // The low `4 - leadingCount` bytes of the load complete the first block; the rest shift out.
            let k1 = leading | UInt32(littleEndian: rest.loadUnaligned(as: UInt32.self)) << UInt32(truncatingIfNeeded: leadingCount &* 8)
            h1 ^= mixKey(k1)
            h1 = (h1 << 13) | (h1 >> 19)
            h1 = h1 &* 5 &+ 0xe654_6b64
            after = UnsafeRawBufferPointer(rebasing: rest[(4 &- leadingCount)...])
        }
        return finish(mixBlocks(after, into: h1), tailOf: after, totalCount: totalCount)
    }

    /// `x86_32(resuming:leading:…)` for a rest of fewer than 4 bytes after 1–3 leading bytes.
    @usableFromInline
    static func shortRest(_ state: UInt32, leading: UInt32, leadingCount: Int, totalCount: Int, _ rest: UnsafeRawBufferPointer) -> UInt32 {
        var bytes = withUnsafeBytes(of: leading.littleEndian) { Array($0.prefix(leadingCount)) }
        bytes.append(contentsOf: rest)
        return bytes.withUnsafeBytes { x86_32(resuming: state, totalCount: totalCount, $0) }
    }

    /// Mixes every whole 4-byte block of `data` into `hash`.
    @inlinable @inline(__always)
    static func mixBlocks(_ data: UnsafeRawBufferPointer, into hash: UInt32) -> UInt32 {
        var h1 = hash
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

    /// Mixes the last `data.count % 4` bytes and the length, and applies the final mix.
    @inlinable @inline(__always)
    static func finish(_ hash: UInt32, tailOf data: UnsafeRawBufferPointer, totalCount: Int) -> UInt32 {
        var h1 = hash
        let tail = data.count & ~3
        var k1: UInt32 = 0
        switch data.count & 3 {
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

    @inlinable @inline(__always)
    static func mixKey(_ key: UInt32) -> UInt32 {
        // The constants are literals: a static property would be reached through its
        // initialiser's once-check from inlined code in other modules.
        var k = key &* 0xcc9e_2d51
        k = (k << 15) | (k >> 17)
        return k &* 0x1b87_3593
    }

    /// The algorithm's multipliers, for the code that spells the hash in another language (the
    /// warehouse SQL); the Swift hash above keeps them as literals (see `mixKey`).
    public enum Constants {
        /// The block multipliers (`mixKey`).
        public static let c1: UInt32 = 0xcc9e_2d51, c2: UInt32 = 0x1b87_3593
        /// The finaliser's multipliers (`finalMix`).
        public static let f1: UInt32 = 0x85eb_ca6b, f2: UInt32 = 0xc2b2_ae35
    }

    /// fmix32: forces every input bit to affect every output bit.
    @inlinable @inline(__always)
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
