import XCTest
@testable import AppDNACLI

/// `→ × …` when the locale is UTF-8 (or says nothing); with `LC_ALL=C` (or another locale that
/// is not UTF-8) all text output is ASCII, terminal or pipe: the tool's glyphs as `-> x ...`,
/// data's other characters escaped, not transliterated; machine formats unchanged.
final class TerminalGlyphsTests: XCTestCase {
    func testLocaleDecides() {
        XCTAssertTrue(TerminalGlyphs.localeIsUTF8(["LANG": "C.UTF-8"]))
        XCTAssertTrue(TerminalGlyphs.localeIsUTF8(["LC_ALL": "en_US.utf8", "LANG": "C"]))
        XCTAssertTrue(TerminalGlyphs.localeIsUTF8([:]), "no locale at all: UTF-8, as terminals and CI logs are")
        XCTAssertFalse(TerminalGlyphs.localeIsUTF8(["LANG": "en_US.ISO-8859-1"]))
        XCTAssertFalse(TerminalGlyphs.localeIsUTF8(["LC_ALL": "C", "LANG": "en_US.UTF-8"]), "LC_ALL wins")
        XCTAssertFalse(TerminalGlyphs.localeIsUTF8(["LC_CTYPE": "POSIX", "LANG": "en_US.UTF-8"]), "LC_CTYPE before LANG")
        XCTAssertTrue(TerminalGlyphs.localeIsUTF8(["LC_ALL": "", "LANG": "de_DE.UTF-8"]), "an empty variable is unset")
        XCTAssertEqual(TerminalGlyphs.asASCII("0.57 → 5699 × 2 …"), "0.57 -> 5699 x 2 ...")
    }

    /// A real message with the glyphs: `bucket --explain`'s variant arrow and the W004 weights
    /// warning (`× 10000`, `→`) from bundle validate.
    func testTerminalOutputFollowsTheLocale() throws {
        let bundle = FileManager.default.temporaryDirectory.appendingPathComponent("glyphs-\(UUID().uuidString).json")
        try Data(#"{"bundle_version": 1, "experiments": {"e": {"id": "e", "status": "running", "salt": "s", "variants": [{"id": "control", "weight": 0.57}, {"id": "b", "weight": 0.43}]}}}"#.utf8).write(to: bundle)
        defer { try? FileManager.default.removeItem(at: bundle) }
        let arguments = ["bundle", "validate", bundle.path]
        let utf8Terminal = runCLI(arguments, environment: ["LANG": "C.UTF-8"], terminal: true)
        XCTAssertTrue(utf8Terminal.stdout.contains("× 10000"), utf8Terminal.stdout)
        XCTAssertTrue(utf8Terminal.stdout.contains("→"), utf8Terminal.stdout)

        let cTerminal = runCLI(arguments, environment: ["LANG": "C"], terminal: true)
        XCTAssertTrue(cTerminal.stdout.contains("x 10000"), cTerminal.stdout)
        XCTAssertTrue(cTerminal.stdout.contains("->"), cTerminal.stdout)
        XCTAssertNil(cTerminal.stdout.utf8.first { $0 >= 0x80 }, cTerminal.stdout)

        // A pipe follows the locale too (a CI log under LC_ALL=C).
        let cPipe = runCLI(arguments, environment: ["LC_ALL": "C"])
        XCTAssertTrue(cPipe.stdout.contains("x 10000") && cPipe.stdout.contains("->"), cPipe.stdout)
        XCTAssertNil(cPipe.stdout.utf8.first { $0 >= 0x80 }, cPipe.stdout)
        XCTAssertEqual(runCLI(arguments, environment: [:]).stdout, runCLI(arguments, environment: ["LANG": "C.UTF-8"]).stdout)
        XCTAssertTrue(runCLI(arguments, environment: [:]).stdout.contains("→"), "no locale variable: UTF-8")
    }

    /// `bundle diff` under LC_ALL=C, piped: the arrows are ASCII, an id's é is escaped (data is
    /// not transliterated), and --json keeps UTF-8.
    func testBundleDiffInTheCLocaleIsASCII() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("glyphs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let old = directory.appendingPathComponent("old.json"), new = directory.appendingPathComponent("new.json")
        try Data(#"{"bundle_version": 1, "experiments": {"caf\u00e9": {"status": "draft", "salt": "s", "variants": [{"id": "a", "weight": 1}]}}, "remote_config": {"x": 1}}"#.utf8).write(to: old)
        try Data(#"{"bundle_version": 2, "experiments": {"caf\u00e9": {"status": "running", "salt": "s", "variants": [{"id": "a", "weight": 1}]}}, "remote_config": {"x": 2}}"#.utf8).write(to: new)
        let arguments = ["bundle", "diff", old.path, new.path]
        let utf8 = runCLI(arguments, environment: ["LANG": "C.UTF-8"])
        XCTAssertTrue(utf8.stdout.contains("1 → 2") && utf8.stdout.contains("caf\u{E9}"), utf8.stdout)
        for environment in [["LC_ALL": "C"], ["LANG": "POSIX"], ["LC_CTYPE": "C", "LANG": "en_US.UTF-8"]] {
            for terminal in [false, true] {
                let run = runCLI(arguments, environment: environment, terminal: terminal)
                XCTAssertNil((run.stdout + run.stderr).utf8.first { $0 >= 0x80 }, "\(environment): \(run.stdout)\(run.stderr)")
                XCTAssertTrue(run.stdout.contains("1 -> 2"), run.stdout)
                XCTAssertTrue(run.stdout.contains("caf\\u00E9"), run.stdout)
                XCTAssertFalse(run.stdout.contains("cafe"), "not transliterated: \(run.stdout)")
            }
        }
        let json = runCLI(arguments + ["--json"], environment: ["LC_ALL": "C"])
        XCTAssertEqual(json.stdout, runCLI(arguments + ["--json"], environment: ["LANG": "C.UTF-8"]).stdout, "JSON is UTF-8 in any locale")
    }
}
