import CSHA256

/// SHA-256 (FIPS 180-4), streaming and one-shot.
///
/// Webhook bodies are hashed on every `appdna webhook verify`, so the block function is written
/// for speed. On CPUs with the SHA extensions (checked once at run time) blocks go to the small
/// C function in Sources/CSHA256, about four times faster. Everywhere else, and as the reference
/// the tests hold the hardware path to, the portable Swift block function below is used: its 64
/// rounds are unrolled (generated, see `compressPortable`), the message schedule lives in
/// sixteen locals instead of an array, and blocks are read straight from the caller's memory.
/// Nothing is allocated per block; the only heap allocation is the digest.
public struct SHA256: HashFunction, Sendable {
    public static let digestByteCount = 32
    public static let blockByteCount = 64

    /// The eight working words (H0…H7 in FIPS 180-4).
    @usableFromInline var h0: UInt32 = 0x6a09_e667, h1: UInt32 = 0xbb67_ae85
    @usableFromInline var h2: UInt32 = 0x3c6e_f372, h3: UInt32 = 0xa54f_f53a
    @usableFromInline var h4: UInt32 = 0x510e_527f, h5: UInt32 = 0x9b05_688c
    @usableFromInline var h6: UInt32 = 0x1f83_d9ab, h7: UInt32 = 0x5be0_cd19

    /// A partial block carried between `update` calls. A tuple, not an array, so copying a
    /// hasher (HMAC keeps pre-keyed copies) never touches the heap.
    @usableFromInline var pending = BlockBuffer()
    @usableFromInline var pendingCount = 0
    /// Total message length in bytes; the padding needs it in bits (mod 2^64).
    @usableFromInline var totalCount: UInt64 = 0

    /// Tests set this to hold the hardware path to the portable one.
    @usableFromInline var portableOnly = false

    public init() {}

    /// A hasher that never uses the SHA extensions, for testing the portable code on any CPU.
    init(portableOnly: Bool) {
        self.portableOnly = portableOnly
    }

    /// Whether this CPU can run the hardware block function; asked once per process.
    public static let usesHardwareAcceleration: Bool = appdna_sha256_hardware_available() != 0

    /// Hashes `bytes` in one go.
    public static func hash(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var source = bytes.baseAddress, bytes.count > 0 else { return }
        var remaining = bytes.count
        totalCount &+= UInt64(truncatingIfNeeded: remaining)

        // Top up a partial block first.
        if pendingCount > 0 {
            let take = min(Self.blockByteCount - pendingCount, remaining)
            let filled = pendingCount
            withUnsafeMutableBytes(of: &pending) { buffer in
                (buffer.baseAddress! + filled).copyMemory(from: source, byteCount: take)
            }
            pendingCount += take
            source += take
            remaining -= take
            if pendingCount < Self.blockByteCount { return }
            var copy = pending
            withUnsafeBytes(of: &copy) { compress($0.baseAddress!, blockCount: 1) }
            pendingCount = 0
        }

        // Whole blocks straight from the caller's memory.
        let blocks = remaining / Self.blockByteCount
        if blocks > 0 {
            compress(source, blockCount: blocks)
            source += blocks * Self.blockByteCount
            remaining -= blocks * Self.blockByteCount
        }

        if remaining > 0 {
            withUnsafeMutableBytes(of: &pending) { buffer in
                buffer.baseAddress!.copyMemory(from: source, byteCount: remaining)
            }
            pendingCount = remaining
        }
    }

