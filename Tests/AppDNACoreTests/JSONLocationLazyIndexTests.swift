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
}
