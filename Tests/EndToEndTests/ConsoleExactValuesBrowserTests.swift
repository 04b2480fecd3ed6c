import Foundation
import TestSupport
import XCTest

/// The console of `api serve --inspect` in headless Chromium (issue 50): values are shown and
/// sent back as their exact JSON text (a browser's JSON.parse would show
/// 12345678901234567890123456789 as 1.2345678901234568e+28 and 1e999 as null, and Set would
/// send those), and an override the bundle lost is marked stale with its reason.
final class ConsoleExactValuesBrowserTests: XCTestCase {
    var directory: URL!
    var server: InspectedProcess?
    var browser: BrowserSession?

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-console-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        browser?.close()
        server?.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    static let bundle = #"""
    {"bundle_version": 3, "experiments": {"other": {"status": "running", "salt": "o",
       "variants": [{"id": "x", "weight": 0.5}, {"id": "y", "weight": 0.5}]}},
     "remote_config": {"big": 12345678901234567890123456789, "huge": 1e999, "on": false}}
    """#

    func testValuesKeepTheirExactJSONTextAndAStaleOverrideIsMarked() throws {
        let bundlePath = directory.appendingPathComponent("bundle.json").path
        try Data(Self.bundle.utf8).write(to: URL(fileURLWithPath: bundlePath))
        let server = try InspectedProcess(["api", "serve", "--bundle", bundlePath, "--state", directory.appendingPathComponent("state.json").path], in: directory)
        self.server = server
        let browser = try BrowserSession()
        self.browser = browser
        try browser.viewport(width: 1280, height: 800)
        try browser.open(server.inspector + "/")
        try browser.wait("#console-config tr[data-key='big']")
        XCTAssertEqual(try browser.text("#console-config tr[data-key='big'] td.value"), "12345678901234567890123456789")
        XCTAssertEqual(try browser.text("#console-config tr[data-key='huge'] td.value"), "1e999")

        // Set with the value as shown: the server gets the exact text back.
        try browser.click("#console-config tr[data-key='big'] button.set")
        try browser.wait("#console-overrides li[data-key='big']")
        try browser.click("#console-config tr[data-key='huge'] button.set")
        try browser.wait("#console-overrides li[data-key='huge']")
        XCTAssertEqual(try browser.texts("#console-overrides li .mono"), ["config big = 12345678901234567890123456789", "config huge = 1e999"])
        let listed = try curl(server.inspector + "/api/overrides", in: directory).text.filter { $0 != " " && $0 != "\n" }
        XCTAssertTrue(listed.contains(#""key":"big","value":12345678901234567890123456789,"#), listed)
        XCTAssertTrue(listed.contains(#""key":"huge","value":1e999,"#), listed)

        // Force y, then the bundle loses y: the override is listed stale, with why.
        try browser.select(".experiment[data-key='other'] .variant-choice", value: "y")
        try browser.click(".experiment[data-key='other'] button.set")
        try browser.wait("#console-overrides li[data-key='other']")
        try Data(Self.bundle.replacingOccurrences(of: #"{"id": "y", "weight": 0.5}"#, with: #"{"id": "z", "weight": 0.5}"#).utf8)
            .write(to: URL(fileURLWithPath: bundlePath))
        try browser.wait("#console-overrides li[data-key='other'] .badge.stale")
        XCTAssertTrue(try browser.text("#console-overrides li[data-key='other'] .stale-reason").contains("no variant 'y'"))
        XCTAssertEqual(try browser.count(".experiment[data-key='other'] .badge.overridden"), 0, "a stale override is not applied")
    }
}
