import Foundation

/// What `git ARGUMENTS` prints in `directory`, or a failure with git's own words: a git that
/// fails (a checkout it refuses, "detected dubious ownership" when another user owns it, as in
/// a container job on GitHub) is a failure, never an empty answer that a comparison then
/// accepts.
public func gitOutput(_ arguments: [String], in directory: String, environment: [String: String]? = nil) throws -> String {
    let result = try ProcessRunner.run("/usr/bin/env", ["git", "-C", directory] + arguments, environment: environment)
    guard result.status == 0 else {
        throw TestFailure("git \(arguments.joined(separator: " ")) in \(directory) failed (status \(result.status)): \(result.stderr)")
    }
    return result.stdout
}
