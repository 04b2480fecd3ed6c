import XCTest
@testable import AppDNACore

/// Each test makes exactly one mistake a sender or receiver makes, checks the verifier still
/// says "mismatch", and checks the explainer names that mistake (and, where it matters, only it).
final class WebhookExplainerTests: XCTestCase {
    let signedBody = Array("{\"id\":\"evt-1\",\n\"type\":\"payment.completed\"}".utf8)
    let secretText = "whsec_test_secret"

    /// The signature the sender produced, as a header value, for `body` with `key`.
    func sign(_ body: [UInt8], key: [UInt8]) -> String {
        "sha256=" + Hex.encode(HMACSHA256.authenticationCode(for: body, key: key))
    }

    /// Verifies (must mismatch), explains, and re-verifies (must still mismatch).
    func explain(body: [UInt8], header: String, secrets: [String], file: StaticString = #filePath, line: UInt = #line) throws -> MismatchExplanation {
        let secrets = try secrets.enumerated().map { try WebhookSecret($0.element, source: "secret \($0.offset + 1)") }
        if let signature = try? WebhookSignature.parse(header) {
            let verdict = try WebhookVerifier.verify(chunks: [body], signature: signature, secrets: secrets)
            XCTAssertFalse(verdict.isValid, "the mistake must not verify", file: file, line: line)
        }
        let explanation = MismatchExplainer.explain(body: body, provided: ProvidedSignature(headerValue: header), secrets: secrets)
        if let signature = try? WebhookSignature.parse(header) {
            let again = try WebhookVerifier.verify(chunks: [body], signature: signature, secrets: secrets)
            XCTAssertFalse(again.isValid, "explaining must not change the verdict", file: file, line: line)
        }
        XCTAssertEqual(explanation.bodyLength, body.count, file: file, line: line)
        XCTAssertEqual(explanation.bodySHA256, SHA256.hash(body), file: file, line: line)
        for diagnosis in explanation.diagnoses {
            XCTAssertFalse(diagnosis.sentence.contains(secretText), "secret leaked", file: file, line: line)
        }
        return explanation
    }

    func key() -> [UInt8] { Array(secretText.utf8) }

    func testTrailingNewlineAdded() throws {
        let result = try explain(body: signedBody + [0x0a], header: sign(signedBody, key: key()), secrets: [secretText])
        XCTAssertEqual(result.diagnosisIDs, ["trailing-newline-added"])
        XCTAssertEqual(result.diagnoses[0].secretIndex, 0)
    }

    func testTrailingCRLFAdded() throws {
        let result = try explain(body: signedBody + [0x0d, 0x0a], header: sign(signedBody, key: key()), secrets: [secretText])
        XCTAssertEqual(result.diagnosisIDs, ["trailing-crlf-added"])
    }

    func testTrailingNewlineRemoved() throws {
        let result = try explain(body: signedBody, header: sign(signedBody + [0x0a], key: key()), secrets: [secretText])
        XCTAssertEqual(result.diagnosisIDs, ["trailing-newline-removed"])
    }

    func testTrailingCRLFRemoved() throws {
        let result = try explain(body: signedBody, header: sign(signedBody + [0x0d, 0x0a], key: key()), secrets: [secretText])
        XCTAssertEqual(result.diagnosisIDs, ["trailing-crlf-removed"])
    }

    func testCRLFConvertedToLF() throws {
        let signed = Array("a\r\nb\r\nc".utf8)
        let result = try explain(body: Array("a\nb\nc".utf8), header: sign(signed, key: key()), secrets: [secretText])
        XCTAssertEqual(result.diagnosisIDs, ["crlf-converted-to-lf"])
    }

    func testLFConvertedToCRLF() throws {
        let result = try explain(body: Array("a\r\nb\r\nc".utf8), header: sign(Array("a\nb\nc".utf8), key: key()), secrets: [secretText])
        XCTAssertEqual(result.diagnosisIDs, ["lf-converted-to-crlf"])
    }

    func testBOMAdded() throws {
        let result = try explain(body: [0xef, 0xbb, 0xbf] + signedBody, header: sign(signedBody, key: key()), secrets: [secretText])
        XCTAssertEqual(result.diagnosisIDs, ["bom-added"])
    }

    func testBOMRemoved() throws {
        let result = try explain(body: signedBody, header: sign([0xef, 0xbb, 0xbf] + signedBody, key: key()), secrets: [secretText])
        XCTAssertEqual(result.diagnosisIDs, ["bom-removed"])
    }

    func testSecretWithSurroundingWhitespace() throws {
        // The receiver's secret file has "  secret \t" (one trailing newline is stripped anyway).
        let result = try explain(body: signedBody, header: sign(signedBody, key: key()), secrets: ["  \(secretText) \t\n"])
        XCTAssertEqual(result.diagnosisIDs, ["secret-surrounding-whitespace"])
    }

