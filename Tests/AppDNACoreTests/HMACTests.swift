import Foundation
import XCTest
@testable import AppDNACore

final class HMACTests: XCTestCase {
    /// RFC 4231 test cases 1–7 (case 5's truncated output compared as a prefix).
    func testRFC4231Vectors() throws {
        let vectors = try XCTUnwrap(try TestSupport.fixture("sha256_hmac.json")["hmac_sha256"] as? [[String: Any]])
        XCTAssertEqual(vectors.count, 7)
        for vector in vectors {
            let name = vector["case"] as? String ?? "?"
            let key = TestSupport.bytes(hex: try XCTUnwrap(vector["key_hex"] as? String))
            let data = TestSupport.bytes(hex: try XCTUnwrap(vector["data_hex"] as? String))
            let expected = try XCTUnwrap(vector["hmac_sha256"] as? String)
            let mac = Hex.encode(HMACSHA256.authenticationCode(for: data, key: key))
            if expected.count < 64 {
                XCTAssertTrue(mac.hasPrefix(expected), name)
            } else {
                XCTAssertEqual(mac, expected, name)
            }
        }
    }

    /// The webhook header examples from the fixture file.
    func testWebhookHeaderVectors() throws {
        let vectors = try XCTUnwrap(try TestSupport.fixture("sha256_hmac.json")["webhook_signatures"] as? [[String: Any]])
        XCTAssertEqual(vectors.count, 3)
        for vector in vectors {
            let secret = try WebhookSecret(try XCTUnwrap(vector["secret"] as? String), source: "fixture")
            let body = Array(try XCTUnwrap(vector["body"] as? String).utf8)
            let header = try XCTUnwrap(vector["header"] as? String)
            XCTAssertEqual(WebhookSigner.headerValue(body: body, secret: secret), header)
            let result = try body.withUnsafeBytes {
                try WebhookVerifier.verify(body: $0, signature: try WebhookSignature.parse(header), secrets: [secret])
            }
            XCTAssertEqual(result.matchedSecretIndex, 0)
        }
    }

    /// Random bodies (0 B … 10 MB) and random secrets (1 … 200 bytes, so some are longer than
    /// the block and get hashed first) against python's hmac, with keys passed through files.
    func testRandomBodiesAndSecretsAgainstPython() throws {
        var generator = SplitMix64(seed: 0xbeef)
        let directory = try TestSupport.temporaryDirectory(self)
        var cases: [(data: URL, key: URL?)] = []
        var expectedInputs: [(body: [UInt8], key: [UInt8])] = []
        let sizes = [0, 1, 55, 56, 63, 64, 65, 127, 128, 129, 1000, 65_536, 1_048_583, 10_000_000]
        let keySizes = [1, 16, 32, 63, 64, 65, 100, 200, 7, 31, 64, 128, 3, 200]
        for (index, size) in sizes.enumerated() {
            let body = generator.bytes(size)
            let key = generator.bytes(keySizes[index])
            let bodyURL = directory.appendingPathComponent("b\(index)")
            let keyURL = directory.appendingPathComponent("k\(index)")
            try Data(body).write(to: bodyURL)
            try Data(key).write(to: keyURL)
            cases.append((bodyURL, keyURL))
            expectedInputs.append((body, key))
        }
        let reference = try TestSupport.pythonReference(cases)
        XCTAssertEqual(reference.count, cases.count)
        for ((body, key), expected) in zip(expectedInputs, reference) {
            XCTAssertEqual(Hex.encode(HMACSHA256.authenticationCode(for: body, key: key)), expected,
                           "body \(body.count) key \(key.count)")
        }
    }

    func testStreamingEqualsOneShot() {
        var generator = SplitMix64(seed: 3)
        let body = generator.bytes(50_001)
        let key = generator.bytes(70)
        let expected = HMACSHA256.authenticationCode(for: body, key: key)
        for chunk in [1, 13, 64, 65, 999] {
            var mac = HMACSHA256(key: key)
            var offset = 0
            while offset < body.count {
                let end = min(offset + chunk, body.count)
                mac.update(body[offset..<end])
                offset = end
            }
            XCTAssertEqual(mac.finalize(), expected, "chunk \(chunk)")
        }
    }

    func testLongKeyIsHashedFirst() {
        let key = [UInt8](repeating: 0xaa, count: 131)
        let message = Array("abc".utf8)
        XCTAssertEqual(HMACSHA256.authenticationCode(for: message, key: key),
                       HMACSHA256.authenticationCode(for: message, key: SHA256.hash(key)))
    }
}
