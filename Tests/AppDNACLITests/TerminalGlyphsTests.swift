import XCTest
@testable import AppDNACLI

/// `→ × …` only on a terminal whose locale is UTF-8; ASCII on another terminal; pipes and
/// files unchanged whatever the locale.
final class TerminalGlyphsTests: XCTestCase {
    func testLocaleDecides() {
        XCTAssertTrue(TerminalGlyphs.localeIsUTF8(["LANG": "C.UTF-8"]))
        XCTAssertTrue(TerminalGlyphs.localeIsUTF8(["LC_ALL": "en_US.utf8", "LANG": "C"]))
        XCTAssertFalse(TerminalGlyphs.localeIsUTF8([:]))
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

        // Not a terminal: the same bytes in any locale.
        XCTAssertEqual(runCLI(arguments, environment: [:]).stdout, runCLI(arguments, environment: ["LANG": "C.UTF-8"]).stdout)
        XCTAssertTrue(runCLI(arguments, environment: [:]).stdout.contains("→"))
    }
}
