@testable import AppDNACore
import Foundation
import XCTest

/// The parallel NDJSON path must see exactly the lines `LineReader` sees, in order, whatever
/// the chunk size and the number of workers: lines cut by chunk boundaries, longer than
/// several chunks, empty, with CR before LF, and a last line with or without a newline.
final class ChunkPipelineTests: XCTestCase {
    func lines(viaLineReader path: String) throws -> [[UInt8]] {
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        var out: [[UInt8]] = []
        try LineReader(fileDescriptor: fd, chunkSize: 5).forEachLine { line, _ in
            out.append(Array(line))
            return true
        }
        return out
    }

    func lines(viaPipeline path: String, chunkSize: Int, workers: Int) -> [[UInt8]] {
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        var info = stat()
        fstat(fd, &info)
        let pipeline = ChunkPipeline(fd: fd, size: Int(info.st_size), workers: workers, chunkSize: chunkSize) { _, slot in
            slot.hits.removeAll()
            ChunkPipeline.forEachLine(slot.region) { line, offset in slot.hits.append((offset, Array(line))) }
        }
        var out: [[UInt8]] = []
        XCTAssertEqual(pipeline.run { slot in out += slot.hits.map(\.line) }, 0)
        return out
    }

    func testSameLinesAsLineReader() throws {
        var random = SplitMix64(seed: 11)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-chunks-\(UUID().uuidString)").path
        defer { unlink(path) }
        for round in 0..<40 {
            var bytes: [UInt8] = []
            let lineCount = Int(random.next() % 30)
            for _ in 0..<lineCount {
                let length = random.next() % 5 == 0 ? Int(random.next() % 200) : Int(random.next() % 12)
                for _ in 0..<length { bytes.append([UInt8(ascii: "a"), UInt8(ascii: "_"), 13, UInt8(ascii: "{")][Int(random.next() % 4)]) }
                if random.next() % 4 == 0 { bytes.append(13) }
                bytes.append(10)
            }
            if round % 2 == 1 { bytes += Array("tail without newline\r".utf8) }
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            let expected = try lines(viaLineReader: path)
            for chunkSize in [1, 2, 3, 7, 64, 1 << 20] {
                for workers in [1, 2, 3] {
                    XCTAssertEqual(lines(viaPipeline: path, chunkSize: chunkSize, workers: workers), expected,
                                   "round \(round), chunk size \(chunkSize), \(workers) workers")
                }
            }
        }
    }

    func testTombstoneSearchFindsEveryLineWithTheKey() {
        let text = "x\n{\"appdna_removed\":[\"a\"]}\r\nappdna_remove\n_removed appdna_removed\nappdna_removedappdna_removed"
        let bytes = Array(text.utf8)
        var found: [String] = []
        bytes.withUnsafeBytes { region in
            TombstoneSearch.forEachLine(containing: region) { line, offset in
                found.append("\(offset):" + String(decoding: line, as: UTF8.self))
            }
        }
        XCTAssertEqual(found, ["2:{\"appdna_removed\":[\"a\"]}", "42:_removed appdna_removed", "66:appdna_removedappdna_removed"])
    }
}
