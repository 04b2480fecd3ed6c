import Foundation
import XCTest
import TestSupport

/// `bucket -` stops on a failed write the way cli.md says, on one thread and on several (where
/// the rows are written a chunk at a time, each chunk straight from a worker's buffer): a full
/// disk ends with status 74 and the reason, a reader that closed the pipe ends it quietly with 0.
final class BucketBatchWriteErrorEndToEndTests: XCTestCase {
    /// 200,000 ids: rows of ~8 MB, past every buffer on the way out.
    static let input: Data = Data((0..<200_000).map { "user-\($0)\n" }.joined().utf8)
    static let arguments = ["bucket", "-", "checkout", "s3cr3t", "--variants", "a=0.5,b=0.5"]

    func testAFullDiskEndsWithStatus74AndTheReason() throws {
        #if os(macOS)
        throw XCTSkip("/dev/full (a device on which every write fails with ENOSPC) is Linux's")
        #else
        for threads in ["1", "2"] {
            let result = try run(stdout: try XCTUnwrap(FileHandle(forWritingAtPath: "/dev/full")), threads: threads)
            XCTAssertEqual(result.status, 74, "APPDNA_THREADS=\(threads)")
            XCTAssertEqual(result.stderr, "appdna: cannot write output: no space left on device\n", "APPDNA_THREADS=\(threads)")
        }
        #endif
    }

    func testAReaderThatClosesThePipeEndsTheBatchQuietly() throws {
        for threads in ["1", "2"] {
            let pipe = Pipe()
            let result = try run(stdout: pipe.fileHandleForWriting, threads: threads) {
                // Like `| head -c 100`: read a little, then close the read end.
                pipe.fileHandleForWriting.closeFile()
                let head = pipe.fileHandleForReading.readData(ofLength: 100)
                XCTAssertEqual(head.count, 100)
                pipe.fileHandleForReading.closeFile()
            }
            XCTAssertEqual(result.reason, .exit, "APPDNA_THREADS=\(threads): not killed by SIGPIPE")
            XCTAssertEqual(result.status, 0, "APPDNA_THREADS=\(threads)")
            XCTAssertEqual(result.stderr, "", "APPDNA_THREADS=\(threads)")
        }
    }

    private struct Outcome {
        let status: Int32
        let reason: Process.TerminationReason
        let stderr: String
    }

    /// Runs the batch over `input` (a file) with stdout `stdout`; `whileRunning` runs once the
    /// process has started.
    private func run(stdout: FileHandle, threads: String, whileRunning: () -> Void = {}) throws -> Outcome {
        let scratch = try ScratchDirectory("batch-write-error")
        defer { scratch.remove() }
        let inputPath = try scratch.file("ids.txt", Array(Self.input))
        let errorPath = scratch.url.appendingPathComponent("stderr.txt").path
        XCTAssertTrue(FileManager.default.createFile(atPath: errorPath, contents: nil))
        let process = Process()
        process.executableURL = Binary.url
        process.arguments = Self.arguments
        process.environment = ["PATH": "/usr/bin:/bin", "APPDNA_THREADS": threads]
        process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: inputPath))
        process.standardOutput = stdout
        let errorHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        process.standardError = errorHandle
        try process.run()
        whileRunning()
        process.waitUntilExit()
        try errorHandle.close()
        let stderr = String(decoding: try Data(contentsOf: URL(fileURLWithPath: errorPath)), as: UTF8.self)
        return Outcome(status: process.terminationStatus, reason: process.terminationReason, stderr: stderr)
    }
}
