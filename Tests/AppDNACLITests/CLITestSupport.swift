import Foundation
import XCTest
@testable import AppDNACLI

/// Runs `appdna` in-process with captured streams.
struct CapturedRun {
    let status: Int32
    let stdout: String
    let stderr: String

    var stderrLines: [String] { stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
}

func runCLI(_ arguments: [String], environment: [String: String] = [:], stdin: String? = nil,
            terminal: Bool = false) -> CapturedRun {
    runCLIBytes(arguments, environment: environment, stdin: stdin.map { Array($0.utf8) }, terminal: terminal)
}

/// `runCLI` with raw stdin bytes (nil: no stdin at all).
func runCLIBytes(_ arguments: [String], environment: [String: String] = [:], stdin: [UInt8]?,
                 terminal: Bool = false) -> CapturedRun {
    var descriptor: Int32 = -1
    if let stdin {
        let path = NSTemporaryDirectory() + "appdna-stdin-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: path, contents: Data(stdin))
        descriptor = open(path, O_RDONLY)
        unlink(path)
    }
    defer { if descriptor >= 0 { close(descriptor) } }
    let out = OutputSink(capturingAsTerminal: terminal)
    let err = OutputSink(capturingAsTerminal: terminal)
    let io = CommandIO(stdout: out, stderr: err, stdinDescriptor: descriptor, stdinIsTerminal: false, environment: environment)
    let status = Runner.run(arguments, table: .appdna, io: io)
    return CapturedRun(status: status, stdout: out.capturedText, stderr: err.capturedText)
}

/// The repository root, found from this file's path (tests never read ../shared).
let repositoryRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A fresh directory under the temporary directory for one test, removed by `remove()`.
struct ScratchDirectory {
    let url: URL

    init(_ label: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    var path: String { url.path }

    /// Writes `bytes` to `name` in the directory and returns its path.
    func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let file = url.appendingPathComponent(name)
        try Data(bytes).write(to: file)
        return file.path
    }

    func remove() { try? FileManager.default.removeItem(at: url) }
}
