import Foundation
import XCTest
@testable import AppDNACLI

/// Text from a bundle, a queue or stdin is data: it cannot add a TSV column or row, break a
/// Markdown table, or drive the terminal.
final class UnforgeableOutputTests: XCTestCase {
    func testTSVEscapesTabCRLFAndBackslash() {
        let run = runCLIBytes(["bucket", "-", "exp", "s", "--variants", "x=0.5,y\tz=0.5"], stdin: Array("a\tb\nc\\d\ne\rf\nplain\n".utf8))
        let rows = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        XCTAssertEqual(rows.count, 4, run.stdout)
        for row in rows { XCTAssertEqual(row.split(separator: "\t", omittingEmptySubsequences: false).count, 4, String(row)) }
        XCTAssertEqual(rows.map { String($0.split(separator: "\t")[0]) }, ["a\\tb", "c\\\\d", "e\\rf", "plain"])
        XCTAssertTrue(rows.contains { $0.hasSuffix("\ty\\tz") } || rows.contains { $0.hasSuffix("\tx") })
    }

    func testTheTerminalSeesControlsEscapedAndOnlyTheToolsOwnColours() {
        let terminal = OutputSink(capturingAsTerminal: true), pipe = OutputSink(capturingAsTerminal: false)
        let forged = "id\u{1B}[2J\u{1B}]0;pwned\u{07}\rvalid\u{85}"
        let styled = Styler(enabled: true).apply(.red, "error:")
        for sink in [terminal, pipe] { sink.write(styled + " " + forged) }
        XCTAssertEqual(terminal.capturedText, "\u{1B}[31merror:\u{1B}[0m id\\x1B[2J\\x1B]0;pwned\\x07\\rvalid\\u0085")
        XCTAssertEqual(pipe.capturedText, "\u{1B}[31merror:\u{1B}[0m " + forged, "files and pipes get the bytes as they are")
        // A marker smuggled in by a bundle starts nothing but a colour.
        let smuggled = TerminalText.escape + "]0;title" + TerminalText.escape + "[2J"
        let sink = OutputSink(capturingAsTerminal: true)
        sink.write(smuggled)
        XCTAssertFalse(sink.captured.contains(0x1B), sink.capturedText)
    }

    func testEveryCommandEscapesBundleTextOnATerminal() throws {
        let path = NSTemporaryDirectory() + "appdna-forge-\(UUID().uuidString).json"
        try #"{"bundle_version": 1, "experiments": {"e\u001b[2Jx": {"status": "draft", "salt": "s", "variants": [{"id": "a\u001b[31m", "weight": 1}]}}}"#
            .write(toFile: path, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        for arguments in [["bucket", "u1", "--bundle", path], ["bundle", "validate", path], ["bucket", "u1", "nope", "--bundle", path]] {
            let run = runCLI(arguments, environment: ["NO_COLOR": "1"], terminal: true)  // no colour: any ESC would be forged
            XCTAssertFalse(run.stdout.utf8.contains(0x1B) || run.stderr.utf8.contains(0x1B), "\(arguments): \(run.stdout)\(run.stderr)")
            XCTAssertTrue((run.stdout + run.stderr).contains("e\\x1B[2Jx"), "\(arguments): \(run.stdout)\(run.stderr)")
        }
    }
}
