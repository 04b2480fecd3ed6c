import XCTest
@testable import AppDNACore

/// arm64 (Apple silicon, Graviton, ubuntu-24.04-arm) never takes the x86 tricks: SHA-256 runs
/// the portable Swift block function (CSHA256's non-x86 branch reports no hardware), and so does
/// every HMAC built on it. These tests force those portable paths on this x86 machine and hold
/// them to the fast ones on the same varied inputs, so a bug on the arm64 side shows up here.
/// MurmurHash3's word loads are checked against a byte-at-a-time reference at every alignment,
/// since arm64 and x86 differ in what unaligned loads cost, not in what they return.
final class PortableCPUPathTests: XCTestCase {
    /// SHA-256 that never uses the SHA extensions: what arm64 runs.
    struct PortableSHA256: HashFunction {
        static let digestByteCount = SHA256.digestByteCount
        static let blockByteCount = SHA256.blockByteCount
        var inner = SHA256(portableOnly: true)
        init() {}
        mutating func update(_ bytes: UnsafeRawBufferPointer) { inner.update(bytes) }
        consuming func finalize() -> [UInt8] { inner.finalize() }
    }

    func testSHA256PortablePathMatchesTheSelectedOneInPiecesOfEverySize() {
        var random = SplitMix64(seed: 0x5EED_2020)
        for length in [0, 1, 55, 56, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 4096, 65_537] {
            let data = random.bytes(length)
            // Fed in random-sized pieces, so block boundaries fall inside updates.
            var portable = SHA256(portableOnly: true), selected = SHA256()
            var offset = 0
            while offset < data.count {
                let piece = min(data.count - offset, Int(random.next() % 150) + 1)
                data[offset..<offset + piece].withUnsafeBytes { portable.update($0); selected.update($0) }
                offset += piece
            }
            XCTAssertEqual(Hex.encode(portable.finalize()), Hex.encode(selected.finalize()), "length \(length)")
        }
        print("SHA-256 fast path on this machine: \(SHA256.usesHardwareAcceleration ? "SHA extensions" : "portable (no SHA extensions: both sides are portable)")")
    }

    func testHMACOverThePortableSHA256MatchesHMACSHA256() {
        var random = SplitMix64(seed: 0x4D4C)
        // Keys shorter than, equal to and longer than the block (hashed first); bodies of all sizes.
        for keyLength in [0, 1, 32, 63, 64, 65, 200] {
            for bodyLength in [0, 1, 63, 64, 65, 1000, 20_000] {
                let key = random.bytes(keyLength), body = random.bytes(bodyLength)
                XCTAssertEqual(HMAC<PortableSHA256>.authenticationCode(for: body, key: key),
                               HMACSHA256.authenticationCode(for: body, key: key), "key \(keyLength), body \(bodyLength)")
            }
        }
        // RFC 4231 test case 2 on the portable side, in case both sides were wrong the same way.
        XCTAssertEqual(Hex.encode(HMAC<PortableSHA256>.authenticationCode(for: Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8))),
                       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    func testMurmurHash3WordLoadsMatchAByteAtATimeReferenceAtEveryAlignment() {
        func reference(_ data: [UInt8], seed: UInt32) -> UInt32 {
            func rotl(_ x: UInt32, _ r: UInt32) -> UInt32 { (x << r) | (x >> (32 - r)) }
            var h = seed
            let blocks = data.count / 4
            for block in 0..<blocks {
                var k = UInt32(data[block * 4]) | UInt32(data[block * 4 + 1]) << 8 | UInt32(data[block * 4 + 2]) << 16 | UInt32(data[block * 4 + 3]) << 24
                k = rotl(k &* 0xcc9e2d51, 15) &* 0x1b873593
                h = rotl(h ^ k, 13) &* 5 &+ 0xe6546b64
            }
            var k: UInt32 = 0
            let tail = data.count - blocks * 4
            if tail >= 3 { k ^= UInt32(data[blocks * 4 + 2]) << 16 }
            if tail >= 2 { k ^= UInt32(data[blocks * 4 + 1]) << 8 }
            if tail >= 1 { k ^= UInt32(data[blocks * 4]); h ^= rotl(k &* 0xcc9e2d51, 15) &* 0x1b873593 }
            h ^= UInt32(data.count)
            h ^= h >> 16; h = h &* 0x85ebca6b; h ^= h >> 13; h = h &* 0xc2b2ae35; h ^= h >> 16
            return h
        }
        var random = SplitMix64(seed: 0x3333)
        for length in Array(0...40) + [255, 1024] {
            let data = random.bytes(length)
            let seed = UInt32(truncatingIfNeeded: random.next())
            let expected = reference(data, seed: seed)
            // The same bytes at each offset into a larger buffer: aligned and unaligned loads.
            for offset in 0..<8 {
                let padded = random.bytes(offset) + data + random.bytes(3)
                padded.withUnsafeBytes { raw in
                    let slice = UnsafeRawBufferPointer(rebasing: raw[offset..<offset + length])
                    XCTAssertEqual(MurmurHash3.x86_32(slice, seed: seed), expected, "length \(length), offset \(offset)")
                    // Batch bucketing's resumed form, split at every 4-byte prefix.
                    for split in stride(from: 0, through: length, by: 4) {
                        let state = MurmurHash3.state(afterBlocksOf: UnsafeRawBufferPointer(rebasing: slice[..<split]), seed: seed)
                        let rest = UnsafeRawBufferPointer(rebasing: slice[split...])
                        XCTAssertEqual(MurmurHash3.x86_32(resuming: state, totalCount: length, rest), expected, "split \(split)")
                    }
                }
            }
            XCTAssertEqual(MurmurHash3.x86_32(data, seed: seed), expected)
        }
    }
}
