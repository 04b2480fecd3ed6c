import Foundation
import XCTest
@testable import AppDNACore

final class FileReadingTests: XCTestCase {
    func testFilesOfEverySizeAroundTheBufferBoundariesReadExactly() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reading-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var generator = SplitMix64(seed: 99)
        // Around the first buffer, and around the size from which two threads read a half each.
        let twoThreads = FileReading.parallelReadBytes
        for size in [0, 1, 65_535, 65_536, 65_537, 300_001, twoThreads - 1, twoThreads, twoThreads + 4_097, 3 * twoThreads / 2 + 1] {
            let bytes = generator.bytes(size)
            let url = directory.appendingPathComponent("f\(size)")
            try Data(bytes).write(to: url)
            XCTAssertEqual(try FileReading.readAll(path: url.path), bytes, "size \(size)")
        }
    }

    func testPipesLargerThanTheFirstBufferReadCompletely() throws {
        let pipe = Pipe()
        let payload = [UInt8](repeating: 0x61, count: 1_000_000)
        let writer = Thread {
            pipe.fileHandleForWriting.write(Data(payload))
            try? pipe.fileHandleForWriting.close()
        }
        writer.start()
        let read = try FileReading.readAll(fileDescriptor: pipe.fileHandleForReading.fileDescriptor, name: "pipe")
        XCTAssertEqual(read.count, payload.count)
    }

    func testMissingFilesAndDirectoriesAreInputErrors() {
        XCTAssertThrowsError(try FileReading.readAll(path: "/nonexistent/x")) { error in
            XCTAssertEqual((error as? Failure)?.kind, .inputMissing)
            XCTAssertTrue((error as? Failure)?.message.hasPrefix("/nonexistent/x: ") ?? false)
        }
        XCTAssertThrowsError(try FileReading.readAll(path: "/tmp")) { error in
            XCTAssertEqual((error as? Failure)?.message, "/tmp: is a directory")
        }
    }
}
