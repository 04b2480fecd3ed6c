import Foundation
import XCTest
@testable import AppDNACLI
import AppDNACore

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

    func testTextIsEscapedOnATerminalAndInAPipeAlikeAndOnlyTheToolsOwnColoursAct() {
        let terminal = OutputSink(capturingAsTerminal: true), pipe = OutputSink(capturingAsTerminal: false)
        let forged = "id\u{1B}[2J\u{1B}]0;pwned\u{07}\rvalid\u{85}\u{9B}31m\u{202E}rev\u{2066}\u{7F}\t\nnext"
        let styled = Styler(enabled: true).apply(.red, "error:")
        for sink in [terminal, pipe] { sink.writeLine(styled + " " + forged) }
        let expected = "\u{1B}[31merror:\u{1B}[0m id\\x1B[2J\\x1B]0;pwned\\x07\\rvalid\\u0085\\u009B31m\\u202Erev\\u2066\\x7F\\t\\nnext\n"
        XCTAssertEqual(terminal.capturedText, expected)
        XCTAssertEqual(pipe.capturedText, expected, "a pipe into a CI log is escaped like a terminal")
        // A marker without the process's tag (what a bundle could spell) starts nothing.
        let untagged = String(Unicode.Scalar(0xFDD0 as UInt32)!) + "[31m" + String(Unicode.Scalar(0xFDD1 as UInt32)!) + String(Unicode.Scalar(0xFDD2 as UInt32)!)
        let sink = OutputSink(capturingAsTerminal: true)
        sink.write(untagged + TerminalText.escape + "]0;title")
        XCTAssertEqual(sink.capturedText, "\\uFDD0[31m\\uFDD1\\uFDD2\\uFDD0]0;title")
        // Machine formats are written as they are.
        let verbatim = OutputSink(capturingAsTerminal: false)
        verbatim.writeVerbatimLine("a\tb")
        verbatim.write(Array("c\nd".utf8))
        XCTAssertEqual(verbatim.capturedText, "a\tb\nc\nd")
    }

    /// Data never starts a line as a CI log command, even after white space or split across
    /// writes; the same text later in a line is left alone.
    func testNoTextLineStartsAsACILogCommand() {
        let sink = OutputSink(capturingAsTerminal: false)
        sink.writeLine("::error::x")
        sink.writeLine("  \u{A0}::warning::y")
        sink.writeLine("##[group]z")
        sink.writeLine("##vso[task.setvariable variable=a]1")
        sink.write(":")
        sink.writeLine(":notice::split")
        sink.writeLine("note: ::error:: in the middle")
        sink.writeLine("## a heading, #1")
        sink.writeRow(["::cell", "::second"])
        sink.writeLine(":")
        XCTAssertEqual(sink.capturedText, """
            \\x3A:error::x
              \u{A0}\\x3A:warning::y
            \\x23#[group]z
            \\x23#vso[task.setvariable variable=a]1
            \\x3A:notice::split
            note: ::error:: in the middle
            ## a heading, #1
            \\x3A:cell\t::second
            :

            """)
    }

    func testTheOneEscapingFunction() {
        XCTAssertEqual(VisibleText.escaped("plain café →"), "plain café →")
        XCTAssertEqual(VisibleText.escaped("a\nb\r\t\u{0}\u{1B}\u{7F}\u{85}\u{9B}\u{61C}\u{200E}\u{200F}\u{202A}\u{202E}\u{2066}\u{2069}\u{2028}\u{2029}" + String(Unicode.Scalar(0xFDD0 as UInt32)!)),
                       "a\\nb\\r\\t\\x00\\x1B\\x7F\\u0085\\u009B\\u061C\\u200E\\u200F\\u202A\\u202E\\u2066\\u2069\\u2028\\u2029\\uFDD0")
        XCTAssertEqual(VisibleText.escaped("café \u{1F680}", asciiOnly: true), "caf\\u00E9 \\U0001F680")
        XCTAssertEqual(VisibleText.escaped("back\\slash"), "back\\slash", "a backslash is data, left alone")
    }

    /// JSON output holds no character that acts on a terminal: DEL, C1, bidi controls and the
    /// separators are \u escapes (the same JSON), control characters as ever.
    func testJSONOutputHoldsNothingThatActs() throws {
        let text = "\u{1B}\u{7F}\u{9B}\u{202E}\u{2028}é"
        let written = JSONWriter().writeString(.string(text))
        XCTAssertEqual(written, "\"\\u001b\\u007f\\u009b\\u202e\\u2028é\"")
        XCTAssertEqual(try JSONValue(parsing: Array(written.utf8)), .string(text))
        XCTAssertEqual(JSONWriter(escapesInvisible: false).writeString(.string("\u{202E}")), "\"\u{202E}\"")
        XCTAssertEqual(String(decoding: JSONWriter.escapingInvisible(Array("{\"a\":\"\u{9B}\u{202E}\"}".utf8)), as: UTF8.self), "{\"a\":\"\\u009b\\u202e\"}")
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
