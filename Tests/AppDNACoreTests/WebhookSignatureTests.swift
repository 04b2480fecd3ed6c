import XCTest
@testable import AppDNACore

final class WebhookSignatureTests: XCTestCase {
    let hex64 = "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"

    func problem(_ value: String, file: StaticString = #filePath, line: UInt = #line) -> SignatureHeaderError? {
        do {
            _ = try WebhookSignature.parse(value)
            XCTFail("'\(value)' should not parse", file: file, line: line)
            return nil
        } catch {
            XCTAssertEqual(error.kind, .malformedInput, file: file, line: line)
            return error
        }
    }

    func testAcceptedForms() throws {
        let digest = try Hex.decode(hex64)
        for value in ["sha256=\(hex64)", "SHA256=\(hex64)", "Sha256=\(hex64.uppercased())", hex64,
                      "  sha256=\(hex64)\r\n", "\t\(hex64.uppercased()) "] {
            XCTAssertEqual(try WebhookSignature.parse(value).digest, digest, value)
        }
        XCTAssertEqual(try WebhookSignature.parse(hex64).headerValue, "sha256=\(hex64)")
    }

    func testEmpty() {
        XCTAssertEqual(problem("")?.problem, .empty)
        XCTAssertEqual(problem("  \r\n")?.problem, .empty)
        XCTAssertEqual(problem("sha256=")?.problem, .emptyAfterScheme)
        XCTAssertEqual(problem("")?.message, "the signature is empty")
    }

    func testSHA1() throws {
        let sha1Hex = "a9993e364706816aba3e25717850c26c9cd0d89d"
        let error = try XCTUnwrap(problem("sha1=\(sha1Hex)"))
        XCTAssertEqual(error.problem, .sha1(digest: try Hex.decode(sha1Hex)))
        XCTAssertTrue(error.message.contains("this is a SHA-1 signature; AppDNA signs with HMAC-SHA256"), error.message)
        XCTAssertEqual(problem(sha1Hex)?.problem, .sha1(digest: try Hex.decode(sha1Hex)))
        XCTAssertEqual(problem("SHA1=xyz")?.problem, .sha1(digest: nil))
    }

    func testBase64IsRecognisedAndDecoded() throws {
        let digest = try Hex.decode(hex64)
        let base64 = Base64.encode(digest)
        XCTAssertEqual(base64.count, 44)
        for value in [base64, "sha256=\(base64)", String(base64.dropLast())] {
            let error = try XCTUnwrap(problem(value))
            XCTAssertEqual(error.problem, .base64(decoded: digest), value)
            XCTAssertTrue(error.message.contains("looks like base64; AppDNA sends hex"), error.message)
        }
        XCTAssertEqual(ProvidedSignature(headerValue: base64), .base64(digest))
    }

    func testWrongLength() throws {
        let error = try XCTUnwrap(problem("sha256=" + String(hex64.dropLast(2))))
        XCTAssertEqual(error.problem, .wrongLength(hexDigits: 62))
        XCTAssertTrue(error.message.contains("62 hex digits"), error.message)
        XCTAssertTrue(error.message.contains("64"), error.message)
        XCTAssertEqual(problem(hex64 + "a")?.problem, .wrongLength(hexDigits: 65))
        XCTAssertEqual(problem("abc")?.problem, .wrongLength(hexDigits: 3))
    }

    func testNonHexCharacterNamedWithPosition() throws {
        var value = Array(hex64)
        value[9] = "z"
        let error = try XCTUnwrap(problem("sha256=" + String(value)))
        XCTAssertEqual(error.problem, .nonHex("z", position: 10, length: 64))
        XCTAssertTrue(error.message.contains("'z' at position 10"), error.message)
        // Fullwidth digits are hex digits to Unicode, not to us.
        XCTAssertEqual(problem("sha256=" + String(repeating: "\u{FF10}", count: 64))?.problem, .nonHex("\u{FF10}", position: 1, length: 64))
        value[9] = " "
        XCTAssertTrue(try XCTUnwrap(problem(String(value))).message.contains("a space at position 10"))
    }

