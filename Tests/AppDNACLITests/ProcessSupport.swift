import Foundation
import XCTest
import TestSupport

/// Runs an external program and returns its status and output.
@discardableResult
func runProgram(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                currentDirectory: URL? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
    let output = try ProcessRunner.run(executable, arguments, environment: environment, currentDirectory: currentDirectory?.path)
    return (output.status, output.stdout, output.stderr)
}

/// The path of a tool the test needs. CI installs them (.ci/run), so there a missing tool is a
/// failure; on a developer's machine the test is skipped with a note.
func requireTool(_ name: String) throws -> String {
    if let path = findTool(name) { return path }
    if runningInCI {
        struct MissingTool: Error, CustomStringConvertible { let description: String }
        throw MissingTool(description: "\(name) is not installed, but CI must have it (see .ci/run)")
    }
    throw XCTSkip("\(name) is not installed (CI installs it: see .ci/run)")
}