    /// Pads (0x80, zeros, 64-bit big-endian bit length) and returns the 32-byte digest.
    /// The hasher is consumed: it is a value, so callers keep a copy if they need to go on.
    public consuming func finalize() -> [UInt8] {
        let bitLength = totalCount &* 8
        var tail = (BlockBuffer(), BlockBuffer())
        let used = pendingCount
        // One block if the length still fits after the 0x80 byte, otherwise two.
        let tailBlocks = used < 56 ? 1 : 2
        withUnsafeMutableBytes(of: &tail) { buffer in
            withUnsafeBytes(of: &pending) { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[0..<used])) }
            buffer[used] = 0x80
            buffer.storeBytes(of: bitLength.bigEndian, toByteOffset: tailBlocks * 64 - 8, as: UInt64.self)
        }
        withUnsafeBytes(of: &tail) { compress($0.baseAddress!, blockCount: tailBlocks) }

        var digest = [UInt8](repeating: 0, count: Self.digestByteCount)
        digest.withUnsafeMutableBytes { out in
            for (index, word) in [h0, h1, h2, h3, h4, h5, h6, h7].enumerated() {
                out.storeBytes(of: word.bigEndian, toByteOffset: index * 4, as: UInt32.self)
            }
        }
        return digest
    }

    // MARK: - The block function

    @inline(__always)
    static func bigSigma0(_ x: UInt32) -> UInt32 { rotr(x, 2) ^ rotr(x, 13) ^ rotr(x, 22) }
    @inline(__always)
    static func bigSigma1(_ x: UInt32) -> UInt32 { rotr(x, 6) ^ rotr(x, 11) ^ rotr(x, 25) }
    @inline(__always)
    static func smallSigma0(_ x: UInt32) -> UInt32 { rotr(x, 7) ^ rotr(x, 18) ^ (x >> 3) }
    @inline(__always)
    static func smallSigma1(_ x: UInt32) -> UInt32 { rotr(x, 17) ^ rotr(x, 19) ^ (x >> 10) }
    @inline(__always)
    static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x &>> n) | (x &<< (32 &- n)) }

    /// One round. Instead of shuffling eight variables each round, the callers rotate the
    /// argument names, so only `d` and `h` are written (d += T1, h = T1 + T2).
    @inline(__always)
    static func round(
        _ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32,
        _ e: UInt32, _ f: UInt32, _ g: UInt32, _ h: inout UInt32, _ kw: UInt32
    ) {
        let t1 = h &+ bigSigma1(e) &+ ((e & f) ^ (~e & g)) &+ kw
        let t2 = bigSigma0(a) &+ ((a & b) ^ (a & c) ^ (b & c))
        d = d &+ t1
        h = t1 &+ t2
    }

    /// Compresses `blockCount` consecutive 64-byte blocks at `start` into the state.
    @usableFromInline
    mutating func compress(_ start: UnsafeRawPointer, blockCount: Int) {
        guard Self.usesHardwareAcceleration && !portableOnly else {
            compressPortable(start, blockCount: blockCount)
            return
        }
        var words = (h0, h1, h2, h3, h4, h5, h6, h7)
        withUnsafeMutableBytes(of: &words) { state in
            appdna_sha256_blocks_hardware(
                state.baseAddress!.assumingMemoryBound(to: UInt32.self),
                start.assumingMemoryBound(to: UInt8.self), blockCount)
        }
        (h0, h1, h2, h3, h4, h5, h6, h7) = words
    }

    /// The portable block function.
    ///
    /// The round lines below were generated (each round's K constant folded in, W kept in a
    /// 16-word ring of locals w0…w15); they are plain FIPS 180-4 §6.2.2, unrolled.
    @usableFromInline
    mutating func compressPortable(_ start: UnsafeRawPointer, blockCount: Int) {
        var a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7
        var w0: UInt32 = 0, w1: UInt32 = 0, w2: UInt32 = 0, w3: UInt32 = 0
        var w4: UInt32 = 0, w5: UInt32 = 0, w6: UInt32 = 0, w7: UInt32 = 0
        var w8: UInt32 = 0, w9: UInt32 = 0, w10: UInt32 = 0, w11: UInt32 = 0
        var w12: UInt32 = 0, w13: UInt32 = 0, w14: UInt32 = 0, w15: UInt32 = 0
        var block = start
        for _ in 0..<blockCount {
            w0 = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
            Self.round(a, b, c, &d, e, f, g, &h, 0x428a2f98 &+ w0)
            w1 = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
            Self.round(h, a, b, &c, d, e, f, &g, 0x71374491 &+ w1)
            w2 = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
            Self.round(g, h, a, &b, c, d, e, &f, 0xb5c0fbcf &+ w2)
            w3 = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
            Self.round(f, g, h, &a, b, c, d, &e, 0xe9b5dba5 &+ w3)
            w4 = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 16, as: UInt32.self))
            Self.round(e, f, g, &h, a, b, c, &d, 0x3956c25b &+ w4)
            w5 = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 20, as: UInt32.self))
            Self.round(d, e, f, &g, h, a, b, &c, 0x59f111f1 &+ w5)
            w6 = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 24, as: UInt32.self))
            Self.round(c, d, e, &f, g, h, a, &b, 0x923f82a4 &+ w6)
            w7 = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 28, as: UInt32.self))
            Self.round(b, c, d, &e, f, g, h, &a, 0xab1c5ed5 &+ w7)
            w8 = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 32, as: UInt32.self))
            Self.round(a, b, c, &d, e, f, g, &h, 0xd807aa98 &+ w8)
            w9 = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 36, as: UInt32.self))
            Self.round(h, a, b, &c, d, e, f, &g, 0x12835b01 &+ w9)
            w10 = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 40, as: UInt32.self))
            Self.round(g, h, a, &b, c, d, e, &f, 0x243185be &+ w10)
            w11 = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 44, as: UInt32.self))
            Self.round(f, g, h, &a, b, c, d, &e, 0x550c7dc3 &+ w11)
            w12 = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 48, as: UInt32.self))
            Self.round(e, f, g, &h, a, b, c, &d, 0x72be5d74 &+ w12)
            w13 = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 52, as: UInt32.self))
            Self.round(d, e, f, &g, h, a, b, &c, 0x80deb1fe &+ w13)
            w14 = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 56, as: UInt32.self))
            Self.round(c, d, e, &f, g, h, a, &b, 0x9bdc06a7 &+ w14)
            w15 = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 60, as: UInt32.self))
            Self.round(b, c, d, &e, f, g, h, &a, 0xc19bf174 &+ w15)
            w0 = w0 &+ Self.smallSigma1(w14) &+ w9 &+ Self.smallSigma0(w1)
            Self.round(a, b, c, &d, e, f, g, &h, 0xe49b69c1 &+ w0)
            w1 = w1 &+ Self.smallSigma1(w15) &+ w10 &+ Self.smallSigma0(w2)
            Self.round(h, a, b, &c, d, e, f, &g, 0xefbe4786 &+ w1)
            w2 = w2 &+ Self.smallSigma1(w0) &+ w11 &+ Self.smallSigma0(w3)
            Self.round(g, h, a, &b, c, d, e, &f, 0x0fc19dc6 &+ w2)
            w3 = w3 &+ Self.smallSigma1(w1) &+ w12 &+ Self.smallSigma0(w4)
            Self.round(f, g, h, &a, b, c, d, &e, 0x240ca1cc &+ w3)
            w4 = w4 &+ Self.smallSigma1(w2) &+ w13 &+ Self.smallSigma0(w5)
            Self.round(e, f, g, &h, a, b, c, &d, 0x2de92c6f &+ w4)
            w5 = w5 &+ Self.smallSigma1(w3) &+ w14 &+ Self.smallSigma0(w6)
            Self.round(d, e, f, &g, h, a, b, &c, 0x4a7484aa &+ w5)
            w6 = w6 &+ Self.smallSigma1(w4) &+ w15 &+ Self.smallSigma0(w7)
            Self.round(c, d, e, &f, g, h, a, &b, 0x5cb0a9dc &+ w6)
            w7 = w7 &+ Self.smallSigma1(w5) &+ w0 &+ Self.smallSigma0(w8)
            Self.round(b, c, d, &e, f, g, h, &a, 0x76f988da &+ w7)
            w8 = w8 &+ Self.smallSigma1(w6) &+ w1 &+ Self.smallSigma0(w9)
            Self.round(a, b, c, &d, e, f, g, &h, 0x983e5152 &+ w8)
            w9 = w9 &+ Self.smallSigma1(w7) &+ w2 &+ Self.smallSigma0(w10)
            Self.round(h, a, b, &c, d, e, f, &g, 0xa831c66d &+ w9)
            w10 = w10 &+ Self.smallSigma1(w8) &+ w3 &+ Self.smallSigma0(w11)
            Self.round(g, h, a, &b, c, d, e, &f, 0xb00327c8 &+ w10)
            w11 = w11 &+ Self.smallSigma1(w9) &+ w4 &+ Self.smallSigma0(w12)
            Self.round(f, g, h, &a, b, c, d, &e, 0xbf597fc7 &+ w11)
            w12 = w12 &+ Self.smallSigma1(w10) &+ w5 &+ Self.smallSigma0(w13)
            Self.round(e, f, g, &h, a, b, c, &d, 0xc6e00bf3 &+ w12)
            w13 = w13 &+ Self.smallSigma1(w11) &+ w6 &+ Self.smallSigma0(w14)
            Self.round(d, e, f, &g, h, a, b, &c, 0xd5a79147 &+ w13)
            w14 = w14 &+ Self.smallSigma1(w12) &+ w7 &+ Self.smallSigma0(w15)
            Self.round(c, d, e, &f, g, h, a, &b, 0x06ca6351 &+ w14)
            w15 = w15 &+ Self.smallSigma1(w13) &+ w8 &+ Self.smallSigma0(w0)
            Self.round(b, c, d, &e, f, g, h, &a, 0x14292967 &+ w15)
            w0 = w0 &+ Self.smallSigma1(w14) &+ w9 &+ Self.smallSigma0(w1)
            Self.round(a, b, c, &d, e, f, g, &h, 0x27b70a85 &+ w0)
            w1 = w1 &+ Self.smallSigma1(w15) &+ w10 &+ Self.smallSigma0(w2)
            Self.round(h, a, b, &c, d, e, f, &g, 0x2e1b2138 &+ w1)
            w2 = w2 &+ Self.smallSigma1(w0) &+ w11 &+ Self.smallSigma0(w3)
            Self.round(g, h, a, &b, c, d, e, &f, 0x4d2c6dfc &+ w2)
            w3 = w3 &+ Self.smallSigma1(w1) &+ w12 &+ Self.smallSigma0(w4)
            Self.round(f, g, h, &a, b, c, d, &e, 0x53380d13 &+ w3)
            w4 = w4 &+ Self.smallSigma1(w2) &+ w13 &+ Self.smallSigma0(w5)
            Self.round(e, f, g, &h, a, b, c, &d, 0x650a7354 &+ w4)
            w5 = w5 &+ Self.smallSigma1(w3) &+ w14 &+ Self.smallSigma0(w6)
            Self.round(d, e, f, &g, h, a, b, &c, 0x766a0abb &+ w5)
            w6 = w6 &+ Self.smallSigma1(w4) &+ w15 &+ Self.smallSigma0(w7)
            Self.round(c, d, e, &f, g, h, a, &b, 0x81c2c92e &+ w6)
            w7 = w7 &+ Self.smallSigma1(w5) &+ w0 &+ Self.smallSigma0(w8)
            Self.round(b, c, d, &e, f, g, h, &a, 0x92722c85 &+ w7)
            w8 = w8 &+ Self.smallSigma1(w6) &+ w1 &+ Self.smallSigma0(w9)
            Self.round(a, b, c, &d, e, f, g, &h, 0xa2bfe8a1 &+ w8)
            w9 = w9 &+ Self.smallSigma1(w7) &+ w2 &+ Self.smallSigma0(w10)
            Self.round(h, a, b, &c, d, e, f, &g, 0xa81a664b &+ w9)
            w10 = w10 &+ Self.smallSigma1(w8) &+ w3 &+ Self.smallSigma0(w11)
            Self.round(g, h, a, &b, c, d, e, &f, 0xc24b8b70 &+ w10)
            w11 = w11 &+ Self.smallSigma1(w9) &+ w4 &+ Self.smallSigma0(w12)
            Self.round(f, g, h, &a, b, c, d, &e, 0xc76c51a3 &+ w11)
            w12 = w12 &+ Self.smallSigma1(w10) &+ w5 &+ Self.smallSigma0(w13)
            Self.round(e, f, g, &h, a, b, c, &d, 0xd192e819 &+ w12)
            w13 = w13 &+ Self.smallSigma1(w11) &+ w6 &+ Self.smallSigma0(w14)
            Self.round(d, e, f, &g, h, a, b, &c, 0xd6990624 &+ w13)
            w14 = w14 &+ Self.smallSigma1(w12) &+ w7 &+ Self.smallSigma0(w15)
            Self.round(c, d, e, &f, g, h, a, &b, 0xf40e3585 &+ w14)
            w15 = w15 &+ Self.smallSigma1(w13) &+ w8 &+ Self.smallSigma0(w0)
            Self.round(b, c, d, &e, f, g, h, &a, 0x106aa070 &+ w15)
            w0 = w0 &+ Self.smallSigma1(w14) &+ w9 &+ Self.smallSigma0(w1)
            Self.round(a, b, c, &d, e, f, g, &h, 0x19a4c116 &+ w0)
            w1 = w1 &+ Self.smallSigma1(w15) &+ w10 &+ Self.smallSigma0(w2)
            Self.round(h, a, b, &c, d, e, f, &g, 0x1e376c08 &+ w1)
            w2 = w2 &+ Self.smallSigma1(w0) &+ w11 &+ Self.smallSigma0(w3)
            Self.round(g, h, a, &b, c, d, e, &f, 0x2748774c &+ w2)
            w3 = w3 &+ Self.smallSigma1(w1) &+ w12 &+ Self.smallSigma0(w4)
            Self.round(f, g, h, &a, b, c, d, &e, 0x34b0bcb5 &+ w3)
            w4 = w4 &+ Self.smallSigma1(w2) &+ w13 &+ Self.smallSigma0(w5)
            Self.round(e, f, g, &h, a, b, c, &d, 0x391c0cb3 &+ w4)
            w5 = w5 &+ Self.smallSigma1(w3) &+ w14 &+ Self.smallSigma0(w6)
            Self.round(d, e, f, &g, h, a, b, &c, 0x4ed8aa4a &+ w5)
            w6 = w6 &+ Self.smallSigma1(w4) &+ w15 &+ Self.smallSigma0(w7)
            Self.round(c, d, e, &f, g, h, a, &b, 0x5b9cca4f &+ w6)
            w7 = w7 &+ Self.smallSigma1(w5) &+ w0 &+ Self.smallSigma0(w8)
            Self.round(b, c, d, &e, f, g, h, &a, 0x682e6ff3 &+ w7)
            w8 = w8 &+ Self.smallSigma1(w6) &+ w1 &+ Self.smallSigma0(w9)
            Self.round(a, b, c, &d, e, f, g, &h, 0x748f82ee &+ w8)
            w9 = w9 &+ Self.smallSigma1(w7) &+ w2 &+ Self.smallSigma0(w10)
            Self.round(h, a, b, &c, d, e, f, &g, 0x78a5636f &+ w9)
            w10 = w10 &+ Self.smallSigma1(w8) &+ w3 &+ Self.smallSigma0(w11)
            Self.round(g, h, a, &b, c, d, e, &f, 0x84c87814 &+ w10)
            w11 = w11 &+ Self.smallSigma1(w9) &+ w4 &+ Self.smallSigma0(w12)
            Self.round(f, g, h, &a, b, c, d, &e, 0x8cc70208 &+ w11)
            w12 = w12 &+ Self.smallSigma1(w10) &+ w5 &+ Self.smallSigma0(w13)
            Self.round(e, f, g, &h, a, b, c, &d, 0x90befffa &+ w12)
            w13 = w13 &+ Self.smallSigma1(w11) &+ w6 &+ Self.smallSigma0(w14)
            Self.round(d, e, f, &g, h, a, b, &c, 0xa4506ceb &+ w13)
            w14 = w14 &+ Self.smallSigma1(w12) &+ w7 &+ Self.smallSigma0(w15)
            Self.round(c, d, e, &f, g, h, a, &b, 0xbef9a3f7 &+ w14)
            w15 = w15 &+ Self.smallSigma1(w13) &+ w8 &+ Self.smallSigma0(w0)
            Self.round(b, c, d, &e, f, g, h, &a, 0xc67178f2 &+ w15)
            a = a &+ h0; b = b &+ h1; c = c &+ h2; d = d &+ h3
            e = e &+ h4; f = f &+ h5; g = g &+ h6; h = h &+ h7
            h0 = a; h1 = b; h2 = c; h3 = d; h4 = e; h5 = f; h6 = g; h7 = h
            block += 64
        }
    }
}