    func testUnknownScheme() throws {
        let error = try XCTUnwrap(problem("md5=d41d8cd98f00b204e9800998ecf8427e"))
        XCTAssertEqual(error.problem, .unknownScheme("md5"))
        XCTAssertTrue(error.message.contains("'md5='"), error.message)
    }

    func testHeaderLine() throws {
        let digest = try Hex.decode(hex64)
        XCTAssertEqual(try WebhookSignature.parse(headerLine: "X-AppDNA-Signature: sha256=\(hex64)").digest, digest)
        XCTAssertEqual(try WebhookSignature.parse(headerLine: "x-appdna-signature:\(hex64)").digest, digest)
        XCTAssertThrowsError(try WebhookSignature.parse(headerLine: "X-Hub-Signature-256: sha256=\(hex64)")) { error in
            let error = error as! SignatureHeaderError
            XCTAssertEqual(error.problem, .wrongHeaderName("X-Hub-Signature-256"))
            XCTAssertTrue(error.message.contains("is not X-AppDNA-Signature"))
            XCTAssertNotNil(error.hint)
        }
        XCTAssertThrowsError(try WebhookSignature.parse(headerLine: "sha256 \(hex64)")) { error in
            XCTAssertEqual((error as! SignatureHeaderError).problem, .notAHeaderLine)
        }
        XCTAssertThrowsError(try WebhookSignature.parse(headerLine: "X-AppDNA-Signature: sha1=abc")) { error in
            XCTAssertEqual((error as! SignatureHeaderError).problem, .sha1(digest: nil))
        }
    }
}

final class WebhookEncodingTests: XCTestCase {
    func testHex() throws {
        XCTAssertEqual(Hex.encode([0x00, 0x0f, 0xab, 0xff]), "000fabff")
        XCTAssertEqual(try Hex.decode("000FabFF"), [0x00, 0x0f, 0xab, 0xff])
        XCTAssertEqual(try Hex.decode(""), [])
        XCTAssertThrowsError(try Hex.decode("abc")) { XCTAssertEqual($0 as? HexDecodingError, .oddLength(digits: 3)) }
        XCTAssertThrowsError(try Hex.decode("0g")) {
            XCTAssertEqual($0 as? HexDecodingError, .invalidCharacter("g", position: 2))
            XCTAssertTrue(($0 as! HexDecodingError).message.contains("'g' at position 2"))
        }
    }

    func testBase64AgainstKnownValues() throws {
        let cases: [(String, String)] = [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy")]
        for (plain, encoded) in cases {
            XCTAssertEqual(Base64.encode(Array(plain.utf8)), encoded)
            XCTAssertEqual(try Base64.decode(encoded), Array(plain.utf8))
        }
        XCTAssertEqual(try Base64.decode("Zm9vYg"), Array("foob".utf8))
        XCTAssertThrowsError(try Base64.decode("Zm9v!"))
        XCTAssertThrowsError(try Base64.decode("Z"))
        XCTAssertThrowsError(try Base64.decode("Zh=="))
        var generator = SplitMix64(seed: 5)
        for length in 0..<100 {
            let bytes = generator.bytes(length)
            XCTAssertEqual(try Base64.decode(Base64.encode(bytes)), bytes)
        }
    }

    func testConstantTimeEquals() {
        XCTAssertTrue(ConstantTime.equals([], []))
        XCTAssertTrue(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        XCTAssertFalse(ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        XCTAssertFalse(ConstantTime.equals([0, 2, 3], [1, 2, 3]))
        XCTAssertFalse(ConstantTime.equals([1, 2, 3], [1, 2]))
        XCTAssertFalse(ConstantTime.equals([], [0]))
    }
}
