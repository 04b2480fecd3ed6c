import Foundation
import XCTest
import TestSupport

/// `.github/workflows/ci.yml` cannot run here, so it is checked the way GitHub would read it:
/// against the published workflow schema (check-jsonschema carries it, no download), and every
/// `run:` script through shellcheck as bash. It must also keep running the README's command on
/// the runners the issue names.
final class WorkflowLintTests: XCTestCase {
    static let workflow = repositoryRoot.appendingPathComponent(".github/workflows/ci.yml")

    func testWorkflowMatchesGitHubsSchema() throws {
        let checker = try requireTool("check-jsonschema")
        let result = try runProgram(checker, ["--builtin-schema", "vendor.github-workflows", Self.workflow.path])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
    }

    func testWorkflowRunsTheReadmeCommandOnLinuxArmAndMacOS() throws {
        let text = try String(contentsOf: Self.workflow, encoding: .utf8)
        for runner in ["ubuntu-latest", "ubuntu-24.04-arm", "macos-14", "macos-15"] {
            XCTAssertTrue(text.contains(runner), "the workflow runs on \(runner)")
        }
        // .ci/run is the README's test command (ReadmeConsoleTests and CISnippet tests hold the README to it).
        XCTAssertEqual(text.components(separatedBy: "run: .ci/run").count - 1, 2, "both jobs run .ci/run")
        let ciRun = try String(contentsOf: repositoryRoot.appendingPathComponent(".ci/run"), encoding: .utf8)
        XCTAssertTrue(ciRun.contains("swift test -c release -Xswiftc -enable-testing --scratch-path .build-test --parallel --num-workers 8"))
    }

    func testEveryRunScriptPassesShellcheck() throws {
        let shellcheck = try requireTool("shellcheck")
        let scripts = Self.runScripts(try String(contentsOf: Self.workflow, encoding: .utf8))
        XCTAssertGreaterThanOrEqual(scripts.count, 5)
        let scratch = try ScratchDirectory("workflow")
        for (index, script) in scripts.enumerated() {
            // GitHub expressions are replaced by a plain word, as actionlint does before shellcheck.
            let plain = script.replacingOccurrences(of: #"\$\{\{[^}]*\}\}"#, with: "EXPR", options: .regularExpression)
            let path = try scratch.file("run-\(index).sh", Array(("#!/usr/bin/env bash\nset -eo pipefail\n" + plain).utf8))
            let result = try runProgram(shellcheck, ["-s", "bash", path])
            XCTAssertEqual(result.status, 0, "run script \(index):\n\(script)\n\(result.stdout)")
        }
    }

    /// The `run:` values of the workflow: single-line ones and `|` blocks.
    static func runScripts(_ yaml: String) -> [String] {
        var scripts: [String] = []
        let lines = yaml.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        func indent(_ line: String) -> Int { line.prefix { $0 == " " || $0 == "-" }.count }
        var index = 0
        while index < lines.count {
            var key = lines[index].trimmingCharacters(in: .whitespaces)
            if key.hasPrefix("- ") { key.removeFirst(2) }
            guard key.hasPrefix("run:") else { index += 1; continue }
            let value = key.dropFirst(4).trimmingCharacters(in: .whitespaces)
            let keyIndent = indent(lines[index])
            index += 1
            guard value == "|" else { scripts.append(value); continue }
            var body: [String] = []
            while index < lines.count, lines[index].trimmingCharacters(in: .whitespaces).isEmpty || indent(lines[index]) > keyIndent {
                body.append(lines[index].trimmingCharacters(in: .whitespaces))
                index += 1
            }
            scripts.append(body.joined(separator: "\n"))
        }
        return scripts
    }
}
