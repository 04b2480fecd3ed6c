import Foundation

/// Runs any program (a shell, man, ldd, an installed appdna) with exactly the environment given,
/// nothing inherited, stdin empty; stdout and stderr go through temporary files that are removed.
struct ProcessRunner {
    struct Output { let status: Int32; let stdout: String; let stderr: String }

    static func run(_ executable: String, _ arguments: [String], environment: [String: String],
                    currentDirectory: String? = nil) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-process-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("stdout"), err = scratch.appendingPathComponent("stderr")
        try Data().write(to: out)
        try Data().write(to: err)
        let outHandle = try FileHandle(forWritingTo: out), errHandle = try FileHandle(forWritingTo: err)
        process.standardOutput = outHandle
        process.standardError = errHandle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try outHandle.close()
        try errHandle.close()
        return Output(status: process.terminationStatus,
                      stdout: String(decoding: try Data(contentsOf: out), as: UTF8.self),
                      stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self))
    }
}
