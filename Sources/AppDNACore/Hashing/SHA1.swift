/// SHA-1 (FIPS 180-4), kept deliberately small and simple.
///
/// AppDNA never signs or verifies with SHA-1. It exists only so `webhook verify --explain` can
/// tell a user "this 40-hex signature is HMAC-SHA1 of your body with your secret", a common
/// mistake when a receiver was copied from another provider's sample code.
public struct SHA1: HashFunction, Sendable {
    public static let digestByteCount = 20
    public static let blockByteCount = 64

    var state: (UInt32, UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476, 0xc3d2_e1f0)
    var pending = BlockBuffer()
    var pendingCount = 0
    var totalCount: UInt64 = 0

    public init() {}

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        totalCount &+= UInt64(bytes.count)
        for byte in bytes {
            let index = pendingCount
            withUnsafeMutableBytes(of: &pending) { $0[index] = byte }
            pendingCount += 1
            if pendingCount == 64 {
                var block = pending
                withUnsafeBytes(of: &block) { compress($0) }
                pendingCount = 0
            }
        }
    }

    public consuming func finalize() -> [UInt8] {
        let bitLength = totalCount &* 8
        var padding: [UInt8] = [0x80]
        padding.append(contentsOf: repeatElement(0, count: (55 - pendingCount + 64) % 64))
        withUnsafeBytes(of: bitLength.bigEndian) { padding.append(contentsOf: $0) }
        padding.withUnsafeBytes { update($0) }
        var digest = [UInt8]()
        for word in [state.0, state.1, state.2, state.3, state.4] {
            withUnsafeBytes(of: word.bigEndian) { digest.append(contentsOf: $0) }
        }
        return digest
    }

    private mutating func compress(_ block: UnsafeRawBufferPointer) {
        var w = [UInt32](repeating: 0, count: 80)
        for t in 0..<16 {
            w[t] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: t * 4, as: UInt32.self))
        }
        for t in 16..<80 {
            w[t] = Self.rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1)
        }
        var (a, b, c, d, e) = state
        for t in 0..<80 {
            let f: UInt32, k: UInt32
            switch t {
            case 0..<20: f = (b & c) | (~b & d); k = 0x5a82_7999
            case 20..<40: f = b ^ c ^ d; k = 0x6ed9_eba1
            case 40..<60: f = (b & c) | (b & d) | (c & d); k = 0x8f1b_bcdc
            default: f = b ^ c ^ d; k = 0xca62_c1d6
            }
            let temp = Self.rotl(a, 5) &+ f &+ e &+ k &+ w[t]
            e = d; d = c; c = Self.rotl(b, 30); b = a; a = temp
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e)
    }

    private static func rotl(_ x: UInt32, _ n: UInt32) -> UInt32 { (x &<< n) | (x &>> (32 &- n)) }
}
