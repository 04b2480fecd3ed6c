import XCTest
@testable import AppDNACore

final class PortabilityHazardTests: XCTestCase {
    func codes(_ user: String, _ experiment: String = "exp", _ salt: String = "s") -> [String] {
        PortabilityHazards.check(user: user, experiment: experiment, salt: salt, scheme: .sdk).map(\.code)
    }

    func testEachHazardIsReportedOnlyWhenItApplies() {
        XCTAssertTrue(codes("café").contains("unicode-nfd"), "NFC input: the NFD form differs")
        XCTAssertTrue(codes("cafe\u{301}").contains("unicode-nfc"), "NFD input: the NFC form differs")
        XCTAssertTrue(codes("café").contains("non-ascii"))
        XCTAssertTrue(codes(" user").contains("whitespace"))
        XCTAssertTrue(codes("user", "exp", "").contains("blank-salt"))
        XCTAssertFalse(codes("plain").contains { ["unicode-nfc", "unicode-nfd", "non-ascii", "whitespace", "blank-salt"].contains($0) })
    }

    func testBlankSaltNamesWhatOldIOSHashes() {
        let hazard = PortabilityHazards.check(user: "user-123", experiment: "onboarding-v2", salt: "", scheme: .sdk).first { $0.code == "blank-salt" }!
        let legacy = MurmurHash3.x86_32(utf8: "onboarding-v2..user-123") % 10_000
        XCTAssertTrue(hazard.message.contains("\"onboarding-v2..user-123\" (bucket \(legacy))"), hazard.message)
        XCTAssertTrue(hazard.message.contains("bucket 5466"))
    }

    func testSignedModuloMatchesJavaArithmetic() {
        // exp_paywall_v3.a8f3c9d2.user_12345 hashes to 3214585791, which is -1080381505 as Int32;
        // Java's -1080381505 % 10000 is -1505.
        let hazard = PortabilityHazards.check(user: "user_12345", experiment: "exp_paywall_v3", salt: "a8f3c9d2", scheme: .sdk).first { $0.code == "signed-modulo" }
        XCTAssertNotNil(hazard)
        XCTAssertTrue(hazard!.message.contains("gets -1505"))
    }

    func testSignExtendedTailOnlyDiffersForHighTailBytes() {
        XCTAssertEqual(PortabilityHazards.signExtendedTailHash(Array("abcde".utf8)), MurmurHash3.x86_32(Array("abcde".utf8)))
        let bytes: [UInt8] = [0x61, 0x62, 0x63, 0x64, 0xc3, 0xa9]
        XCTAssertNotEqual(PortabilityHazards.signExtendedTailHash(bytes), MurmurHash3.x86_32(bytes))
        // Independent check: the plain reference with Java's signed tail bytes.
        func javaStyle(_ data: [UInt8]) -> UInt32 {
            func rotl(_ x: UInt32, _ r: UInt32) -> UInt32 { (x << r) | (x >> (32 - r)) }
            let blocks = data.count / 4 * 4
            var h: UInt32 = 0
            for i in stride(from: 0, to: blocks, by: 4) {
                var k = UInt32(data[i]) | UInt32(data[i + 1]) << 8 | UInt32(data[i + 2]) << 16 | UInt32(data[i + 3]) << 24
                k = rotl(k &* 0xcc9e2d51, 15) &* 0x1b873593
                h = rotl(h ^ k, 13) &* 5 &+ 0xe6546b64
            }
            var k: UInt32 = 0
            for offset in (0..<(data.count - blocks)).reversed() {
                k ^= UInt32(bitPattern: Int32(Int8(bitPattern: data[blocks + offset]))) << (8 * UInt32(offset))
            }
            h ^= rotl(k &* 0xcc9e2d51, 15) &* 0x1b873593
            h ^= UInt32(data.count)
            h ^= h >> 16; h = h &* 0x85ebca6b; h ^= h >> 13; h = h &* 0xc2b2ae35; h ^= h >> 16
            return h
        }
        XCTAssertEqual(PortabilityHazards.signExtendedTailHash(bytes), javaStyle(bytes))
        XCTAssertEqual(PortabilityHazards.signExtendedTailHash([0xff, 0x80, 0x7f]), javaStyle([0xff, 0x80, 0x7f]))
    }
}
