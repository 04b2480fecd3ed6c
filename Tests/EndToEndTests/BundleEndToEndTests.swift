import Foundation
import XCTest

final class BundleValidateEndToEndTests: XCTestCase {
    /// Streams `megabytes` of blank 80-column lines into `appdna bundle validate -`.
    func streamWhitespace(megabytes: Int) throws -> (status: Int32, stdout: String, maxRSSKiB: Int) {
        let result = try Binary.measurePeakMemory(["bundle", "validate", "-"]) { handle in
            var line = Data(repeating: 0x20, count: 79)
            line.append(0x0A)
            var chunk = Data()
            for _ in 0..<13107 { chunk.append(line) }
            for _ in 0..<megabytes { handle.write(chunk) }
        }
        return (result.status, result.stdout, result.maxRSSKiB)
    }

    func test1GBOfWhitespaceOnStdinIsAFindingInBoundedMemory() throws {
        let result = try streamWhitespace(megabytes: 1024)
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stdout, "<stdin>:\(1024 * 13107 + 1):1: error: not JSON: empty input: expected a JSON value [E001]\n")
        XCTAssertLessThan(result.maxRSSKiB, 64 * 1024, "peak RSS \(result.maxRSSKiB) KiB for 1 GB of input")
    }

    func testMalformedFilesGiveDocumentedStatuses() throws {
        let cases: [(Data, String)] = [
            (Data("{\"bundle_version\": 1".utf8), "E001"),
            (Data([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]), "E002"),
            (Data(String(repeating: "[", count: 100_000).utf8), "E001"),
            (Data("{\"a\": 1\u{0}}".utf8), "E001"),
            (Data("{\"bundle_version\": 1e999999}".utf8), "E005"),
        ]
        for (bytes, code) in cases {
            let result = try Binary.run(["bundle", "validate", "-"], stdin: bytes)
            XCTAssertEqual(result.status, 1, code)
            XCTAssertTrue(result.text.hasSuffix("[\(code)]\n"), result.text)
        }
        let missing = try Binary.run(["bundle", "validate", "/nonexistent.json"])
        XCTAssertEqual(missing.status, 66)
        XCTAssertEqual(missing.stderr, "appdna: /nonexistent.json: no such file or directory\n")
    }
}
