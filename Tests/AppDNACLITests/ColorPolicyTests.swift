import XCTest
@testable import AppDNACLI

final class ColorPolicyTests: XCTestCase {
    func testTerminalEnvironmentAndFlagDecideColour() {
        XCTAssertTrue(ColorPolicy.enabled(flag: nil, environment: [:], isTerminal: true))
        XCTAssertFalse(ColorPolicy.enabled(flag: nil, environment: [:], isTerminal: false))
        XCTAssertFalse(ColorPolicy.enabled(flag: "auto", environment: ["NO_COLOR": "1"], isTerminal: true))
        XCTAssertTrue(ColorPolicy.enabled(flag: "auto", environment: ["NO_COLOR": ""], isTerminal: true), "an empty NO_COLOR does not count")
        XCTAssertFalse(ColorPolicy.enabled(flag: nil, environment: ["TERM": "dumb"], isTerminal: true))
        XCTAssertFalse(ColorPolicy.enabled(flag: "never", environment: [:], isTerminal: true))
        XCTAssertTrue(ColorPolicy.enabled(flag: "always", environment: ["NO_COLOR": "1", "TERM": "dumb"], isTerminal: false))
    }

    func testStylerOnlyWrapsWhenEnabled() {
        XCTAssertEqual(Styler(enabled: false).apply(.red, "x"), "x")
        // The styler marks its sequences; the sink writes them as ESC (TerminalText).
        XCTAssertEqual(Styler(enabled: true).apply(.red, "x"), TerminalText.escape + "[31mx" + TerminalText.escape + "[0m")
        let sink = OutputSink(capturingAsTerminal: true)
        sink.write(Styler(enabled: true).apply(.red, "x"))
        XCTAssertEqual(sink.capturedText, "\u{1B}[31mx\u{1B}[0m")
    }

    func testCommandsColourOnATerminalOnly() {
        let arguments = ["bucket", "u", "e", "s", "--variants", "a=0.5,b=0.5"]
        XCTAssertTrue(runCLI(arguments, terminal: true).stdout.contains("\u{1B}["))
        XCTAssertFalse(runCLI(arguments, environment: ["NO_COLOR": "1"], terminal: true).stdout.contains("\u{1B}["))
        XCTAssertFalse(runCLI(arguments, terminal: false).stdout.contains("\u{1B}["))
    }
}
