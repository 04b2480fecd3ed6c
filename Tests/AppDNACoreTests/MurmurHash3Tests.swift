import XCTest
import TestSupport
@testable import AppDNACore

final class MurmurHash3Tests: XCTestCase {
    /// Resuming after a prefix's whole blocks (batch bucketing's shortcut) gives the hash of the
    /// whole string, wherever the prefix ends and whatever the seed.
    func testResumingAfterAPrefixGivesTheWholeHash() {
        let text = Array("checkout_2024.s3cr3t.user-0001234-56789 é🚀".utf8)
        for seed: UInt32 in [0, 1, 0x9747_b28c] {
            for split in 0...text.count {
                let whole = MurmurHash3.x86_32(text, seed: seed)
                let resumed = text.withUnsafeBytes { bytes -> UInt32 in
                    let state = MurmurHash3.state(afterBlocksOf: UnsafeRawBufferPointer(rebasing: bytes[..<split]), seed: seed)
                    return MurmurHash3.x86_32(resuming: state, totalCount: text.count, UnsafeRawBufferPointer(rebasing: bytes[(split & ~3)...]))
                }
                XCTAssertEqual(resumed, whole, "prefix of \(split) bytes, seed \(seed)")
            }
        }
    }

    /// The batch's form: the prefix's last bytes given as a word, the rest read where it lies
    /// (no copy behind them) — for every count of those bytes, every length of the rest and
    /// every alignment of it, the hash of the whole string.
    func testResumingWithThePrefixsLastBytesAsAWordGivesTheWholeHash() {
        var generator = SplitMix64(seed: 0x1ead)
        for prefixLength in 0...11 {
            for restLength in 0...40 {
                let prefix = (0..<prefixLength).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
                let rest = (0..<restLength).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
                let whole = MurmurHash3.x86_32(prefix + rest)
                let leadingCount = prefixLength & 3
                let leading = prefix.suffix(leadingCount).enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << UInt32($1.offset * 8) }
                let state = prefix.withUnsafeBytes { MurmurHash3.state(afterBlocksOf: $0) }
                for offset in 0..<4 {
                    let padded = [UInt8](repeating: 0xEE, count: offset) + rest + [0xEE, 0xEE, 0xEE]
                    let resumed = padded.withUnsafeBytes { raw in
                        MurmurHash3.x86_32(resuming: state, leading: leading, leadingCount: leadingCount, totalCount: prefixLength + restLength,
                                           UnsafeRawBufferPointer(rebasing: raw[offset..<offset + restLength]))
                    }
                    XCTAssertEqual(resumed, whole, "prefix \(prefixLength), rest \(restLength), offset \(offset)")
                }
            }
        }
    }

    func testEveryPublishedVector() throws {
        let vectors = try Fixtures.json("murmur3_x86_32.json")["vectors"] as! [[String: Any]]
        XCTAssertGreaterThanOrEqual(vectors.count, 27)
        for vector in vectors {
            let input = bytes(fromHex: vector["input_hex"] as! String)
            if let text = vector["input_utf8"] as? String {
                XCTAssertEqual(Array(text.utf8), input, "fixture's hex and text disagree: \(vector["label"]!)")
                XCTAssertEqual(MurmurHash3.x86_32(utf8: text, seed: UInt32(vector["seed"] as! Int)), UInt32(vector["hash"] as! Int))
            }
            let hash = MurmurHash3.x86_32(input, seed: UInt32(vector["seed"] as! UInt64))
            XCTAssertEqual(hash, UInt32(vector["hash"] as! UInt64), "\(vector["label"]!)")
        }
    }

    /// Against an independent, deliberately plain implementation (byte by byte, no unsafe
    /// loads, written from the algorithm's description) on random inputs of every length 0–64.
    func testAgreesWithAnIndependentReferenceOnRandomBytes() {
        var generator = SplitMix64(seed: 0x5eed_1234)
        for length in 0...64 {
            for _ in 0..<200 {
                let input = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
                let seed = length % 3 == 0 ? 0 : UInt32(truncatingIfNeeded: generator.next())
                XCTAssertEqual(MurmurHash3.x86_32(input, seed: seed), referenceMurmur3(input, seed: seed), "length \(length)")
            }
        }
    }

    func testNonContiguousCollectionsHashLikeArrays() {
        let text = "exp_paywall_v3.a8f3c9d2.user_12345"
        XCTAssertEqual(MurmurHash3.x86_32(text.utf8.reversed().reversed()), MurmurHash3.x86_32(Array(text.utf8)))
        XCTAssertEqual(MurmurHash3.x86_32(utf8: text), 3_214_585_791)
    }
}

/// MurmurHash3_x86_32 straight from the algorithm's description.
func referenceMurmur3(_ data: [UInt8], seed: UInt32) -> UInt32 {
    func rotl(_ x: UInt32, _ r: UInt32) -> UInt32 { (x << r) | (x >> (32 - r)) }
    var h = seed
    let c1: UInt32 = 0xcc9e2d51, c2: UInt32 = 0x1b873593
    var i = 0
    while i + 4 <= data.count {
        var k = UInt32(data[i]) | UInt32(data[i + 1]) << 8 | UInt32(data[i + 2]) << 16 | UInt32(data[i + 3]) << 24
        k = rotl(k &* c1, 15) &* c2
        h = rotl(h ^ k, 13) &* 5 &+ 0xe6546b64
        i += 4
    }
    var k: UInt32 = 0
    let rest = data.count - i
    if rest >= 3 { k ^= UInt32(data[i + 2]) << 16 }
    if rest >= 2 { k ^= UInt32(data[i + 1]) << 8 }
    if rest >= 1 {
        k ^= UInt32(data[i])
        h ^= rotl(k &* c1, 15) &* c2
    }
    h ^= UInt32(data.count)
    h ^= h >> 16; h = h &* 0x85ebca6b; h ^= h >> 13; h = h &* 0xc2b2ae35; h ^= h >> 16
    return h
}
