import Foundation
import XCTest
@testable import AppDNACore

/// `LineReader` with a line cap: longer lines are reported by number and length, never held,
/// whatever the chunk boundaries; other lines come out exactly as without a cap.
final class LineReaderCapTests: XCTestCase {
    func testLinesOverTheCapAreReportedAndTheRestAreUnchanged() throws {
        var rng = SplitMix64(seed: 64)
        let path = NSTemporaryDirectory() + "appdna-linereader-\(UUID().uuidString)"
        defer { unlink(path) }
        for _ in 0..<300 {
            let cap = Int.random(in: 1...12, using: &rng)
            var input: [UInt8] = []
            for _ in 0..<Int.random(in: 0...12, using: &rng) {
                let length = Int.random(in: 0...(Bool.random(using: &rng) ? cap + 1 : 40), using: &rng)
                input += (0..<length).map { _ in [UInt8(ascii: "a"), UInt8(ascii: "b"), 13][Int.random(in: 0...2, using: &rng)] }
                input.append(10)
            }
            if Bool.random(using: &rng), !input.isEmpty { input.removeLast() }
            try Data(input).write(to: URL(fileURLWithPath: path))
            // The reference: split on \n, drop one \r before it, a last line without \n counts.
            var expected: [String] = []
            var lines = input.split(separator: 10, omittingEmptySubsequences: false).map(Array.init)
            if input.last == 10 || input.isEmpty { lines.removeLast() }
            for (index, var line) in lines.enumerated() {
                if line.last == 13 { line.removeLast() }
                expected.append(line.count > cap ? "\(index + 1) oversized \(line.count)" : "\(index + 1) \(String(decoding: line, as: UTF8.self))")
            }
            let fd = open(path, O_RDONLY)
            defer { close(fd) }
            var got: [String] = []
            try LineReader(fileDescriptor: fd, chunkSize: Int.random(in: 1...9, using: &rng), maxLineLength: cap).forEachLine { line, number in
                XCTAssertLessThanOrEqual(line.count, cap)
                got.append("\(number) \(String(decoding: line, as: UTF8.self))")
                return true
            } oversized: { number, length in
                got.append("\(number) oversized \(length)")
                return true
            }
            XCTAssertEqual(got, expected, "cap \(cap), input \(input)")
        }
    }
}
