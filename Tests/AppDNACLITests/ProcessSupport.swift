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
