import Foundation
// `swift build` (the release binary included) builds this target too, without XCTest on the
// module path: what needs XCTest exists only in a build for testing.
#if canImport(XCTest)
import XCTest

/// What a test throws when something it needs from outside the package is missing (a tool, a
/// Python module, the release binary, a loopback port): on a developer's machine an `XCTSkip`
/// that names it and why, so the test is reported as skipped; under CI a failure. CI installs
/// everything the suite needs (`scripts/install-test-tools`, run by `.ci/run`), so there a
/// missing tool is a test that stopped testing without anyone noticing, not a reason to skip.
///
/// CI is the environment variable `CI` set to anything but empty, `0` or `false` (GitHub Actions
/// and `.ci/run` set `CI=true`).
public func missing(_ what: String, because reason: String,
                    remedy: String = "scripts/install-test-tools installs it",
                    environment: [String: String] = ProcessInfo.processInfo.environment) -> Error {
    let message = "\(what) is missing (\(reason)); \(remedy)"
    if isCI(environment) { return TestFailure(message + ", and CI must have it") }
    return XCTSkip(message)
}

/// The path of the external tool `name` (see `findTool`), or `missing(name, because:)` thrown:
/// skipped locally, a failure under CI.
public func requireTool(_ name: String, because reason: String,
                        environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
    if let path = findTool(name) { return path }
    throw missing(name, because: reason, environment: environment)
}


/// The python3 interpreter (its real path, not a pyenv shim) in which every one of `modules`
/// imports; otherwise the first that does not is `missing` (skipped locally, a failure under CI).
@discardableResult
public func requirePythonModules(_ modules: [String], because reason: String,
                                 environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
    let python = try requireTool("python3", because: reason, environment: environment)
    let probe = try ProcessRunner.run(python, ["-c", """
        import importlib, sys
        for module in sys.argv[1:]:
            try: importlib.import_module(module)
            except ImportError: print(module); sys.exit(3)
        print(sys.executable)
        """] + modules, environment: nil)
    let answer = probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    if probe.status == 3 { throw missing("python3 module \(answer)", because: reason, environment: environment) }
    guard probe.status == 0, !answer.isEmpty else { throw TestFailure("\(python) failed: \(probe.stderr)") }
    return answer
}
#endif

/// Whether `environment` is CI's (see `missing`).
public func isCI(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
    guard let value = environment["CI"] else { return false }
    return !["", "0", "false"].contains(value.lowercased())
}
