import Foundation
import XCTest
import TestSupport

/// Runs the built `appdna` binary (`BuiltBinary.url`: the one `APPDNA_TEST_BINARY` names, else
/// the one `swift test` built beside the test bundle).
enum Binary {
    static let url: URL = BuiltBinary.url

    struct Result {
        let status: Int32
        let stdout: Data
        let stderr: String
        var text: String { String(decoding: stdout, as: UTF8.self) }
        var stderrLines: [Substring] { stderr.split(separator: "\n") }
    }

    /// Runs appdna with `arguments`, feeding `stdin`; the environment is minimal and explicit.
    static func run(_ arguments: [String], stdin: Data = Data(), environment: [String: String] = [:]) throws -> Result {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: url.path), "no built binary at \(url.path)")
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        process.environment = ["PATH": "/usr/bin:/bin"].merging(environment) { $1 }
        let output = Pipe()
        // stdin and stderr are files: stdin read from a file cannot raise SIGPIPE in the test
        // process when appdna exits without reading it (a usage error), and stderr is small and
        // read after the process ends.
        let inputPath = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-stdin-\(UUID().uuidString)")
        let errorPath = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: inputPath.path, contents: stdin)
        _ = FileManager.default.createFile(atPath: errorPath.path, contents: nil)
        let inputHandle = try FileHandle(forReadingFrom: inputPath)
        let errorHandle = try FileHandle(forWritingTo: errorPath)
        defer {
            try? FileManager.default.removeItem(at: inputPath)
            try? FileManager.default.removeItem(at: errorPath)
        }
        process.standardInput = inputHandle
        process.standardOutput = output
        process.standardError = errorHandle
        try process.run()
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try inputHandle.close()
        try errorHandle.close()
        let errorData = try Data(contentsOf: errorPath)
        return Result(status: process.terminationStatus, stdout: outData, stderr: String(decoding: errorData, as: UTF8.self))
    }
}

extension Binary {
    /// GNU time, which reports a child's peak memory (`-f %M`); macOS's is BSD's.
    static func gnuTime() throws -> String {
        #if os(macOS)
        throw XCTSkip("peak memory needs GNU time's -f %M; macOS's /usr/bin/time is BSD's (measured on the Linux runners)")
        #else
        let time = "/usr/bin/time"
        guard FileManager.default.isExecutableFile(atPath: time) else { throw missing("GNU time (/usr/bin/time)", because: "it measures peak memory") }
        return time
        #endif
    }
}

extension XCTestCase {
    /// Writes `contents` to a fresh temporary file and returns its path; the file's directory
    /// is removed when the test ends.
    func temporaryFile(_ contents: String, name: String = "file.json") throws -> String {
        let directory = try ScratchDirectory("e2e")
        addTeardownBlock { directory.remove() }
        return try directory.file(name, Array(contents.utf8))
    }
}

extension Binary {
    /// Runs appdna under GNU time, feeding stdin from `feed` on another thread, and returns
    /// appdna's own peak RSS in KiB as GNU time reports it (the test process's RUSAGE_CHILDREN
    /// would count every earlier child of the suite too) with its status, stdout and stderr.
    static func measurePeakMemory(_ arguments: [String], environment: [String: String] = [:],
                                  feed: @escaping @Sendable (FileHandle) -> Void = { _ in })
        throws -> (status: Int32, stdout: String, stderr: String, maxRSSKiB: Int) {
        let time = try gnuTime()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: time)
        process.arguments = ["-f", "%M", url.path] + arguments
        process.environment = ["PATH": "/usr/bin:/bin"].merging(environment) { $1 }
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let handle = input.fileHandleForWriting
        let writer = Thread {
            feed(handle)
            try? handle.close()
        }
        writer.start()
        // stderr is drained on its own thread so neither pipe can fill up and block appdna.
        final class Collected: @unchecked Sendable { var data = Data() }
        let errorData = Collected()
        let done = DispatchSemaphore(value: 0)
        Thread {
            errorData.data = errors.fileHandleForReading.readDataToEndOfFile()
            done.signal()
        }.start()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        done.wait()
        process.waitUntilExit()
        var lines = String(decoding: errorData.data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }
        lines.removeAll { $0.hasPrefix("Command exited with non-zero status") }  // GNU time's own note
        let peak = lines.popLast().flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? Int.max
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), lines.map { $0 + "\n" }.joined(), peak)
    }
}
