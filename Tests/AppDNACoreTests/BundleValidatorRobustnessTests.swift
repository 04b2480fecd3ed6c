import Foundation
import XCTest
@testable import AppDNACore

/// Malformed input of every kind ends with findings, never a crash; plus a seeded mutation
/// fuzzer of the validator over the fixture bundles.
///
/// Run the fuzzer alone (more cases with APPDNA_FUZZ_CASES=200000, another seed with
/// APPDNA_FUZZ_SEED=7):  swift test --filter BundleValidatorRobustnessTests/testSeededMutationFuzz
final class BundleValidatorRobustnessTests: XCTestCase {
    static func fixture(_ name: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: BundleValidatorFixtureTests.directory.appendingPathComponent(name)))
    }

    /// The invariants every result must keep, whatever the input.
    static func checkInvariants(_ findings: [BundleFinding], input: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
        let lines = input.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
        for f in findings {
            XCTAssertNotNil(BundleRule(rawValue: f.code), file: file, line: line)
            XCTAssertFalse(f.message.isEmpty, file: file, line: line)
            XCTAssertTrue(f.line >= 1 && f.line <= lines, "line \(f.line) of \(lines)", file: file, line: line)
            XCTAssertGreaterThanOrEqual(f.column, 1, file: file, line: line)
            XCTAssertTrue(f.byteOffset >= 0 && f.byteOffset <= input.count, file: file, line: line)
        }
        if findings.contains(where: { $0.rule == .syntax || $0.rule == .invalidUTF8 }) {
            XCTAssertEqual(findings.count, 1, "a file that is not JSON has one finding", file: file, line: line)
        }
        XCTAssertEqual(findings.map(\.byteOffset), findings.map(\.byteOffset).sorted(), file: file, line: line)
    }

    func testDeepNestingOf100000LevelsIsAFindingNotACrash() {
        for (open, close) in [("[", "]"), ("{\"a\":", "}")] {
            let text = String(repeating: open, count: 100_000) + "1" + String(repeating: close, count: 100_000)
            let findings = BundleValidator.validate(bytes: Array(text.utf8))
            XCTAssertEqual(findings.map(\.code), ["E001"])
            XCTAssertTrue(findings[0].message.contains("nest deeper than the limit of 1000"), findings[0].message)
        }
    }

    func testEveryTruncationOfAValidBundleIsOneSyntaxFinding() throws {
        let bytes = try Self.fixture("valid-sdk-full.json")
        XCTAssertEqual(BundleValidator.validate(bytes: bytes), [])
        // Every prefix that stops before the closing brace is an incomplete document.
        let closing = bytes.lastIndex(of: UInt8(ascii: "}"))!
        for length in 0...closing {
            let prefix = Array(bytes[0..<length])
            let findings = BundleValidator.validate(bytes: prefix)
            XCTAssertEqual(findings.map(\.code), ["E001"], "prefix of \(length) bytes")
            Self.checkInvariants(findings, input: prefix)
        }
    }

    func testHugeNumbers() {
        let digits = String(repeating: "9", count: 100_000)
        var findings = BundleValidator.validate(bytes: Array("{\"bundle_version\": \(digits)}".utf8))
        XCTAssertEqual(Set(findings.map(\.code)), ["E005", "W008"], "an integer beyond 2^63 (the SDK's Int) and 2^53")
        for finding in findings {
            XCTAssertLessThan(finding.message.count, 200, "long values are quoted shortened: \(finding.message.prefix(300))")
            XCTAssertTrue(finding.message.contains("99999…99999") && finding.message.contains("(100000 characters)"), finding.message.prefix(300) + "")
        }
        // 1 followed by 5,000 zeros validated as "valid with a warning"; the SDK cannot load it.
        let big = "1" + String(repeating: "0", count: 5000)
        findings = BundleValidator.validate(bytes: Array("{\"bundle_version\": \(big)}".utf8))
        XCTAssertEqual(findings.filter { $0.code == "E005" }.map(\.message),
                       ["bundle_version 1000000000000000000…0000000000000000000 (5001 characters) is beyond the 64-bit range the SDK reads (at most 9223372036854775807)"])
        XCTAssertEqual(BundleValidator.validate(bytes: Array("{\"bundle_version\": 9223372036854775807}".utf8)).map(\.code), ["W008"], "Int64.max loads")
        // Long ids are quoted shortened too.
        let id = "exp_" + String(repeating: "x", count: 5000) + "_end"
        let messages = BundleValidator.validate(bytes: Array("{\"bundle_version\": 1, \"experiments\": {\"\(id)\": {\"variants\": []}}}".utf8)).map(\.message)
        XCTAssertFalse(messages.isEmpty)
        for message in messages {
            XCTAssertTrue(message.contains("\"exp_xxxxxxxxxxxxxxx…xxxxxxxxxxxxxxx_end\" (5008 characters)"), message.prefix(200) + "")
        }
        XCTAssertEqual(BundleValidator.validate(bytes: Array("{\"bundle_version\": 9223372036854775808}".utf8)).map(\.code).sorted(), ["E005", "W008"])
        findings = BundleValidator.validate(bytes: Array("{\"bundle_version\": 1e999999999}".utf8))
        XCTAssertEqual(findings.map(\.code), ["E005"])
        findings = BundleValidator.validate(bytes: Array(#"{"bundle_version": 1, "experiments": {"e": {"status": "running", "salt": "s", "traffic_allocation": -1e-400, "variants": [{"id": "a", "weight": 1e-99999}, {"id": "b", "weight": 1}]}}}"#.utf8))
        XCTAssertEqual(findings.map(\.code), [], "-1e-400 reads as -0 (inside 0..1), 1e-99999 as 0")
        findings = BundleValidator.validate(bytes: Array("{\"bundle_version\": -0}".utf8))
        XCTAssertEqual(findings.map(\.code), [])
    }

    func testNULAndControlBytesAnywhere() throws {
        let bytes = try Self.fixture("valid-sdk-flat.json")
        for position in stride(from: 0, to: bytes.count, by: 7) {
            for byte: UInt8 in [0x00, 0x01, 0x1F, 0x7F] {
                var copy = bytes
                copy.insert(byte, at: position)
                let findings = BundleValidator.validate(bytes: copy)
                Self.checkInvariants(findings, input: copy)
                if byte != 0x7F { XCTAssertEqual(findings.map(\.code), ["E001"], "byte \(byte) at \(position)") }
            }
        }
    }

    func testInvalidUTF8Everywhere() throws {
        let bytes = try Self.fixture("valid-sdk-unicode.json")
        let bad: [[UInt8]] = [[0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x80], [0xE2, 0x82]]
        for (i, sequence) in bad.enumerated() {
            // Inside a string: always an E002.
            let quote = bytes.firstIndex(of: UInt8(ascii: "\""))! + 1
            var copy = bytes
            copy.insert(contentsOf: sequence, at: quote)
            XCTAssertEqual(BundleValidator.validate(bytes: copy).map(\.code), ["E002"], "sequence \(i)")
        }
    }

    func testRandomBytes() {
        var generator = SplitMix64(seed: 3)
        for _ in 0..<2000 {
            let input = generator.bytes(Int.random(in: 0...64, using: &generator))
            Self.checkInvariants(BundleValidator.validate(bytes: input), input: input)
        }
    }

    /// Mutates the fixture bundles at random and validates each result. Thousands of cases in
    /// a few seconds; the seed is fixed so a failure repeats exactly.
    func testSeededMutationFuzz() throws {
        let environment = ProcessInfo.processInfo.environment
        let cases = Int(environment["APPDNA_FUZZ_CASES"] ?? "") ?? 50_000
        let seed = UInt64(environment["APPDNA_FUZZ_SEED"] ?? "") ?? 20261121
        let directory = BundleValidatorFixtureTests.directory
        let seeds = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
            .map { try [UInt8](Data(contentsOf: directory.appendingPathComponent($0))) }
        let mutator = ByteMutator(tokens: ["{", "}", "[", "]", ",", ":", "\"", "\\", "\\u00", "\\ud800", "0", "-", "1e400", "0.57",
                                 "9007199254740993", "null", "true", "\"weight\":", "\"variants\":[]", "\"salt\":\"\"",
                                 "\"status\":\"paused\"", "\"content\":{}", "\"bundle_version\":", "\u{0}", "é", "\u{FEFF}", "\n", "\r\n"])
        var generator = SplitMix64(seed: seed)
        var kinds: [String: Int] = [:]
        for _ in 0..<cases {
            let bytes = mutator.mutate(seeds[Int.random(in: 0..<seeds.count, using: &generator)], using: &generator)
            let findings = BundleValidator.validate(bytes: bytes)
            Self.checkInvariants(findings, input: bytes)
            for f in findings { kinds[f.code, default: 0] += 1 }
        }
        // The mutator reaches more than the syntax rules.
        XCTAssertGreaterThanOrEqual(kinds.count, 12, "codes reached: \(kinds.keys.sorted())")
    }

    /// 200 MB of white space streamed through a pipe: counted, not kept.
    func testLeadingWhitespaceFromAPipeIsNotBuffered() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        let total = 200 * 80 * 13107  // 200 MB in whole 80-byte lines
        let writeEnd = fds[1]
        let writer = Thread {
            var chunk = [UInt8](repeating: 0x20, count: 80 * 13107)
            for i in stride(from: 79, to: chunk.count, by: 80) { chunk[i] = 0x0A }
            var left = total
            while left > 0 {
                let n = chunk.withUnsafeBytes { write(writeEnd, $0.baseAddress!, min(left, $0.count)) }
                if n <= 0 { break }
                left -= n
            }
            close(writeEnd)
        }
        writer.start()
        let input = try BundleInput.load(fileDescriptor: fds[0], name: "<stdin>", sizeHint: 0)
        close(fds[0])
        XCTAssertEqual(input.bytes.count, 0)
        XCTAssertEqual(input.skippedLines, total / 80)
        let findings = BundleValidator.validate(bytes: input.bytes, shift: BundleValidator.LocationShift(lines: input.skippedLines, columns: input.skippedColumns))
        XCTAssertEqual(findings.map { "\($0.code) \($0.line):\($0.column)" }, ["E001 \(total / 80 + 1):\(total % 80 + 1)"])
    }
}
