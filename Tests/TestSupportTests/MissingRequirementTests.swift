import XCTest
import TestSupport

/// A missing tool is a skip on a developer's machine and a failure under CI: `missing` gives an
/// `XCTSkip` (XCTest reports the test skipped) without `CI`, and a plain error (XCTest reports
/// the test failed) with it, both naming what is missing and why.
final class MissingRequirementTests: XCTestCase {
    static let local: [String: String] = ["PATH": "/usr/bin:/bin"]
    static let ci: [String: String] = ["PATH": "/usr/bin:/bin", "CI": "true"]

    func testLocallyAMissingToolIsASkipThatSaysWhatAndWhy() throws {
        let error = missing("frobnicate", because: "it frobs the bundle", environment: Self.local)
        let skip = try XCTUnwrap(error as? XCTSkip, "\(error)")
        XCTAssertEqual(skip.message, "frobnicate is missing (it frobs the bundle); scripts/install-test-tools installs it")
    }

    func testUnderCIAMissingToolIsAFailureThatSaysWhatAndWhy() {
        let error = missing("frobnicate", because: "it frobs the bundle", remedy: "brew install frob", environment: Self.ci)
        XCTAssertFalse(error is XCTSkip, "under CI a missing tool must fail the test, not skip it")
        XCTAssertEqual(String(describing: error), "frobnicate is missing (it frobs the bundle); brew install frob, and CI must have it")
    }

    func testCIIsTheVariableSetToAnythingButEmptyZeroOrFalse() {
        XCTAssertFalse(isCI([:]))
        for off in ["", "0", "false", "FALSE"] { XCTAssertFalse(isCI(["CI": off]), off) }
        for on in ["true", "1", "yes", "TRUE"] { XCTAssertTrue(isCI(["CI": on]), on) }
    }

    func testRequireToolFindsAnInstalledToolEitherWay() throws {
        for environment in [Self.local, Self.ci] {
            let shell = try requireTool("sh", because: "every POSIX system has it", environment: environment)
            XCTAssertTrue(FileManager.default.isExecutableFile(atPath: shell), shell)
            XCTAssertTrue(shell.hasSuffix("/sh"), shell)
        }
    }

    func testRequireToolOfAMissingToolSkipsLocallyAndFailsUnderCI() {
        let name = "appdna-no-such-tool-\(UUID().uuidString)"
        XCTAssertThrowsError(try requireTool(name, because: "a test needs it", environment: Self.local)) {
            XCTAssertTrue($0 is XCTSkip, "\($0)")
        }
        XCTAssertThrowsError(try requireTool(name, because: "a test needs it", environment: Self.ci)) {
            XCTAssertFalse($0 is XCTSkip, "\($0)")
            XCTAssertTrue(String(describing: $0).hasPrefix("\(name) is missing (a test needs it)"), "\($0)")
        }
    }

    func testAPythonModuleThatDoesNotImportIsMissingByName() throws {
        let python = try requirePythonModules(["json", "hashlib"], because: "the standard library", environment: Self.local)
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: python), python)
        XCTAssertThrowsError(try requirePythonModules(["json", "appdna_no_such_module"], because: "a test needs it", environment: Self.local)) {
            XCTAssertEqual(($0 as? XCTSkip)?.message, "python3 module appdna_no_such_module is missing (a test needs it); scripts/install-test-tools installs it")
        }
        XCTAssertThrowsError(try requirePythonModules(["appdna_no_such_module"], because: "a test needs it", environment: Self.ci)) {
            XCTAssertFalse($0 is XCTSkip, "\($0)")
        }
    }
}

/// Every test that cannot run for want of something goes through `missing` (so CI fails rather
/// than passes by skipping): a bare `XCTSkip` is allowed only for another operating system, in
/// an `#if os(macOS)` branch.
final class NoBareSkipTests: XCTestCase {
    func testEverySkipGoesThroughMissingOrIsForAnotherOperatingSystem() throws {
        let tests = repositoryRoot.appendingPathComponent("Tests")
        let files = try XCTUnwrap(FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        XCTAssertGreaterThan(files.count, 100)
        var bare: [String] = []
        for file in files where !["MissingRequirement.swift", "MissingRequirementTests.swift"].contains(file.lastPathComponent) {
            var branch = ""  // the innermost #if line around the current one
            for (number, line) in try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                if code.hasPrefix("#if ") { branch = code } else if code.hasPrefix("#else") || code.hasPrefix("#endif") { branch = "" }
                if (code.contains("XCTSkip(") || code.contains("XCTSkipIf(") || code.contains("XCTSkipUnless(")) && branch != "#if os(macOS)" {
                    bare.append("\(file.path.dropFirst(tests.path.count + 1)):\(number + 1): \(code)")
                }
            }
        }
        XCTAssertEqual(bare, [], "use requireTool, requirePythonModules or missing (Tests/TestSupport/MissingRequirement.swift)")
    }
}
