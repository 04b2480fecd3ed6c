import Foundation
import XCTest
@testable import AppDNACLI
import AppDNACore
import TestSupport

final class BundleValidateCommandTests: XCTestCase {
    func temporary(_ contents: String, name: String = "appdna-config.json") throws -> String {
        let directory = NSTemporaryDirectory() + "appdna-validate-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/" + name
        try contents.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    let truncation = """
    {
      "bundle_version": 3,
      "experiments": {"e": {"status": "running", "salt": "s",
        "variants": [{"id": "control", "weight": 0.57}, {"id": "b", "weight": 0.43}]}}
    }

    """

    func testTextFormatIsFileLineColumnSeverityMessageCode() throws {
        let path = try temporary(truncation)
        let run = runCLI(["bundle", "validate", path])
        XCTAssertEqual(run.status, 0, "warnings alone are valid")
        XCTAssertEqual(run.stdout, "\(path):4:17: warning: devices truncate weight × 10000, so \"e\" splits control 0.57 → 5699 buckets (intended 5700), b 0.43 → 4301 buckets (intended 4300) [W004]\n")
        XCTAssertEqual(run.stderr, "\(path): valid (0 errors, 1 warning)\n")
        XCTAssertEqual(runCLI(["bundle", "validate", "--quiet", path]).stderr, "")
    }

    func testStrictMakesWarningsErrors() throws {
        let path = try temporary(truncation)
        let run = runCLI(["bundle", "validate", "--strict", path])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stdout.hasPrefix("\(path):4:17: error: devices truncate"), run.stdout)
    }

    /// Issue 52: a clean file is confirmed in one line on stderr (stdout stays empty for a pipe);
    /// --quiet silences it.
    func testValidFileSaysSoInOneLineOnStderrAndZero() throws {
        let path = try temporary(#"{"bundle_version": 1, "remote_config": {"a": true}}"#)
        let run = runCLI(["bundle", "validate", path])
        XCTAssertEqual(run.status, 0)
        XCTAssertEqual(run.stdout, "")
        XCTAssertEqual(run.stderr, "\(path): valid\n")
        XCTAssertEqual(runCLI(["bundle", "validate", "--quiet", path]).stderr, "")
    }

    func testNotJSONIsAFindingWithStatusOne() throws {
        let path = try temporary("<html>503</html>")
        let run = runCLI(["bundle", "validate", path])
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stdout, "\(path):1:1: error: not JSON: expected a value, found '<' [E001]\n")
    }

    func testMissingFileIs66AndOtherFilesAreStillChecked() throws {
        let good = try temporary(#"{"bundle_version": 1}"#)
        let bad = try temporary("[]")
        let run = runCLI(["bundle", "validate", good, "/nonexistent/appdna-config.json", bad])
        XCTAssertEqual(run.status, 66)
        XCTAssertTrue(run.stderr.contains("appdna: /nonexistent/appdna-config.json: no such file or directory\n"), run.stderr)
        XCTAssertTrue(run.stdout.contains("\(bad):1:1: error: the top-level value is an array, not an object [E004]"), run.stdout)
        XCTAssertEqual(runCLI(["bundle", "validate", NSTemporaryDirectory()]).status, 66, "a directory")
    }

    func testStdinWithLeadingBlankLinesKeepsRealLocations() {
        let run = runCLI(["bundle", "validate", "-"], stdin: "\n\n  {\"bundle_version\": -2}")
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stdout, "<stdin>:3:22: error: bundle_version must be an integer >= 0, not -2 [E005]\n")
        XCTAssertEqual(runCLI(["bundle", "validate", "-", "-"], stdin: "{}").status, 64)
    }

    func testJSONFormat() throws {
        let path = try temporary(truncation)
        let run = runCLI(["bundle", "validate", "--format", "json", path, "--strict"])
        XCTAssertEqual(run.status, 1)
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as! [String: Any]
        XCTAssertEqual(object["valid"] as? Bool, false)
        XCTAssertEqual(object["strict"] as? Bool, true)
        let file = (object["files"] as! [[String: Any]])[0]
        XCTAssertEqual(file["file"] as? String, path)
        XCTAssertEqual(file["errors"] as? Int, 1)
        let finding = (file["findings"] as! [[String: Any]])[0]
        XCTAssertEqual(finding["code"] as? String, "W004")
        XCTAssertEqual(finding["severity"] as? String, "error")
        XCTAssertEqual(finding["path"] as? String, "/experiments/e/variants")
        XCTAssertEqual(finding["line"] as? Int, 4)
        XCTAssertEqual(finding["column"] as? Int, 17)
    }

    func testGitHubFormatEscapesProperties() throws {
        let path = try temporary(#"{"bundle_version": "1"}"#, name: "a,b:c.json")
        let run = runCLI(["bundle", "validate", "--format", "github", path])
        XCTAssertEqual(run.status, 1)
        let escaped = path.replacingOccurrences(of: ",", with: "%2C").replacingOccurrences(of: ":", with: "%3A")
        XCTAssertEqual(run.stdout, "::error file=\(escaped),line=1,col=20,title=appdna E005::bundle_version must be an integer >= 0, not \"1\" [E005] at /bundle_version\n")
    }

    func testColourOnlyWhenAsked() throws {
        let path = try temporary("[]")
        XCTAssertTrue(runCLI(["bundle", "validate", "--color", "always", path]).stdout.contains("\u{1B}[31merror:\u{1B}[0m"))
        XCTAssertFalse(runCLI(["bundle", "validate", path], environment: ["NO_COLOR": "1"], terminal: true).stdout.contains("\u{1B}["))
    }

    func testTheCIGuideListsEveryRuleCode() throws {
        let guide = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/ci.md"), encoding: .utf8)
        // Every code from the source of truth: a rule added to BundleRule fails here until documented.
        for code in BundleRule.allCases.map(\.code) {
            XCTAssertTrue(guide.contains("| `\(code)` |"), "docs/ci.md lacks \(code)")
        }
    }
}
