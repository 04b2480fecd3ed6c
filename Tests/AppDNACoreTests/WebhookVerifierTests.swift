import XCTest
@testable import AppDNACore

final class WebhookVerifierTests: XCTestCase {
    let body = Array("Hello, World!".utf8)
    let header = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"

    func secret(_ text: String, _ source: String = "test") throws -> WebhookSecret { try WebhookSecret(text, source: source) }

    func testRotationReportsWhichSecretMatched() throws {
        let secrets = [try secret("old-secret"), try secret("It's a Secret to Everybody"), try secret("newer")]
        let result = try WebhookVerifier.verify(chunks: [body], signature: try WebhookSignature.parse(header), secrets: secrets)
        XCTAssertEqual(result.matchedSecretIndex, 1)
        XCTAssertTrue(result.isValid)
        XCTAssertEqual(result.computedSignatures[1].headerValue, header)
        XCTAssertEqual(result.bodyLength, 13)
        XCTAssertEqual(result.bodySHA256, SHA256.hash(body))
    }

    func testMismatch() throws {
        let result = try WebhookVerifier.verify(chunks: [body], signature: try WebhookSignature.parse(header), secrets: [try secret("wrong")])
        XCTAssertNil(result.matchedSecretIndex)
        XCTAssertFalse(result.isValid)
    }

    func testStreamingChunksEqualOneShot() throws {
        var generator = SplitMix64(seed: 99)
        let big = generator.bytes(200_001)
        let key = try secret("k")
        let signature = WebhookSignature(digest: HMACSHA256.authenticationCode(for: big, key: key.bytes))
        var chunks: [ArraySlice<UInt8>] = []
        var offset = 0
        var size = 1
        while offset < big.count {
            let end = min(offset + size, big.count)
            chunks.append(big[offset..<end])
            offset = end
            size = size * 3 % 1021 + 1
        }
        let streamed = try WebhookVerifier.verify(chunks: chunks, signature: signature, secrets: [key])
        let oneShot = try big.withUnsafeBytes { try WebhookVerifier.verify(body: $0, signature: signature, secrets: [key]) }
        XCTAssertEqual(streamed, oneShot)
        XCTAssertEqual(streamed.matchedSecretIndex, 0)
        XCTAssertEqual(streamed.bodyLength, 200_001)
    }

    func testSecretTrailingNewlineStrippedOnce() throws {
        XCTAssertEqual(try secret("abc\n").bytes, Array("abc".utf8))
        XCTAssertEqual(try secret("abc\r\n").bytes, Array("abc".utf8))
        XCTAssertEqual(try secret("abc\n\n").bytes, Array("abc\n".utf8))
        XCTAssertEqual(try secret(" abc ").bytes, Array(" abc ".utf8))
    }

    func testEmptySecretIsConfigurationError() {
        for text in ["", "\n", "\r\n"] {
            XCTAssertThrowsError(try WebhookSecret(text, source: "APPDNA_WEBHOOK_SECRET")) { error in
                let error = error as! SecretError
                XCTAssertEqual(error.kind, .configuration)
                XCTAssertEqual(error.message, "the webhook secret from APPDNA_WEBHOOK_SECRET is empty")
            }
        }
        XCTAssertThrowsError(try WebhookVerifier(secrets: [])) { XCTAssertEqual(($0 as! SecretError).kind, .configuration) }
    }

    func testSecretNeverInDescription() throws {
        let key = try secret("hunter2-very-secret", "secret file 1")
        XCTAssertFalse(String(describing: key).contains("hunter2"))
        XCTAssertFalse("\(key)".contains("hunter2"))
    }

    func testSignProducesHeader() throws {
        XCTAssertEqual(WebhookSigner.headerValue(body: body, secret: try secret("It's a Secret to Everybody\n")), header)
    }
}
