import Foundation
import TestSupport
import XCTest

/// How the inspector page is laid out in the browser's window, as measured by the page's own
/// geometry (`getBoundingClientRect`, `scrollWidth`): what InspectorBrowserTests' screen-size
/// tests assert on, next to the screenshots they save.
struct InspectorLayout: Decodable {
    /// The document's full width and height, and the window's.
    let pageWidth: Double, pageHeight: Double, windowWidth: Double, windowHeight: Double
    /// Each pane's content width, and the width it shows without scrolling sideways.
    let listWidth: Double, listVisibleWidth: Double, detailWidth: Double, detailVisibleWidth: Double
    let columns: [Column]
    let rows: [Row]
    /// Whether the placeholder and the selected entry are on screen.
    let placeholderShown: Bool, placeholder: String, detailShown: Bool

    struct Column: Decodable {
        let title: String
        /// Its edges, from the list pane's left edge.
        let left: Double, right: Double
        /// Whether its title is cut (an ellipsis).
        let titleCut: Bool
    }

    struct Row: Decodable {
        let height: Double
        /// A line of the list's text, in pixels.
        let lineHeight: Double
        /// Whether its time shows in full, on one line.
        let timeWhole: Bool
        /// The Signature cell's text (webhook listen), whether all of it shows, and the width
        /// it has for it.
        let verdict: String?, verdictWhole: Bool?, verdictWidth: Double?
    }

    static let script = """
        const pane = document.getElementById('list-pane');
        const detail = document.getElementById('detail-pane') || document.getElementById('detail');
        const root = document.scrollingElement, paneLeft = pane.getBoundingClientRect().left;
        const shown = (id) => { const e = document.getElementById(id); return !!e && !e.hidden && e.getClientRects().length > 0; };
        // A cell's room for its text: its box less its padding.
        const room = (cell) => {
          const box = cell.getBoundingClientRect(), style = getComputedStyle(cell);
          return { left: box.left + parseFloat(style.paddingLeft), right: box.right - parseFloat(style.paddingRight),
                   bottom: box.bottom - parseFloat(style.paddingBottom) };
        };
        // The lines of a cell's text, and whether they all lie in its room (none cut).
        const lines = (cell) => {
          const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT), boxes = [];
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const range = document.createRange();
            range.selectNodeContents(node);
            boxes.push(...[...range.getClientRects()].filter((box) => box.width > 0));
          }
          const space = room(cell);
          return { count: new Set(boxes.map((box) => Math.round(box.top))).size,
                   whole: boxes.every((box) => box.right <= space.right + 0.5 && box.bottom <= space.bottom + 0.5) };
        };
        const signature = [...document.querySelectorAll('#list-head th')].findIndex((th) => th.textContent === 'Signature');
        const columns = [...document.querySelectorAll('#list-head th')].map((th) => {
          const box = th.getBoundingClientRect();
          return { title: th.textContent, left: box.left - paneLeft, right: box.right - paneLeft, titleCut: th.scrollWidth > th.clientWidth };
        });
        const rows = [...document.querySelectorAll('#list-body tr')].map((tr) => {
          const time = lines(tr.cells[0]), verdict = signature < 0 ? null : tr.cells[signature];
          const space = verdict ? room(verdict) : null;
          return { height: tr.getBoundingClientRect().height, lineHeight: parseFloat(getComputedStyle(tr.cells[1]).lineHeight),
                   timeWhole: time.count === 1 && time.whole,
                   verdict: verdict ? verdict.textContent : null, verdictWhole: verdict ? lines(verdict).whole : null,
                   verdictWidth: space ? space.right - space.left : null };
        });
        return JSON.stringify({ pageWidth: root.scrollWidth, pageHeight: root.scrollHeight, windowWidth: root.clientWidth, windowHeight: root.clientHeight,
                                listWidth: pane.scrollWidth, listVisibleWidth: pane.clientWidth, detailWidth: detail.scrollWidth,
                                detailVisibleWidth: detail.clientWidth, columns, rows, placeholderShown: shown('placeholder'),
                                placeholder: shown('placeholder') ? document.getElementById('placeholder').textContent : '',
                                detailShown: shown('detail') });
        """

    static func measure(_ browser: BrowserSession) throws -> InspectorLayout {
        let json = try XCTUnwrap(browser.script(script) as? String)
        return try JSONDecoder().decode(InspectorLayout.self, from: Data(json.utf8))
    }

    /// Every time the page shows (outside the request's own bytes: headers, bodies, the re-send
    /// command) as the whitespace-separated word holding it: each `HH:MM` and the date or
    /// `AM`/`PM` around it. The listener's address (127.0.0.1:PORT) is not a time.
    static let timesScript = """
        const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        const times = [];
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const owner = node.parentElement;
          if (owner.closest('pre, #headers, #listener, [hidden]')) continue;
          const text = node.textContent;
          for (const match of text.matchAll(/(?<![0-9.:])[0-9]{1,2}:[0-9]{2}/g)) {
            let start = match.index, end = match.index;
            while (start > 0 && !/\\s/.test(text[start - 1])) start--;
            while (end < text.length && !/\\s/.test(text[end])) end++;
            let word = text.slice(start, end);
            if (/^\\s*[AaPp]\\.?[Mm]\\.?/.test(text.slice(end))) word += text.slice(end).match(/^\\s*[AaPp]\\.?[Mm]\\.?/)[0];
            times.push(word);
          }
        }
        return times;
        """

    /// The one way the page writes a time: ISO 8601 in UTC with milliseconds (a word may end
    /// in the colon of "TIME: replayed…").
    static let timeFormat = #"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z:?$"#

    static func times(_ browser: BrowserSession) throws -> [String] {
        try XCTUnwrap(browser.script(timesScript) as? [String])
    }

    /// The width and height a PNG says it has (its IHDR chunk).
    static func pngSize(_ png: Data) -> (width: Int, height: Int)? {
        guard png.count > 24, Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] else { return nil }
        let number = { (at: Int) in png.subdata(in: at..<(at + 4)).reduce(0) { $0 << 8 | Int($1) } }
        return (number(16), number(20))
    }

    /// Where the screen-size tests leave their screenshots, to be looked at after the run:
    /// APPDNA_INSPECTOR_SCREENSHOTS, else appdna-inspector-screenshots in the temporary folder.
    static func screenshotFolder() throws -> URL {
        let folder = ProcessInfo.processInfo.environment["APPDNA_INSPECTOR_SCREENSHOTS"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("appdna-inspector-screenshots")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}
