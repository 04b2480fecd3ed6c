import XCTest
import TestSupport
@testable import AppDNACLI
@testable import AppDNACore

/// The batch's word-at-a-time shortcuts against plain byte-by-byte answers: how `PlainLines`
/// splits a chunk and which lines it calls plain, the short copies (an id, a variant's piece)
/// and the hash's digits written from its bucket. Every byte value sits in every lane of the
/// word at every alignment, where a lane or borrow bug would show.
final class BucketBatchWordTricksTests: XCTestCase {
    /// Plain as the batch means it, one byte at a time: printable ASCII without `"` `,` `\`.
    static func isPlain(_ line: [UInt8]) -> Bool {
        !line.isEmpty && line.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x2C && $0 != 0x5C }
    }

    /// `PlainLines`' lines and verdicts for `region`.
    static func plainLines(_ region: [UInt8]) -> [([UInt8], Bool)] {
        region.withUnsafeBytes { raw in
            var lines = PlainLines(raw)
            var found: [([UInt8], Bool)] = []
            while let (line, plain) = lines.next() { found.append((Array(line), plain)) }
            return found
        }
    }

    /// The lines `LineChunk.forEachLine` (one thread's splitting) gives.
    static func chunkLines(_ region: [UInt8]) -> [[UInt8]] {
        region.withUnsafeBytes { raw in
            var found: [[UInt8]] = []
            LineChunk.forEachLine(raw) { line, _ in found.append(Array(line)) }
            return found
        }
    }

    func assertSplitLikeOneThread(_ region: [UInt8], _ context: @autoclosure () -> String, file: StaticString = #filePath, line: UInt = #line) {
        let found = Self.plainLines(region)
        XCTAssertEqual(found.map(\.0), Self.chunkLines(region), context(), file: file, line: line)
        // A line called plain must be; one that is must be called so, except one that ended in
        // a CR (cut off as one thread cuts it, then judged the long way: rare, and still right).
        for (text, plain) in found where plain ? !Self.isPlain(text) : Self.isPlain(text) && !region.contains(13) {
            XCTFail("\(context()): \(text) called \(plain ? "plain" : "not plain")", file: file, line: line)
        }
    }

    func testEveryByteInEveryLaneAtEveryAlignment() {
        for byte in 0...255 {
            for alignment in 0..<8 {
                for lane in 0..<17 {
                    let line = [UInt8](repeating: 0x61, count: lane) + [UInt8(byte)] + [UInt8](repeating: 0x62, count: 16 - lane)
                    let region = [UInt8](repeating: 0x30, count: alignment) + [10] + line + [10] + Array("user-1\n".utf8)
                    assertSplitLikeOneThread(region, "byte \(byte), alignment \(alignment), lane \(lane)")
                }
            }
        }
    }

    func testLineEndsEmptyLinesAndTheLastLine() {
        let cases: [String] = ["", "\n", "\n\n", "a", "a\n", "a\r\n", "a\r", "\r", "\r\n", "\r\r\n", "abcdefgh\n", "abcdefg\r\nabcdefgh\r\n",
                               "abcdefghi", "abcdefghijklmnop", "abcdefghijklmnopq\n", "a\nb\n\nc", "a,b\nc\"d\ne\\f\ng\th\n", "é\nx\n"]
        for text in cases { assertSplitLikeOneThread(Array(text.utf8), "\(text.debugDescription)") }
    }

    func testRandomRegions() {
        var generator = SplitMix64(seed: 0x9_1a1e)
        let alphabet: [UInt8] = Array("abcXYZ019-_.~ \"\\,\t\r\n\n\n".utf8) + [0, 0x1B, 0x7F, 0x80, 0xC3, 0xA9, 0xE2, 0xFF]
        for round in 0..<3000 {
            let count = Int(generator.next() % 120)
            let region = (0..<count).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
            assertSplitLikeOneThread(region, "round \(round): \(region)")
        }
    }

    func testShortCopiesOfEveryLengthCopyExactlyTheirBytes() {
        var generator = SplitMix64(seed: 0xC0FF)
        for length in 0...80 {
            let source = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            var buffer = RawByteBuffer(capacity: 16)
            defer { buffer.free() }
            buffer.reserve(3 + length)
            for byte: UInt8 in [7, 8, 9] { buffer.uncheckedByte(byte) }
            source.withUnsafeBytes { raw in
                buffer.reserve(length)
                if length > 0 { buffer.uncheckedCopyShort(raw.baseAddress!, length) }
            }
            XCTAssertEqual(Array(buffer.bytes), [7, 8, 9] + source, "length \(length)")
        }
    }

    func testPiecesCopyExactlyThemselvesWhateverTheirLength() {
        let pieces = (0...20).map { length in (0..<length).map { UInt8(65 + ($0 + length) % 26) } }
        let table = RowPieces(pieces)
        defer { table.free() }
        var buffer = RawByteBuffer(capacity: 16)
        defer { buffer.free() }
        var expected: [UInt8] = []
        for index in pieces.indices.reversed() + Array(pieces.indices) {
            buffer.reserve(table.longest + 8)
            table.copy(index, to: &buffer)
            expected += pieces[index]
        }
        XCTAssertEqual(Array(buffer.bytes), expected)
    }

    func testAHashWrittenFromItsBucketIsItsDecimal() {
        var values: [UInt32] = [0, 1, 9, 10, 99, 100, 999, 1000, 9999, 10_000, 10_001, 10_099, 99_999, 100_000, 1_000_000, 9_999_999,
                                10_000_000, 99_990_000, 99_999_999, 100_000_000, 100_009_999, 999_999_999, 1_000_000_000, 4_294_967_295, 4_294_960_000]
        var generator = SplitMix64(seed: 0xD161_7)
        for _ in 0..<20_000 { values.append(UInt32(truncatingIfNeeded: generator.next() >> UInt64(generator.next() % 32))) }
        var buffer = RawByteBuffer(capacity: 64)
        defer { buffer.free() }
        for value in values {
            buffer.count = 0
            buffer.reserve(32)
            buffer.uncheckedDecimal(value, lastFourDigits: value % 10_000)
            buffer.uncheckedByte(9)
            buffer.uncheckedSmallDecimal(value % 10_000)
            XCTAssertEqual(String(decoding: buffer.bytes, as: UTF8.self), "\(value)\t\(value % 10_000)")
        }
    }
}
