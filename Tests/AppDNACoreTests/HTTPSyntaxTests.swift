import XCTest
@testable import AppDNACore

/// Core/HTTP's one reader of field lines and request lines: what a strict reader (a server)
/// refuses, what a forgiving one (a capture, a client) keeps, and the one check that replay
/// applies to recorded fields, which must agree with the strict reader byte for byte.
final class HTTPSyntaxTests: XCTestCase {
    func field(_ text: String, strict: Bool = true) -> Result<(name: String, value: String), HeaderField.Problem> {
        HeaderField.parse(Array(text.utf8)[...], strict: strict)
    }

    func testFieldLines() throws {
        let parsed = try field("X-AppDNA-Signature:  sha256=ab \t").get()
        XCTAssertEqual(parsed.name, "X-AppDNA-Signature")
        XCTAssertEqual(parsed.value, "sha256=ab")
        XCTAssertEqual(try field("X-Tab: a\tb").get().value, "a\tb")
        XCTAssertEqual(try field("X-UTF8: é").get().value, "é")
        XCTAssertEqual(try field("X-Empty:").get().value, "")

        XCTAssertThrowsError(try field("no colon").get()) { XCTAssertEqual($0 as? HeaderField.Problem, .noColon) }
        XCTAssertThrowsError(try field("Content-Length : 2").get()) { XCTAssertEqual($0 as? HeaderField.Problem, .badName("Content-Length ")) }
        XCTAssertThrowsError(try field(": v").get()) { XCTAssertEqual($0 as? HeaderField.Problem, .badName("")) }
        XCTAssertThrowsError(try field("  folded").get()) { XCTAssertEqual($0 as? HeaderField.Problem, .folded) }
        for (byte, words) in [(0x00, "NUL"), (0x0D, "a bare CR"), (0x0A, "LF"), (0x1B, "the control character 0x1B"), (0x7F, "the control character 0x7F")] {
            var line = Array("X-Note: a".utf8)
            line.append(UInt8(byte))
            line += Array("b".utf8)
            guard case .failure(let problem) = HeaderField.parse(line[...], strict: true) else { return XCTFail("byte \(byte) was read") }
            XCTAssertEqual(problem, .forbiddenValueByte(name: "X-Note", byte: UInt8(byte)))
            XCTAssertEqual(problem.describe(section: "header"), "the value of 'X-Note' holds \(words)")
            // A capture or a response is read as it is.
            XCTAssertNoThrow(try HeaderField.parse(line[...], strict: false).get())
        }
    }

