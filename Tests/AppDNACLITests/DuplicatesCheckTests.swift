import Foundation
import XCTest
import TestSupport

/// `scripts/check-duplicates` (docs/development.md, "Duplicates named as boilerplate"): CI has no
/// `duplicates`, so the script runs here over a planted tool that prints rows as the real one
/// does, and a planted document; the real document's list is checked against the tree.
final class DuplicatesCheckTests: XCTestCase {
    static let script = repositoryRoot.appendingPathComponent("scripts/check-duplicates").path
    static let heading = "## Duplicates named as boilerplate"

    /// Runs the script with `rows` as the planted tool's output and `named` as the document's list.
    func check(rows: [String], named: [String], scratch: ScratchDirectory) throws -> (status: Int32, stdout: String, stderr: String) {
        let tool = try scratch.file("duplicates", Array(("#!/bin/sh\ncat <<'EOF'\n" + rows.joined(separator: "\n") + "\nEOF\n").utf8))
        XCTAssertEqual(chmod(tool, 0o755), 0)
        let doc = ["# Developing", "", Self.heading, "", "Some words.", ""] + named + ["", "## Next", "", "- `Sources/X.swift` ~ `Sources/Y.swift`: after the section, not read."]
        let docPath = try scratch.file("development.md", Array(doc.joined(separator: "\n").utf8))
        var environment = ProcessInfo.processInfo.environment
        environment["DUPLICATES"] = tool
        environment["DUPLICATES_DOC"] = docPath
        return try runProgram("/bin/bash", [Self.script], environment: environment)
    }

    let rows = [
        "4 pairs of places (9 files read), each sharing runs of 6 or more identical or same-shape lines (4 by shape alone, 1 of those marked boilerplate)",
        "D1 A/One.swift:10-20 ~ B/Two.swift:30-40 shape (+1 more run)",
        "D2 A/Same.swift:1-8 ~ A/Same.swift:20-27 shape",
        "D3 C/New.swift:5-11 ~ A/One.swift:50-56 shape",
        "D4 D/Thin.swift:1-6 ~ E/Thin.swift:1-6 shape boilerplate",
        "left out: 2 runs of 6 lines that stand in more than 8 places each (too common to list)",
    ]

    func testAPairNeitherBoilerplateNorNamedFailsAndNamingItPasses() throws {
        let scratch = try ScratchDirectory("check-duplicates")
        defer { scratch.remove() }
        // Named in the other order and at other lines than reported: files are what match.
        var named = ["- `Sources/B/Two.swift` ~ `Sources/A/One.swift`: why.", "- `Sources/A/Same.swift` ~ `Sources/A/Same.swift`: why."]
        let failing = try check(rows: rows, named: named, scratch: scratch)
        XCTAssertEqual(failing.status, 1, failing.stdout + failing.stderr)
        XCTAssertTrue(failing.stderr.contains("  D3 C/New.swift:5-11 ~ A/One.swift:50-56 shape"), failing.stderr)
        XCTAssertFalse(failing.stderr.contains("D1 ") || failing.stderr.contains("D2 "), "named pairs pass: " + failing.stderr)
        XCTAssertFalse(failing.stderr.contains("Thin.swift"), "a boilerplate pair needs no name: " + failing.stderr)

        named.append("- `Sources/C/New.swift` ~ `Sources/A/One.swift`: why.")
        let passing = try check(rows: rows, named: named, scratch: scratch)
        XCTAssertEqual(passing.status, 0, passing.stdout + passing.stderr)
        XCTAssertTrue(passing.stdout.contains("3 non-boilerplate pairs, each named"), passing.stdout)

        named.append("- `Sources/Gone.swift` ~ `Sources/A/One.swift`: why.")
        let stale = try check(rows: rows, named: named, scratch: scratch)
        XCTAssertEqual(stale.status, 0, stale.stdout + stale.stderr)
        XCTAssertTrue(stale.stdout.contains("no longer reported") && stale.stdout.contains("Sources/A/One.swift ~ Sources/Gone.swift"), stale.stdout)
    }

    func testATreeNotCheckedWholeIsNotAPass() throws {
        let scratch = try ScratchDirectory("check-duplicates")
        defer { scratch.remove() }
        let named = ["- `Sources/B/Two.swift` ~ `Sources/A/One.swift`: why."]
        let incomplete = try check(rows: [rows[1], "incomplete: time: 120 s passed before every file was paired"], named: named, scratch: scratch)
        XCTAssertEqual(incomplete.status, 2, incomplete.stdout + incomplete.stderr)
        XCTAssertTrue(incomplete.stderr.contains("incomplete: time"), incomplete.stderr)
        // More rows than listed, and the last listed is no boilerplate: an unlisted one may be neither.
        let cut = try check(rows: [rows[1], "(+3 more pairs)"], named: named, scratch: scratch)
        XCTAssertEqual(cut.status, 2, cut.stdout + cut.stderr)
        let cutAtBoilerplate = try check(rows: [rows[1], rows[4], "(+3 more pairs)"], named: named, scratch: scratch)
        XCTAssertEqual(cutAtBoilerplate.status, 0, cutAtBoilerplate.stdout + cutAtBoilerplate.stderr)
    }

    func testWithoutTheToolItSaysSoAndPasses() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["DUPLICATES"] = "appdna-no-such-duplicates-tool"
        let result = try runProgram("/bin/bash", [Self.script], environment: environment)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("appdna-no-such-duplicates-tool is not installed"), result.stdout)
    }

    /// Every file the document's list names exists, so a renamed file does not leave its pair
    /// named under a name the tool no longer reports.
    func testTheDocumentsListNamesFilesOfTheTree() throws {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/development.md"), encoding: .utf8)
        let section = try XCTUnwrap(text.components(separatedBy: "\n" + Self.heading + "\n").dropFirst().first?.components(separatedBy: "\n## ").first)
        let pairs = section.split(separator: "\n").compactMap { $0.firstMatch(of: /^- `([^`]+)` ~ `([^`]+)`: ./) }
        XCTAssertGreaterThan(pairs.count, 0, "the section names its pairs as '- `FILE` ~ `FILE`: why'")
        for pair in pairs {
            for path in [pair.1, pair.2] {
                XCTAssertTrue(FileManager.default.fileExists(atPath: repositoryRoot.appendingPathComponent(String(path)).path), "\(path) is named in docs/development.md")
            }
        }
    }

    func testTheScriptPassesShellcheck() throws {
        let shellcheck = try requireTool("shellcheck", because: "lints scripts/check-duplicates")
        let result = try runProgram(shellcheck, [Self.script])
        XCTAssertEqual(result.status, 0, result.stdout)
    }
}
