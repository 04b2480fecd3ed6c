import XCTest
@testable import AppDNACore

/// `UTF8Validation` stands in for `String(validating:as:)` (macOS 15+): it must accept exactly
/// the well-formed byte sequences. The reference is the standard library's own UTF-8 parser
/// (`transcode(…stoppingOnError: true…)`, in every Swift since 4), a different code path from
/// the `String(decoding:)` repair the helper relies on.
final class UTF8ValidationTests: XCTestCase {
    static func wellFormed(_ bytes: [UInt8]) -> Bool {
        !transcode(bytes.makeIterator(), from: UTF8.self, to: UTF32.self, stoppingOnError: true, into: { _ in })
    }

    func check(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
        let expected = Self.wellFormed(bytes)
        XCTAssertEqual(UTF8Validation.isValid(bytes), expected, "\(bytes)", file: file, line: line)
        if expected {
            XCTAssertEqual(UTF8Validation.string(bytes).map { Array($0.utf8) }, bytes, file: file, line: line)
        }
    }

    func testTheHardCases() {
        let cases: [(bytes: [UInt8], valid: Bool)] = [
            ([], true),
            (Array("plain ascii".utf8), true),
            (Array("é 日本 🙂".utf8), true),
            ([0xEF, 0xBF, 0xBD], true),                // U+FFFD itself is well formed
            ([0xF0, 0x90, 0x80, 0x41], false),         // a truncated 4-byte sequence repairs to as many bytes
            ([0xC0, 0x80], false),                     // overlong NUL
            ([0xE0, 0x80, 0x80], false),               // overlong
            ([0xED, 0xA0, 0x80], false),               // a surrogate
            ([0xF4, 0x90, 0x80, 0x80], false),         // above U+10FFFF
            ([0x80], false),                           // a lone continuation byte
            ([0x41, 0xFF, 0x42], false),
            ([0x00], true),                            // NUL is well formed (no C string here)
        ]
        for (bytes, valid) in cases {
            XCTAssertEqual(Self.wellFormed(bytes), valid, "reference disagrees on \(bytes)")
            XCTAssertEqual(UTF8Validation.isValid(bytes), valid, "\(bytes)")
            XCTAssertEqual(bytes.withUnsafeBytes { UTF8Validation.isValid($0) }, valid, "raw buffer \(bytes)")
        }
    }

    func testEveryTwoByteSequence() {
        for first in 0...255 {
            for second in 0...255 { check([UInt8(first), UInt8(second)]) }
        }
    }

    func testThreeAndFourByteLeadsAgainstEveryContinuation() {
        let thirds: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF]
        for lead in 0xE0...0xF7 {
            for second in 0...255 {
                for third in thirds {
                    check([UInt8(lead), UInt8(second), third])
                    check([UInt8(lead), UInt8(second), third, 0x80])
                }
            }
        }
    }
}
