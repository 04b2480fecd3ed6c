import Foundation
import XCTest
@testable import AppDNACLI

/// Replay's workers print retry notes from their own threads (issue 9: a data race on the
/// stderr buffer, 19 TSan reports). Lines written from many threads at once all arrive whole.
final class OutputSinkThreadTests: XCTestCase {
    func writeFromManyThreads(_ sink: OutputSink, threads: Int = 8, lines: Int = 2_000) {
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for line in 0..<lines {
                sink.writeLine("thread \(thread) line \(line) " + String(repeating: "x", count: line % 97 + 1))
                if line % 50 == 0 { sink.flush() }
            }
        }
        sink.flush()
    }

    func check(_ text: String, threads: Int = 8, lines: Int = 2_000) {
        let written = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        XCTAssertEqual(written.count, threads * lines)
        var seen = Set<String>()
        for line in written {
            let words = line.split(separator: " ")
            XCTAssertEqual(words.count, 5, "a torn line: \(line)")
            guard words.count == 5, let number = Int(words[3]) else { continue }
            XCTAssertEqual(words[4].count, number % 97 + 1, "a torn line: \(line)")
            seen.insert("\(words[1]) \(words[3])")
        }
        XCTAssertEqual(seen.count, threads * lines, "every line once")
    }

    func testCapturingSinkKeepsEveryLineWhole() {
        let sink = OutputSink(capturingAsTerminal: false)
        writeFromManyThreads(sink)
        check(sink.capturedText)
    }

    func testFileSinkKeepsEveryLineWhole() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-sink-\(UUID().uuidString)").path
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd); unlink(path) }
        let sink = OutputSink(fileDescriptor: fd, bufferSize: 4096)
        writeFromManyThreads(sink)
        check(try String(contentsOfFile: path, encoding: .utf8))
    }
}
