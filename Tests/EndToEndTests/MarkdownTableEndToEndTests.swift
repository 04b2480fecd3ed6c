import Foundation
import XCTest
import TestSupport

/// `bundle diff --format markdown` goes into pull-request comments: ids with `|`, backticks and
/// line breaks must leave GFM tables whole. Checked with a real CommonMark renderer with GFM
/// tables (python markdown-it-py), not by reading our own output.
final class MarkdownTableEndToEndTests: XCTestCase {
    func testHostileIdsKeepTheTableATable() throws {
        let python = try requirePythonModules(["markdown_it"], because: "a real CommonMark renderer reads the tables")
        let ids = ["a|b", "x`y", "``z", "n\\nl", "<b>html</b>"]  // JSON text: n\nl is a real newline
        func bundle(_ version: Int, _ weight: Double) -> String {
            let experiments = ids.map { "\"\($0)\": {\"status\": \"running\", \"salt\": \"s\", \"variants\": [{\"id\": \"a\", \"weight\": \(weight)}, {\"id\": \"b\", \"weight\": \(1 - weight)}]}" }
            return "{\"bundle_version\": \(version), \"experiments\": {\(experiments.joined(separator: ", "))}}"
        }
        let directory = try ScratchDirectory("markdown")
        let old = try directory.file("old.json", Array(bundle(1, 0.5).utf8)), new = try directory.file("new.json", Array(bundle(2, 0.25).utf8))
        let diff = try Binary.run(["bundle", "diff", "--format", "markdown", "--fail-on-switch", "10", old, new])
        XCTAssertEqual(diff.status, 1, diff.text)
        let check = #"""
        import sys, html.parser
        from markdown_it import MarkdownIt
        rendered = MarkdownIt("commonmark").enable("table").render(sys.stdin.read())
        class Cells(html.parser.HTMLParser):
            def __init__(self):
                super().__init__(); self.rows = []; self.cell = None; self.code = None
            def handle_starttag(self, tag, attrs):
                if tag == "tr": self.rows.append([])
                if tag in ("td", "th"): self.cell = ""
                if tag == "code" and self.cell is not None: self.code = ""
            def handle_endtag(self, tag):
                if tag in ("td", "th"): self.rows[-1].append(self.cell); self.cell = None
                if tag == "code" and self.code is not None: self.rows[-1].append("code:" + self.code); self.code = None
            def handle_data(self, data):
                if self.code is not None: self.code += data
                if self.cell is not None: self.cell += data
        parser = Cells(); parser.feed(rendered)
        for row in parser.rows: print(len([c for c in row if not c.startswith("code:")]), *[c[5:] for c in row if c.startswith("code:")], sep="\t")
        """#
        let result = try ProcessRunner.run(python, ["-c", check], environment: nil, stdin: diff.stdout)
        XCTAssertEqual(result.status, 0, result.stderr)
        let rows = result.stdout.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        XCTAssertEqual(rows.count, 1 + ids.count, "a header and one row per experiment:\n\(String(decoding: diff.stdout, as: UTF8.self))")
        XCTAssertTrue(rows.allSatisfy { $0.first == "5" }, "every row has its five cells: \(rows)")
        XCTAssertEqual(Set(rows.dropFirst().compactMap { $0.count > 1 ? $0[1] : nil }), ["a|b", "x`y", "``z", "n\\nl", "<b>html</b>"],
                       "each id shown exactly (a line break as \\n)")
    }
}
