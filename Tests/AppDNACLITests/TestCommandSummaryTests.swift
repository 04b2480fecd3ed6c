import Foundation
import XCTest
import TestSupport

/// scripts/test, the test command's last step, on a package of three tests (one passes, one
/// fails, one is skipped): its last line says what ran, the Swift Testing line of a run without
/// Swift Testing tests is not the last thing printed (it is not printed at all), the status is
/// swift test's, and under CI a compiler warning fails the run before any test does.
final class TestCommandSummaryTests: XCTestCase {
    func testTheLastLinesSayWhatRanAndAWarningFailsUnderCI() throws {
        let swift = try requireTool("swift", because: "scripts/test builds and runs a package with it")
        let scratch = try ScratchDirectory("test-summary")
        defer { scratch.remove() }
        try FileManager.default.createDirectory(atPath: scratch.path + "/scripts", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: scratch.path + "/Tests/ThreeTests", withIntermediateDirectories: true)
        let script = scratch.path + "/scripts/test"
        try FileManager.default.copyItem(atPath: repositoryRoot.appendingPathComponent("scripts/test").path, toPath: script)
        _ = try scratch.file("Package.swift", Array("""
            // swift-tools-version:6.0
            import PackageDescription
            let package = Package(name: "Three", targets: [.testTarget(name: "ThreeTests")])

            """.utf8))
        // The skip is spelled in two pieces: NoBareSkipTests reads this file's text.
        let tests = """
            import XCTest
            final class ThreeTests: XCTestCase {
                func testPasses() {}
                func testFails() { XCTFail("planted failure") }
                func testIsSkipped() throws { throw XCT\("Skip")("planted skip") }
            }

            """
        _ = try scratch.file("Tests/ThreeTests/ThreeTests.swift", Array(tests.utf8))
        var environment = ProcessInfo.processInfo.environment
        environment["CI"] = nil
        environment["PATH"] = URL(fileURLWithPath: swift).deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")

        let run = try runProgram(script, ["--parallel"], environment: environment, currentDirectory: scratch.url)
        XCTAssertEqual(run.status, 1, "swift test's status (a test failed): " + run.stdout + run.stderr)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.last, "appdna tests: 1 passed, 1 failed, 1 skipped", run.stdout)
        XCTAssertEqual(lines.dropLast().last, "appdna tests: XCTest ran 3 tests", run.stdout)
        // `ThreeTests.testFails` on Linux, `-[ThreeTests.ThreeTests testFails]` on macOS.
        XCTAssertTrue(lines.contains { $0.hasPrefix("appdna tests: failed: ") && $0.contains("testFails") }, run.stdout)
        XCTAssertFalse(run.stdout.contains("Test run with 0 tests"), "no Swift Testing tests: no Swift Testing count")
        XCTAssertTrue(run.stdout.contains("planted skip"), "a skip's reason is shown")
        func passedLine(_ text: String) -> Bool {
            text.split(separator: "\n").contains { $0.contains("testPasses") && $0.contains("' passed (") }
        }
        XCTAssertFalse(passedLine(run.stdout), "a passing test's lines stay in the log")
        let log = try String(contentsOfFile: scratch.path + "/.build/test.log", encoding: .utf8)
        XCTAssertTrue(passedLine(log), "the log holds everything")

        // A warning in the build: reported, and under CI the run fails before testing.
        _ = try scratch.file("Tests/ThreeTests/Warning.swift", Array("func plantedWarning() { let unused = 1 }\n".utf8))
        environment["CI"] = "true"
        let warned = try runProgram(script, ["--parallel"], environment: environment, currentDirectory: scratch.url)
        XCTAssertEqual(warned.status, 1, warned.stdout + warned.stderr)
        XCTAssertTrue(warned.stdout.contains("appdna tests: the build printed 1 warning(s)"), warned.stdout)
        XCTAssertTrue(warned.stdout.contains("Warning.swift:1:29: warning: initialization of immutable value 'unused' was never used"), warned.stdout)
        XCTAssertEqual(warned.stdout.split(separator: "\n").last, "appdna tests: failing: CI is set and a warning is new", warned.stdout)
    }

    /// A test whose process dies under it (a trap, a signal, a timeout) prints its start and no
    /// result; scripts/test counts it failed and names it (issue 53: it was counted as neither,
    /// and the last line read as if everything had passed). A stand-in `swift` on PATH prints
    /// what `swift test` prints for such a test and exits 1, as swift test does.
    func testATestThatStartedAndNeverEndedIsCountedFailedAndNamed() throws {
        let scratch = try ScratchDirectory("test-crash")
        defer { scratch.remove() }
        try FileManager.default.createDirectory(atPath: scratch.path + "/scripts", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: scratch.path + "/bin", withIntermediateDirectories: true)
        let script = scratch.path + "/scripts/test"
        try FileManager.default.copyItem(atPath: repositoryRoot.appendingPathComponent("scripts/test").path, toPath: script)
        let swift = try scratch.file("bin/swift", Array("""
            #!/bin/sh
            # swift build succeeds; swift test runs one test that dies with SIGILL (a Swift trap).
            case "$1" in
                build) echo "Build complete!"; exit 0 ;;
                test)
                    echo "Test Suite 'Selected tests' started at 2026-11-29 05:00:00.000"
                    echo "Test Case 'ATests.testCrash' started at 2026-11-29 05:00:00.001"
                    echo "Exited with unexpected signal code 4"
                    exit 1 ;;
            esac
            exit 64

            """.utf8))
        XCTAssertEqual(chmod(swift, 0o755), 0)
        var environment = ProcessInfo.processInfo.environment
        environment["CI"] = nil
        environment["PATH"] = scratch.path + "/bin:" + (environment["PATH"] ?? "/usr/bin:/bin")
        let run = try runProgram(script, ["--parallel"], environment: environment, currentDirectory: scratch.url)
        XCTAssertEqual(run.status, 1, "swift test's status: " + run.stdout + run.stderr)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.last, "appdna tests: 0 passed, 1 failed, 0 skipped", run.stdout)
        XCTAssertEqual(lines.dropLast().last, "appdna tests: XCTest ran 1 tests", run.stdout)
        XCTAssertTrue(lines.contains("appdna tests: failed: ATests.testCrash (started, no result: crashed, killed or timed out)"), run.stdout)
        XCTAssertTrue(run.stdout.contains("Exited with unexpected signal code 4"), "the signal line is shown: " + run.stdout)
    }
}
