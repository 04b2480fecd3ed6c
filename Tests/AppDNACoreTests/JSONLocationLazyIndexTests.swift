import XCTest
@testable import AppDNACore

/// Lines are indexed lazily, only as far as asked: asking for offsets in any order (forwards,
/// backwards, past the end, on newlines) must give what counting from the top gives.
final class JSONLocationLazyIndexTests: XCTestCase {
    func testAnyOrderOfOffsetsGivesTheCountedLocation() throws {
        let text = "{\n  \"a\": [1,\n    2],\n\n  \"é\": \"x\"\r\n}\n"
        let bytes = Array(text.utf8)
        func counted(_ offset: Int) -> SourceLocation {
            var line = 1, lineStart = 0
            for i in 0..<min(offset, bytes.count) where bytes[i] == 0x0A { line += 1; lineStart = i + 1 }
            let column = bytes.withUnsafeBufferPointer { SourceLocation.scalarCount($0, from: lineStart, to: min(offset, bytes.count)) }
            return SourceLocation(line: line, column: column + 1)
        }
        var state: UInt64 = 7
        for round in 0..<50 {
            let document = try JSONDocument(bytes: bytes)
            var offsets = Array(0...bytes.count + 2)
            if round > 0 {
                for i in offsets.indices.reversed() {
                    state = state &* 6_364_136_223_846_793_005 &+ 1
                    offsets.swapAt(i, Int(state >> 33) % (i + 1))
                }
            }
            for offset in offsets {
                XCTAssertEqual(document.location(ofByteOffset: offset), counted(offset), "offset \(offset), round \(round)")
            }
        }
    }

    /// A long line (a minified bundle is one) has column checkpoints every
    /// `JSONDocument.columnCheckpointStride` bytes: whatever the order of asking, and with
    /// multi-byte characters across the checkpoints, columns are those counted from the line's
    /// start; and a second long line after it is counted on its own.
    func testColumnsAlongLongLinesAreTheCountedOnesInAnyOrder() throws {
        var text = "["
        for i in 0..<3_000 { text += i % 7 == 0 ? "\"é日本\u{1F600}\(i)\"," : "\(i)," }
        text += "0,\n"
        for i in 0..<2_000 { text += i % 5 == 0 ? "\"ü\(i)\"," : "\(i)," }
        text += "1]"
        let bytes = Array(text.utf8)
        let newline = bytes.firstIndex(of: 0x0A)!
        XCTAssertGreaterThan(newline, 8 * JSONDocument.columnCheckpointStride, "the first line should span many checkpoints")
        XCTAssertGreaterThan(bytes.count - newline, 8 * JSONDocument.columnCheckpointStride, "and the second too")
        // The location of every offset, counted in one pass from the top.
        var expected: [SourceLocation] = []
        var line = 1, column = 1
        for i in 0...bytes.count {
            expected.append(SourceLocation(line: line, column: column))
            guard i < bytes.count else { break }
            if bytes[i] == 0x0A { line += 1; column = 1 } else if bytes[i] & 0xC0 != 0x80 { column += 1 }
        }
        func counted(_ offset: Int) -> SourceLocation { expected[offset] }
        var state: UInt64 = 11
        for round in 0..<4 {
            let document = try JSONDocument(bytes: bytes)
            var offsets = Array(0..<bytes.count)
            if round == 1 { offsets.reverse() }
            if round > 1 {
                for i in offsets.indices.reversed() {
                    state = state &* 6_364_136_223_846_793_005 &+ 1
                    offsets.swapAt(i, Int(state >> 33) % (i + 1))
                }
            }
            for offset in offsets where document.location(ofByteOffset: offset) != counted(offset) {
                XCTFail("offset \(offset), round \(round): \(document.location(ofByteOffset: offset)) != \(counted(offset))")
                return
            }
        }
    }
}
