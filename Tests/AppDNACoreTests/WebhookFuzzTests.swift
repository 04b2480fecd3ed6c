import XCTest
@testable import AppDNACore

/// Seeded mutation fuzzing of the two parsers that read untrusted text. The property is simple:
/// every input gives a value or a typed error with a non-empty message, never a crash or hang.
/// The seed is fixed, so a failure reproduces exactly.
final class WebhookFuzzTests: XCTestCase {
    static let seedHeaders = [
        "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",
        "757107EA0EB2509FC211221CCE984B8A37570B6D7586C22C46F4379C8B043E17",
        "sha1=a9993e364706816aba3e25717850c26c9cd0d89d",
        "dXNlIGhleCBub3QgYmFzZTY0IGZvciBzaWduYXR1cmVzIQ==",
        "md5=d41d8cd98f00b204e9800998ecf8427e",
        "X-AppDNA-Signature: sha256=00",
        "",
    ]

    static let seedDumps = [
        "POST /hooks HTTP/1.1\r\nHost: x\r\nX-AppDNA-Signature: sha256=00\r\nContent-Length: 5\r\n\r\nhello",
        "POST / HTTP/1.1\nTransfer-Encoding: chunked\n\n5;ext=1\nhello\n0\nTrailer: x\n\n",
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\n\r\n",
        "POST / HTTP/1.1\r\nA: b\r\n  folded\r\n\r\n{\"id\":1}\n",
    ]

    static let mutator = ByteMutator(tokens: ["\r\n", "\n", "\r", ":", "=", ";", " ", "0", "ffffffffffffffffff", "-1", "sha1=", "sha256=",
                                              "Content-Length: 99999\r\n", "Transfer-Encoding: chunked\r\n", "==", "+/", "\u{0}", "é", "\r\n\r\n"],
                                     maxDelete: 16, maxDuplicate: 32)

    static func mutate(_ input: [UInt8], _ generator: inout SplitMix64) -> [UInt8] {
        mutator.mutate(input, using: &generator)
    }

    func testSignatureHeaderParserNeverCrashes() {
        var generator = SplitMix64(seed: 0x5eed_0001)
        var accepted = 0, rejected = 0
        for iteration in 0..<20_000 {
            let seed = Array(Self.seedHeaders[iteration % Self.seedHeaders.count].utf8)
            let text = String(decoding: Self.mutate(seed, &generator), as: UTF8.self)
            do {
                let signature = try WebhookSignature.parse(text)
                XCTAssertEqual(signature.digest.count, 32)
                accepted += 1
            } catch {
                XCTAssertFalse(error.message.isEmpty)
                XCTAssertEqual(error.kind, .malformedInput)
                rejected += 1
            }
            do {
                _ = try WebhookSignature.parse(headerLine: text)
            } catch {
                XCTAssertFalse(error.message.isEmpty)
            }
            // The lenient classification must agree with the strict parser on what is valid.
            if case .sha256 = ProvidedSignature(headerValue: text) {
                XCTAssertNoThrow(try WebhookSignature.parse(text))
            }
        }
        XCTAssertGreaterThan(accepted, 100)
        XCTAssertGreaterThan(rejected, 1000)
    }

    func testRequestDumpParserNeverCrashes() {
        var generator = SplitMix64(seed: 0x5eed_0002)
        var accepted = 0, rejected = 0
        for iteration in 0..<10_000 {
            let seed = Array(Self.seedDumps[iteration % Self.seedDumps.count].utf8)
            let input = Self.mutate(seed, &generator)
            do {
                let request = try RawHTTPRequest.parse(input)
                // The body is a slice of the input (plain) or no longer than it (chunked).
                XCTAssertLessThanOrEqual(request.body.count, input.count)
                XCTAssertLessThanOrEqual(request.bodyOffset, input.count)
                XCTAssertGreaterThanOrEqual(request.extraBytesAfterBody, 0)
                accepted += 1
            } catch {
                XCTAssertFalse(error.what.isEmpty)
                XCTAssertGreaterThanOrEqual(error.line, 1)
                XCTAssertLessThanOrEqual(error.byteOffset, input.count)
                rejected += 1
            }
        }
        XCTAssertGreaterThan(accepted, 500)
        XCTAssertGreaterThan(rejected, 500)
    }
}
