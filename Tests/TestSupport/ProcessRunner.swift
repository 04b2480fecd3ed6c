import Foundation

/// Runs any program (a shell, man, ldd, python, an installed appdna), stdin empty or the given
/// bytes (from a file, like the outputs); stdout and stderr go
/// through temporary files that are removed (no pipe to fill up, whatever the program writes).
/// The one process runner of all test targets.
public enum ProcessRunner {
    public struct Output {
        public let status: Int32
        public let stdout: String
        public let stderr: String

        public init(status: Int32, stdout: String, stderr: String) {
            self.status = status
            self.stdout = stdout
            self.stderr = stderr
        }
    }

    /// `environment` nil inherits the test's environment; otherwise exactly that one is used.
    /// `timeout`: the program is terminated after that many seconds (a command that should end
    /// at once but waits instead fails its test rather than hanging the suite).
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]?,
                           currentDirectory: String? = nil, stdin: Data? = nil, timeout: Double? = nil) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
        let scratch = try ScratchDirectory("process")
        defer { scratch.remove() }
        let out = try scratch.file("stdout", []), err = try scratch.file("stderr", [])
        let outHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        let errHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
        process.standardOutput = outHandle
        process.standardError = errHandle
        var inHandle: FileHandle?
        if let stdin {
            inHandle = try FileHandle(forReadingFrom: URL(fileURLWithPath: try scratch.file("stdin", [UInt8](stdin))))
        }
        process.standardInput = inHandle ?? FileHandle.nullDevice
        try process.run()
        let stop = DispatchWorkItem { if process.isRunning { process.terminate() } }
        if let timeout { DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: stop) }
        process.waitUntilExit()
        stop.cancel()
        try outHandle.close()
        try errHandle.close()
        try inHandle?.close()
        return Output(status: process.terminationStatus,
                      stdout: String(decoding: try Data(contentsOf: URL(fileURLWithPath: out)), as: UTF8.self),
                      stderr: String(decoding: try Data(contentsOf: URL(fileURLWithPath: err)), as: UTF8.self))
    }
}
