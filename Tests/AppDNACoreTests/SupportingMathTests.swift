import Foundation
import XCTest
@testable import AppDNACore

final class SupportingMathTests: XCTestCase {
    func testChiSquareUpperTailKnownValues() {
        XCTAssertEqual(ChiSquare.upperTail(statistic: 3.841458820694124, degreesOfFreedom: 1), 0.05, accuracy: 1e-9)
        XCTAssertEqual(ChiSquare.upperTail(statistic: 5.991464547107979, degreesOfFreedom: 2), 0.05, accuracy: 1e-9)
        XCTAssertEqual(ChiSquare.upperTail(statistic: 10.827566170662733, degreesOfFreedom: 1), 0.001, accuracy: 1e-9)
        XCTAssertEqual(ChiSquare.upperTail(statistic: 0, degreesOfFreedom: 3), 1)
        XCTAssertEqual(ChiSquare.upperTail(statistic: 1, degreesOfFreedom: 30), 1, accuracy: 1e-12)
    }

    func testSampleRatioMismatch() {
        let fair = SampleRatioMismatch(observed: [5000, 5000], expectedShare: [0.5, 0.5])
        XCTAssertEqual(fair.statistic, 0)
        XCTAssertEqual(fair.pValue, 1)
        let skewed = SampleRatioMismatch(observed: [5200, 4800], expectedShare: [0.5, 0.5])
        XCTAssertEqual(skewed.statistic, 16, accuracy: 1e-9)
        XCTAssertLessThan(skewed.pValue, 0.001)
    }

    func testTimestampsBothWays() {
        XCTAssertEqual(Timestamp.milliseconds(from: "1708344000000"), 1_708_344_000_000)
        XCTAssertEqual(Timestamp.milliseconds(from: "2024-02-19T12:00:00Z"), 1_708_344_000_000)
        XCTAssertEqual(Timestamp.milliseconds(from: "2024-02-19T14:00:00.5+02:00"), 1_708_344_000_500)
        XCTAssertEqual(Timestamp.milliseconds(from: "1970-01-01"), 0)
        XCTAssertNil(Timestamp.milliseconds(from: "2024-13-01"))
        XCTAssertNil(Timestamp.milliseconds(from: "yesterday"))
        var generator = SplitMix64(seed: 7)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        for _ in 0..<500 {
            let seconds = Int64(generator.next() % 8_000_000_000) - 2_000_000_000
            let text = Timestamp.iso8601(milliseconds: seconds * 1000)
            XCTAssertEqual(text, formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))))
            XCTAssertEqual(Timestamp.milliseconds(from: text), seconds * 1000)
        }
    }

    func testNormalisationFormsAgreeWithFoundation() {
        var generator = SplitMix64(seed: 11)
        let alphabet = Array("aeiouçéèêëñøåÅÉ가각힣ḕṩ\u{301}\u{308}\u{323}ǖ日本語xyz ")
        for _ in 0..<2_000 {
            let text = String((0..<Int(generator.next() % 12)).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
            XCTAssertEqual(Array(UnicodeForms.nfd(text).unicodeScalars), Array(text.decomposedStringWithCanonicalMapping.unicodeScalars), text)
            XCTAssertEqual(Array(UnicodeForms.nfc(text).unicodeScalars), Array(text.precomposedStringWithCanonicalMapping.unicodeScalars), text)
        }
    }

    func testLineReaderSplitsAnyChunking() throws {
        let text = "a\r\nbb\n\nlast-without-newline"
        let path = NSTemporaryDirectory() + "lines-\(UUID().uuidString)"
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        defer { unlink(path) }
        for chunk in [1, 2, 3, 64] {
            let fd = open(path, O_RDONLY)
            defer { close(fd) }
            var lines: [String] = []
            try LineReader(fileDescriptor: fd, chunkSize: chunk).forEachLine { line, number in
                XCTAssertEqual(number, lines.count + 1)
                lines.append(String(decoding: line, as: UTF8.self))
                return true
            }
            XCTAssertEqual(lines, ["a", "bb", "", "last-without-newline"], "chunk \(chunk)")
        }
    }
}
