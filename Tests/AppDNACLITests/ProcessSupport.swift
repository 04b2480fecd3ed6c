import Foundation
import XCTest

/// Runs an external program and returns its status and output.
@discardableResult
func runProgram(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                currentDirectory: URL? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    if let currentDirectory { process.currentDirectoryURL = currentDirectory }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
}

/// The path of a tool the test needs. CI installs them (.ci/run), so there a missing tool is a
/// failure; on a developer's machine the test is skipped with a note.
func requireTool(_ name: String) throws -> String {
    for directory in ["/usr/bin", "/bin", "/usr/local/bin", "/opt/homebrew/bin"] {
        let path = directory + "/" + name
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    if ProcessInfo.processInfo.environment["CI"] != nil {
        struct MissingTool: Error, CustomStringConvertible { let description: String }
        throw MissingTool(description: "\(name) is not installed, but CI must have it (see .ci/run)")
    }
    throw XCTSkip("\(name) is not installed (CI installs it: see .ci/run)")
}
