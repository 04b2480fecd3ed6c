import XCTest
import TestSupport
@testable import AppDNACLI
import AppDNACore

/// `bucket -` on 100,000 generated ids gives exactly the recorded bytes in every format and
/// scheme: the batch loop is tuned for speed, and no tuning may change an output byte.
final class BucketBatchGoldenTests: XCTestCase {
    static let variants = ["--variants", "control=0.5,variant_b=0.3,c=0.2"]
    /// Made once for all cases (it is deterministic).
    static let input = BatchIDCorpus.make(count: 100_000)

    func testSDKSchemeGoldens() throws {
        for format in ["tsv", "csv", "ndjson"] {
            try checkGolden(scheme: "sdk", format: format, variants: Self.variants)
        }
        try checkGolden(scheme: "sdk", format: "tsv", variants: [])
    }

    func testDocsSchemeGoldens() throws {
        for format in ["tsv", "csv", "ndjson"] {
            try checkGolden(scheme: "docs", format: format, variants: Self.variants)
        }
    }

    func testCorpusHasEveryKindOfLine() {
        let text = Self.input
        XCTAssertEqual(text.filter { $0 == 10 }.count, 100_000 - 1, "the last line has no newline")
        XCTAssertFalse(UTF8Validation.isValid(text), "some lines are not UTF-8")
        XCTAssertTrue(text.contains(13), "some lines end in CRLF")
        XCTAssertFalse(text.withUnsafeBytes { $0.firstRange(of: [10, 10]) != nil }, "no blank lines (their handling is changing elsewhere)")
    }

    private func checkGolden(scheme: String, format: String, variants: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let arguments = ["bucket", "-", "checkout_2024", "s3cr3t", "--scheme", scheme, "--format", format] + variants
        let run = runCLIBytes(arguments, stdin: Self.input)
        let rendered = SpeedGolden.render(status: run.status, stdout: Array(run.stdout.utf8), stderr: run.stderr)
        let name = "bucket-\(scheme)-\(format)\(variants.isEmpty ? "-novariants" : "").golden"
        try SpeedGolden.check(rendered, name: name, file: file, line: line)
    }
}

/// A deterministic mix of the ids batch bucketing meets: `user-0001234-56789`, UUIDs, non-ASCII
/// ids (2-, 3- and 4-byte UTF-8), ids CSV must quote, CRLF line ends, long ids, and lines that
/// are not UTF-8 (each way a validator can get it wrong). No blank lines and no line over
/// 64 KiB: their handling is a separate change.
enum BatchIDCorpus {
    static let invalid: [[UInt8]] = [
        [0xFF], [0x80], [0x75, 0xC3], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
        [0xE2, 0x82], [0x61, 0x62, 0xF8, 0x88, 0x80, 0x80, 0x80], [0x75, 0x73, 0x65, 0x72, 0xC3, 0x28],
    ]
    static let nonASCII = ["usér", "日本語", "🚀rocket", "спасибо", "straße", "ça,\"q\"", "naïve tab\there"]

    static func make(count: Int) -> [UInt8] {
        var generator = SplitMix64(seed: 0x1234_5678_9ABC_DEF0)
        func next() -> UInt64 { generator.next() }
        func hex(_ value: UInt64, _ digits: Int) -> String {
            let text = String(value, radix: 16)
            return String(repeating: "0", count: max(0, digits - text.count)) + text
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count * 30)
        for index in 0..<count {
            let random = next()
            if index % 997 == 500 {
                bytes += invalid[(index / 997) % invalid.count]
            } else if index % 1013 == 7 {
                bytes += Array(String(repeating: "long-\(index)-", count: Int(random % 120) + 1).utf8)
            } else {
                switch index % 6 {
                case 0, 1:
                    bytes += Array("user-\(String(format: "%07d", Int(random % 10_000_000)))-\(String(format: "%05d", Int((random >> 32) % 100_000)))".utf8)
                case 2:
                    let other = next()
                    bytes += Array("\(hex(random >> 32, 8))-\(hex((random >> 16) & 0xFFFF, 4))-4\(hex(random & 0xFFF, 3))-\(hex(0x8000 | (other & 0x3FFF), 4))-\(hex(other >> 16, 12))".utf8)
                case 3:
                    bytes += Array("\(nonASCII[Int(random % UInt64(nonASCII.count))])-\(random % 100_000)".utf8)
                case 4:
                    bytes += Array("user_\(random % 1_000_000)\r".utf8)
                default:
                    bytes += Array("u\(random % 1000)".utf8)
                }
            }
            if index < count - 1 { bytes.append(10) }
        }
        return bytes
    }
}
