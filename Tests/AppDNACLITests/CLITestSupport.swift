import Foundation
import XCTest
@testable import AppDNACLI
import AppDNACore
import AppDNANet

/// Runs `appdna` in-process with captured streams.
struct CapturedRun {
    let status: Int32
    let stdout: String
    let stderr: String

    var stderrLines: [String] { stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
}

func runCLI(_ arguments: [String], environment: [String: String] = [:], stdin: String? = nil,
            terminal: Bool = false, transport: (any HTTPTransport)? = nil, clock: (any Clock)? = nil,
            files: (any FileAccess)? = nil) -> CapturedRun {
    runCLIBytes(arguments, environment: environment, stdin: stdin.map { Array($0.utf8) }, terminal: terminal,
                transport: transport, clock: clock, files: files)
}

/// Runs `command` alone in a table of its own (the framework tests' planted commands), with
/// `appdna`'s global flags and no stdin.
func runInOwnTable(_ command: CommandSpec, _ arguments: [String]) -> CapturedRun {
    let table = CommandTable(programName: "appdna", version: "0", summary: "test", globalFlags: CommandTable.appdna.globalFlags, groups: [],
                             commands: [command], environment: [])
    let out = OutputSink(capturingAsTerminal: false), err = OutputSink(capturingAsTerminal: false)
    let io = CommandIO(stdout: out, stderr: err, stdinDescriptor: -1, stdinIsTerminal: false, environment: [:],
                       transport: nil, clock: SystemClock())
    return CapturedRun(status: Runner.run(arguments, table: table, io: io), stdout: out.capturedText, stderr: err.capturedText)
}

/// `runCLI` with raw stdin bytes (nil: no stdin at all).
/// A `transport`, `clock` and `files` replace the network, time and output files (a scripted
/// API, a virtual clock, files in memory).
func runCLIBytes(_ arguments: [String], environment: [String: String] = [:], stdin: [UInt8]?,
                 terminal: Bool = false, transport: (any HTTPTransport)? = nil, clock: (any Clock)? = nil,
                 files: (any FileAccess)? = nil) -> CapturedRun {
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
    let io = CommandIO(stdout: out, stderr: err, stdinDescriptor: descriptor, stdinIsTerminal: false, environment: environment,
                        transport: transport, clock: clock ?? SystemClock(), files: files ?? SystemFileAccess())
    let status = Runner.run(arguments, table: .appdna, io: io)
    return CapturedRun(status: status, stdout: out.capturedText, stderr: err.capturedText)
}
