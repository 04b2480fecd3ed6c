import Foundation
import TestSupport
import XCTest

/// Issue 52.1: `api serve`'s exposure audit on the inspector page, in headless Chromium against
/// the built binary. Each request row of a batch with exposures has a badge with its counts;
/// the selected batch lists each disagreeing exposure with its cause. On a laptop's screen
/// (1280 x 800) with the console open, as it opens, the requests list is in sight; on a wide
/// one (1920 x 1080) too. Screenshots of both are left in InspectorLayout.screenshotFolder().
final class InspectorAuditBrowserTests: XCTestCase {
    var directory: URL!
    var server: InspectedProcess?
    var browser: BrowserSession?

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-audit-page-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        browser?.close()
        server?.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    func post(_ events: [String], to server: InspectedProcess) throws {
        let path = directory.appendingPathComponent("batch-\(UUID().uuidString).json").path
        try Data((#"{"batch":["# + events.joined(separator: ",") + "]}").utf8).write(to: URL(fileURLWithPath: path))
        let posted = try curl(server.listener + "/api/v1/ingest/events", ["-X", "POST", "-H", "x-api-key: k", "-H", "Content-Type: application/json",
                                                                         "--data-binary", "@" + path], in: directory)
        XCTAssertEqual(posted.status, 200, posted.text)
    }

    func testTheAuditIsABadgeInTheListAndEachDisagreementWithItsCauseInTheBatch() throws {
        let browser = try BrowserSession()
        self.browser = browser
        let source = directory.appendingPathComponent("bundle.json").path
        try Data(DevServerEndToEndTests.source.utf8).write(to: URL(fileURLWithPath: source))
        // Served: bundle_version 8 (7 and one change); y is everyone's variant of "other".
        let server = try InspectedProcess(["api", "serve", "--bundle", source, "--override", "experiment:other=y"], in: directory)
        self.server = server
        try post([DevServerEndToEndTests.exposureEvent(1, [("other", "y")], version: 8),
                  DevServerEndToEndTests.exposureEvent(2, [("other", "x")], version: 8),
                  DevServerEndToEndTests.exposureEvent(3, [("no-such-experiment", "a")], version: 8),
                  DevServerEndToEndTests.exposureEvent(4, [("paused-exp", "a")], version: 8),
                  DevServerEndToEndTests.exposureEvent(5, [("other", "x")], version: 6)], to: server)
        try post([DevServerEndToEndTests.exposureEvent(6, [("other", "y")], version: 8)], to: server)
        XCTAssertEqual(try curl(server.listener + "/api/v1/sdk/config-bundle/version", ["-H", "x-api-key: k"], in: directory).status, 200)

        let folder = try InspectorLayout.screenshotFolder()
        for (width, height) in [(1280, 800), (1920, 1080)] {
            let size = "\(width)x\(height)"
            try browser.viewport(width: width, height: height)
            try browser.open(server.inspector + "/")
            try browser.wait("#list-body tr", count: 3)
            try browser.wait("#console:not([hidden]) .experiment[data-key='other']")
            XCTAssertEqual(try browser.script("return document.getElementById('console').open") as? Bool, true, "\(size): the console opens open")
            XCTAssertEqual(try browser.texts("#list-head th"), ["Time", "Request", "Endpoint", "Status", "Fault", "Events", "Audit"])
            // Issue 52.6: the onboarding flow is chosen from the bundle's flows, as a variant is.
            XCTAssertEqual(try browser.script("return document.getElementById('onboarding-flow').tagName") as? String, "SELECT", size)
            XCTAssertEqual(try browser.texts("#onboarding-flow option"), ["flow_a", "flow_b"], size)

            // The list, above the fold: every row's top inside the window, the first whole.
            let fold = try XCTUnwrap(browser.script("""
                const rows = [...document.querySelectorAll('#list-body tr')].map((row) => row.getBoundingClientRect());
                return [rows[0].bottom, rows[rows.length - 1].top, window.innerHeight];
                """) as? [Double], size)
            XCTAssertLessThanOrEqual(fold[0], fold[2], "\(size): the first request is below the fold")
            XCTAssertLessThan(fold[1], fold[2], "\(size): the last request is below the fold")

            // Newest first: the version request (no exposures), the batch that agrees, the one that does not.
            XCTAssertEqual(try browser.texts("#list-body tr td:nth-child(7)"), ["", "1 agree", "3 of 4 disagree"], size)
            XCTAssertEqual(try browser.count("#list-body tr:nth-child(3) .badge.invalid.audit"), 1, size)
            XCTAssertEqual(try browser.count("#list-body tr:nth-child(2) .badge.valid.audit"), 1, size)
            // Event 5 ran bundle_version 6, which this server never served: not judged (issue 51.4).
            XCTAssertEqual(try browser.attribute("#list-body tr:nth-child(3) .badge.audit", "title"),
                           "4 exposures checked against bundle_version 8: 1 agree, 3 disagree; 1 from bundle_version 6, which this server never served or wrote: not judged", size)
            assertFits(try InspectorLayout.measure(browser), size)
            try saveScreenshot(browser, folder.appendingPathComponent("inspector-audit-\(size).png"), (width, height))

            // The batch selected: the counts, then each disagreeing exposure with its cause.
            try browser.click("#list-body tr:nth-child(3)")
            try browser.wait("#audit-mismatches li", count: 3)
            XCTAssertEqual(try browser.text("#audit-summary"),
                           "4 exposures checked against bundle_version 8: 1 agree, 3 disagree; 1 from bundle_version 6, which this server never served or wrote: not judged")
            XCTAssertEqual(try browser.texts("#audit-mismatches .cause"),
                           ["unexplained", "experiment-missing", "experiment-not-running"], size)
            let items = try browser.texts("#audit-mismatches li")
            XCTAssertTrue(items[0].hasPrefix("event 2 (\(TestEvents.id(2))): other recorded x, expected y"), items[0])
            XCTAssertTrue(items[1].contains("no experiment 'no-such-experiment' in the bundle"), items[1])
            XCTAssertFalse(items.joined().contains("event 1 "), "the agreeing exposure is not listed")
            XCTAssertEqual(try browser.count("#audit-box:not([hidden])"), 1)
            assertFits(try InspectorLayout.measure(browser), "\(size), the batch selected")
            try saveScreenshot(browser, folder.appendingPathComponent("inspector-audit-\(size)-batch.png"), (width, height))

            // A request without exposures has no audit to show.
            try browser.click("#list-body tr:nth-child(1)")
            try browser.wait("#detail-title", text: "config-bundle/version")
            XCTAssertEqual(try browser.count("#audit-box:not([hidden])"), 0, size)
        }
        XCTAssertFalse(try browser.console().contains { $0.contains("Content Security Policy") })
    }

    /// No sideways scrolling and no page taller than the window (each pane scrolls by itself).
    func assertFits(_ layout: InspectorLayout, _ size: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertLessThanOrEqual(layout.pageWidth, layout.windowWidth, "\(size): the page scrolls sideways", file: file, line: line)
        XCTAssertLessThanOrEqual(layout.pageHeight, layout.windowHeight, "\(size): the page is taller than the window", file: file, line: line)
        XCTAssertLessThanOrEqual(layout.listWidth, layout.listVisibleWidth, "\(size): the list scrolls sideways", file: file, line: line)
        for column in layout.columns {
            XCTAssertLessThanOrEqual(column.right, layout.listVisibleWidth + 0.5, "\(size): \(column.title) is cut off", file: file, line: line)
            XCTAssertFalse(column.titleCut, "\(size): the title \(column.title) is cut", file: file, line: line)
        }
    }

    func saveScreenshot(_ browser: BrowserSession, _ url: URL, _ screen: (width: Int, height: Int)) throws {
        try browser.screenshot(url.path)
        let size = InspectorLayout.pngSize(try Data(contentsOf: url))
        XCTAssertEqual(size?.width, screen.width, url.path)
        XCTAssertEqual(size?.height, screen.height, url.path)
    }
}