    /// `check(name:value:)` (what replay applies) says yes exactly when the strict reader reads
    /// `name: value` back as that name and value: one rule, not two that drift apart.
    func testTheReplayCheckAgreesWithTheStrictReader() {
        var random = SplitMix64(seed: 33)
        let alphabet: [UInt8] = Array("aZ-_ :\t\r\n\u{0}\u{1B}\u{7F}é/=\"".utf8)
        for _ in 0..<20_000 {
            let name = String(decoding: (0..<Int(random.next() % 4)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }, as: UTF8.self)
            var valueBytes = (0..<Int(random.next() % 6)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
            // Leading and trailing whitespace is trimmed by any reader: not part of the question.
            while let first = valueBytes.first, first == 32 || first == 9 { valueBytes.removeFirst() }
            while let last = valueBytes.last, last == 32 || last == 9 { valueBytes.removeLast() }
            let value = String(decoding: valueBytes, as: UTF8.self)
            guard Array(value.utf8) == valueBytes else { continue }   // not UTF-8 on its own
            let accepted = HeaderField.check(name: name, value: value) == nil
            let line: [UInt8] = Array("\(name): \(value)".utf8)
            var readBack = false
            if case .success(let field) = HeaderField.parse(line[...], strict: true) {
                readBack = field.name == name && field.value == value
            }
            XCTAssertEqual(accepted, readBack, "\(name.debugDescription): \(value.debugDescription)")
        }
    }

    func testRequestLines() throws {
        func line(_ text: String, strict: Bool = true) -> Result<(method: String, target: String, version: String), RequestLine.Problem> {
            RequestLine.parse(Array(text.utf8)[...], strict: strict)
        }
        XCTAssertEqual(try line("POST /webhooks?x=1 HTTP/1.1").get().target, "/webhooks?x=1")
        XCTAssertThrowsError(try line("POST /a b HTTP/1.1").get())
        XCTAssertThrowsError(try line("POST  /a HTTP/1.1").get())
        XCTAssertThrowsError(try line("POST /a\u{0}b HTTP/1.1").get()) { XCTAssertEqual($0 as? RequestLine.Problem, .badTargetByte(0)) }
        XCTAssertThrowsError(try line("POST /a\rb HTTP/1.1").get()) { XCTAssertEqual($0 as? RequestLine.Problem, .badTargetByte(13)) }
        XCTAssertThrowsError(try line("PO(ST / HTTP/1.1").get()) { XCTAssertEqual($0 as? RequestLine.Problem, .notAMethod("PO(ST")) }
        // A capture forgives runs of spaces, not a target that is not one.
        XCTAssertEqual(try line("POST  /a  HTTP/1.1", strict: false).get().target, "/a")
        XCTAssertNil(RequestLine.check(method: "POST", target: "/hook"))
        XCTAssertEqual(RequestLine.check(method: "POST", target: "/a HTTP/1.1\r\n\r\nGET /smuggled"), .badTargetByte(32))
        XCTAssertEqual(RequestLine.check(method: "GET /x HTTP/1.1\r\n", target: "/"), .notAMethod("GET /x HTTP/1.1\r\n"))
    }

    func testAServerReadsHostAndTransferEncodingStrictly() {
        func head(_ text: String) -> String? {
            do { _ = try RawHTTPRequest.parseHead(Array(text.utf8), strict: true); return nil } catch { return error.what }
        }
        XCTAssertEqual(head("POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n"), "an HTTP/1.1 request without a Host field")
        XCTAssertEqual(head("POST / HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n"), "more than one Host field")
        XCTAssertEqual(head("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n"), "Transfer-Encoding in an HTTP/1.0 request")
        XCTAssertEqual(head("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, chunked\r\n\r\n"), "Transfer-Encoding applies chunked more than once")
        XCTAssertNil(head("POST / HTTP/1.0\r\nContent-Length: 0\r\n\r\n"))
        XCTAssertNil(head("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"))
        // A capture is forgiven all of these.
        XCTAssertNoThrow(try RawHTTPRequest.parseHead(Array("POST / HTTP/1.1\r\nTransfer-Encoding: chunked, chunked\r\n\r\n".utf8)))
    }
}

/// A wrong signature costs what a right one does: above `DeliveryCheck.maxDiagnosedBytes` the
/// listener verifies (one HMAC per secret) and does not look for the mistake (each hypothesis
/// is another pass over the body; 18 of them on a 950 KB body cost 18 times the CPU).
final class DeliveryCheckCostTests: XCTestCase {
    func testALargeBodyWithAWrongSignatureIsNotDiagnosed() throws {
        let secret = try WebhookSecret("whsec_cost", source: "--secret-file /private/secret.txt")
        for size in [1_000, 950_000] {
            let body = Array(("{\"id\":\"evt_cost\",\"pad\":\"" + String(repeating: "p", count: size) + "\"}").utf8)
            // Signed, then a newline added: a mistake the explainer recognises.
            let signature = WebhookSigner.headerValue(body: body, secret: secret)
            let check = DeliveryCheck(headers: [.init(name: "X-AppDNA-Signature", value: signature, line: 2)], body: body + [10], secrets: [secret])
            XCTAssertFalse(check.isValid)
            XCTAssertEqual(check.senderProblem, "the signature does not match this body")
            XCTAssertFalse(check.senderProblem!.contains("secret.txt"))
            if size > DeliveryCheck.maxDiagnosedBytes {
                XCTAssertTrue(check.diagnosisSkipped)
                XCTAssertEqual(check.diagnoses, [], "the explainer ran on a \(size)-byte body")
            } else {
                XCTAssertEqual(check.diagnoses.map(\.id), ["trailing-newline-added"])
            }
        }
    }
}