    func testSenderKeptTrailingNewlineInSecret() throws {
        for ending: [UInt8] in [[0x0a], [0x0d, 0x0a]] {
            let result = try explain(body: signedBody, header: sign(signedBody, key: key() + ending), secrets: [secretText])
            XCTAssertEqual(result.diagnosisIDs, ["secret-trailing-newline-kept"])
        }
    }

    func testSHA1Signature() throws {
        let mac = HMAC<SHA1>.authenticationCode(for: signedBody, key: key())
        for header in ["sha1=" + Hex.encode(mac), Hex.encode(mac), Base64.encode(mac)] {
            XCTAssertThrowsError(try WebhookSignature.parse(header))
            let result = try explain(body: signedBody, header: header, secrets: [secretText])
            XCTAssertEqual(result.diagnosisIDs, ["sha1-signature"], header)
        }
    }

    func testBase64Signature() throws {
        let mac = HMACSHA256.authenticationCode(for: signedBody, key: key())
        let result = try explain(body: signedBody, header: "sha256=" + Base64.encode(mac), secrets: [secretText])
        XCTAssertEqual(result.diagnosisIDs, ["base64-signature"])
    }

    func testSignatureOverEmptyBody() throws {
        let result = try explain(body: signedBody, header: sign([], key: key()), secrets: [secretText])
        XCTAssertEqual(result.diagnosisIDs, ["empty-body-signed"])
    }

    func testUnkeyedSHA256() throws {
        let result = try explain(body: signedBody, header: "sha256=" + Hex.encode(SHA256.hash(signedBody)), secrets: [secretText])
        XCTAssertEqual(result.diagnosisIDs, ["unkeyed-sha256"])
        XCTAssertNil(result.diagnoses[0].secretIndex)
    }

    func testWrongSecretHasNoDiagnosis() throws {
        let result = try explain(body: signedBody, header: sign(signedBody, key: Array("other".utf8)), secrets: [secretText])
        XCTAssertEqual(result.diagnosisIDs, [])
        XCTAssertEqual(result.notes, [])
    }

    func testRotationNamesTheSecretBySourceOnly() throws {
        let result = try explain(body: signedBody + [0x0a], header: sign(signedBody, key: key()), secrets: ["old", secretText])
        XCTAssertEqual(result.diagnosisIDs, ["trailing-newline-added"])
        XCTAssertEqual(result.diagnoses[0].secretIndex, 1)
        XCTAssertTrue(result.diagnoses[0].sentence.contains("(secret 2 of 2, from secret 2)"), result.diagnoses[0].sentence)
    }

    func testUnusableSignatureIsNoted() throws {
        let result = try explain(body: signedBody, header: "sha256=xyz", secrets: [secretText])
        XCTAssertEqual(result.diagnosisIDs, [])
        XCTAssertEqual(result.notes.count, 1)
    }

    /// The real limit is 64 MiB; a 1 KiB limit exercises the same path without hashing 64 MiB
    /// in a debug build.
    func testLargeBodySkipsRewritesAndSaysSo() throws {
        XCTAssertEqual(MismatchExplainer.maxRewrittenBodyBytes, 64 << 20)
        let limit = 1024
        let secrets = [try WebhookSecret(secretText, source: "test")]
        let large = [UInt8](repeating: 0x61, count: limit + 1)
        let withNewline = MismatchExplainer.explain(
            body: large + [0x0a], provided: ProvidedSignature(headerValue: sign(large, key: key())), secrets: secrets,
            maxRewrittenBodyBytes: limit)
        XCTAssertEqual(withNewline.diagnosisIDs, [])
        XCTAssertEqual(withNewline.notes, ["The body is larger than 1 KiB, so line-ending, newline, BOM and JSON re-serialisation variations were not tried."])
        // The same body under the limit is diagnosed, so the skip is what made the difference.
        let underLimit = MismatchExplainer.explain(
            body: large + [0x0a], provided: ProvidedSignature(headerValue: sign(large, key: key())), secrets: secrets)
        XCTAssertEqual(underLimit.diagnosisIDs, ["trailing-newline-added"])
        // Candidates that need no rewrite still run.
        let unkeyed = MismatchExplainer.explain(
            body: large, provided: ProvidedSignature(headerValue: "sha256=" + Hex.encode(SHA256.hash(large))), secrets: secrets,
            maxRewrittenBodyBytes: limit)
        XCTAssertEqual(unkeyed.diagnosisIDs, ["unkeyed-sha256"])
    }

    func testCandidateIdentifiersAreUniqueAndStable() {
        let ids = MismatchCandidate.all.map(\.id)
        XCTAssertEqual(Set(ids).count, ids.count)
        XCTAssertEqual(ids, [
            "trailing-newline-added", "trailing-crlf-added", "trailing-newline-removed", "trailing-crlf-removed",
            "crlf-converted-to-lf", "lf-converted-to-crlf", "bom-added", "bom-removed",
            "secret-surrounding-whitespace", "secret-trailing-newline-kept", "sha1-signature", "base64-signature",
            "empty-body-signed", "unkeyed-sha256", "json-reserialised",
        ])
    }
}
