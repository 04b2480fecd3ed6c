import AppDNACore
import Foundation
import LoopbackHTTPServer
import TestSupport
import XCTest

/// The inspector page (`webhook listen --inspect`, `api serve --inspect`) in a real browser:
/// headless Chromium (BrowserSession) loads it from the built binary, a real handler on
/// 127.0.0.1 receives the forwarded and replayed deliveries, and `webhook trigger` sends them.
final class InspectorBrowserTests: XCTestCase {
    var directory: URL!
    var secretPath = ""
    var handler: LoopbackHTTPServer!
    var listener: InspectedProcess?
    var browser: BrowserSession?

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-inspector-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        secretPath = directory.appendingPathComponent("secret.txt").path
        try Data("whsec_inspector_\(UUID().uuidString)\n".utf8).write(to: URL(fileURLWithPath: secretPath))
        handler = try LoopbackHTTPServer { _, _ in .init(status: 200, headers: [("Content-Type", "application/json")], json: #"{"handled":true}"#) }
    }

    override func tearDownWithError() throws {
        browser?.close()
        listener?.stop()
        handler?.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// `webhook listen --inspect 0` forwarding to the handler, and a browser on its page.
    func startListenerAndBrowser(_ extra: [String] = []) throws -> (InspectedProcess, BrowserSession) {
        let browser = try BrowserSession()
        self.browser = browser
        let listener = try InspectedProcess(["webhook", "listen", "--secret-file", secretPath, "--forward-to", handler.baseURL + "/hooks"] + extra,
                                            in: directory)
        self.listener = listener
        try browser.open(listener.inspector + "/")
        try browser.wait("#live", text: "live")
        return (listener, browser)
    }

    func send(_ body: String, type: String = "subscription.renewed", to listener: InspectedProcess) throws {
        try sendDelivery(Data(body.utf8), to: listener.listener + "/webhooks", secretPath: secretPath, type: type, in: directory)
    }

    /// Signed, then a newline added (what an editor does): invalid, with a diagnosis.
    func sendWithNewlineAdded(_ body: String, to listener: InspectedProcess) throws {
        let path = directory.appendingPathComponent("signed.json").path
        try Data(body.utf8).write(to: URL(fileURLWithPath: path))
        let signature = try Binary.run(["webhook", "sign", path, "--secret-file", secretPath]).text.trimmingCharacters(in: .whitespacesAndNewlines)
        try Data((body + "\n").utf8).write(to: URL(fileURLWithPath: path))
        let answer = try curl(listener.listener + "/webhooks", ["-X", "POST", "--data-binary", "@" + path, "-H", "Content-Type: application/json",
                                                               "-H", "X-AppDNA-Signature: \(signature)"], in: directory)
        XCTAssertEqual(answer.status, 401)
    }

    static func body(id: String, type: String = "subscription.renewed", data: String = #"{"user_id":"user_42"}"#) -> String {
        #"{"id":"\#(id)","type":"\#(type)","created_at":"2026-02-19T10:00:00Z","data":\#(data)}"#
    }

    // MARK: - The list

    func testTheListShowsDeliveriesNewestFirstAndUpdatesWhileOpen() throws {
        let (listener, browser) = try startListenerAndBrowser()
        try browser.wait("#empty", text: "Nothing received yet")
        XCTAssertEqual(try browser.count("#list-body tr"), 0)
        // Set in this document: still there after the rows arrive, so no reload brought them.
        _ = try browser.script("window.sameDocument = 'yes'")

        try send(Self.body(id: "evt_first", type: "payment.completed"), type: "payment.completed", to: listener)
        try browser.wait("#list-body tr", count: 1)
        try sendWithNewlineAdded(Self.body(id: "evt_second"), to: listener)
        try browser.wait("#list-body tr", count: 2)

        XCTAssertEqual(try browser.script("return window.sameDocument") as? String, "yes")
        XCTAssertEqual(try browser.texts("#list-head th"), ["Time", "Event", "Event id", "Signature", "Sender got", "Handler"])
        // Newest first: the invalid one, then the valid one.
        XCTAssertEqual(try browser.texts("#list-body tr td:nth-child(3)"), ["evt_second", "evt_first"])
        XCTAssertEqual(try browser.texts("#list-body tr td:nth-child(2)"), ["subscription.renewed", "payment.completed"])
        XCTAssertEqual(try browser.texts("#list-body tr td:nth-child(4)"), ["invalid trailing-newline-added", "valid"])
        XCTAssertEqual(try browser.texts("#list-body tr td:nth-child(5)"), ["401", "200"])
        let handlerColumn = try browser.texts("#list-body tr td:nth-child(6)")
        XCTAssertEqual(handlerColumn.first, "not forwarded")
        XCTAssertTrue(handlerColumn.last?.hasPrefix("200 in ") == true, "\(handlerColumn)")
        // Each row's time is the time of arrival, in the page's one format (UTC, milliseconds).
        for time in try browser.texts("#list-body tr td:nth-child(1)") {
            XCTAssertNotNil(time.range(of: InspectorLayout.timeFormat, options: .regularExpression), time)
        }
        XCTAssertEqual(try browser.text("#kept"), "2 shown of 2 received; the inspector keeps the last 500.")
        XCTAssertEqual(handler.requests.count, 1, "only the valid delivery reaches the handler")
    }

    // MARK: - One delivery

    func testTheDetailViewShowsTheVerdictHeadersBodyAnswerAndAResendCommand() throws {
        let (listener, browser) = try startListenerAndBrowser()
        let json = Self.body(id: "evt_detail", data: #"{"user_id":"user_42","amount":1299,"tags":["a","b"]}"#)
        try send(json, to: listener)
        try sendWithNewlineAdded(Self.body(id: "evt_edited"), to: listener)
        try browser.wait("#list-body tr", count: 2)

        // The valid one: JSON pretty-printed, the exact bytes on request, the handler's answer.
        try browser.click("#list-body tr:nth-child(2)")
        try browser.wait("#detail-title", text: "evt_detail")
        XCTAssertEqual(try browser.text("#detail-title"), "subscription.renewed  evt_detail")
        XCTAssertTrue(try browser.text("#detail-verdict").hasPrefix("valid (secret 1 of 1, from --secret-file "))
        let headers = try headerRows(browser)
        let bodyPath = directory.appendingPathComponent("detail.json").path
        try Data(json.utf8).write(to: URL(fileURLWithPath: bodyPath))
        let signature = try Binary.run(["webhook", "sign", bodyPath, "--secret-file", secretPath]).text.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(headers["X-AppDNA-Signature"], signature)
        XCTAssertEqual(headers["X-AppDNA-Event"], "subscription.renewed")
        XCTAssertEqual(headers["Content-Length"], String(json.utf8.count))
        XCTAssertEqual(try browser.text("#body-note"), "JSON, \(json.utf8.count) bytes, pretty-printed")
        let pretty = try browser.text("#body")
        XCTAssertTrue(pretty.contains("\n  \"data\": {\n    \"user_id\": \"user_42\",\n    \"amount\": 1299,"), pretty)
        XCTAssertEqual(try JSONSerialization.jsonObject(with: Data(pretty.utf8)) as? NSDictionary,
                       try JSONSerialization.jsonObject(with: Data(json.utf8)) as? NSDictionary)
        try browser.click("#body-raw")
        try browser.wait("#body-note", text: "as received")
        XCTAssertEqual(try browser.text("#body"), json)
        XCTAssertEqual(try browser.text("#answer-note"), "200, application/json, JSON, 16 bytes")
        XCTAssertEqual(try browser.text("#answer"), "{\n  \"handled\": true\n}")
        let facts = try browser.texts("#detail-facts dd")
        XCTAssertEqual(facts[2], "POST /webhooks")
        XCTAssertEqual(facts[3], "200")
        XCTAssertTrue(facts[4].hasPrefix("200 in "), facts[4])
        let resend = try browser.text("#resend")
        XCTAssertTrue(resend.hasPrefix("curl -sS -o delivery-1.ndjson \(listener.inspector)/api/deliveries/1/record && appdna webhook trigger --replay delivery-1.ndjson --to \(listener.listener)/webhooks"), resend)

        // The invalid one: the verdict and each diagnosis, and the 401 the sender got.
        try browser.click("#list-body tr:nth-child(1)")
        try browser.wait("#detail-title", text: "evt_edited")
        XCTAssertTrue(try browser.text("#detail-verdict").hasPrefix("invalid: the signature does not match"))
        XCTAssertEqual(try browser.attribute("#detail-verdict", "class"), "verdict invalid")
        let diagnoses = try browser.texts("#detail-diagnoses li")
        XCTAssertEqual(diagnoses.count, 1)
        XCTAssertTrue(diagnoses[0].hasPrefix("trailing-newline-added: "), "\(diagnoses)")
        XCTAssertEqual(try browser.texts("#detail-facts dd")[4], "not forwarded")
        XCTAssertTrue(try browser.text("#answer-note").hasPrefix("401, text/plain; charset=utf-8, text, "))
    }

    func testABodyThatIsNotJSONShowsAsTextWithItsByteCount() throws {
        let (listener, browser) = try startListenerAndBrowser()
        try send("plain text, not JSON\tline one\nline two", to: listener)
        try browser.wait("#list-body tr", count: 1)
        try browser.click("#list-body tr")
        try browser.wait("#body-note", text: "bytes")
        XCTAssertEqual(try browser.text("#body-note"), "text, 38 bytes")
        // Line feeds and tabs kept in the body; the button for JSON hidden.
        XCTAssertEqual(try browser.text("#body"), "plain text, not JSON\tline one\nline two")
        XCTAssertEqual(try browser.script("return document.getElementById('body-raw').hidden") as? Bool, true)
    }

    func headerRows(_ browser: BrowserSession) throws -> [String: String] {
        let names = try browser.texts("#headers-body tr th")
        let values = try browser.texts("#headers-body tr td")
        XCTAssertEqual(names.count, values.count)
        return Dictionary(zip(names, values), uniquingKeysWith: { first, _ in first })
    }

    // MARK: - Payloads are data

    func testMarkupInADeliveryShowsAsTextAndRunsNothing() throws {
        let (listener, browser) = try startListenerAndBrowser()
        let image = #"<img src=x onerror=\"document.body.dataset.pwned='id'\">"#
        let script = #"<script>document.body.dataset.pwned='type'</script>"#
        let svg = #"<svg onload=\"document.body.dataset.pwned='svg'\"></svg><iframe src=\"javascript:parent.document.body.dataset.pwned='frame'\"></iframe>"#
        // A bidi override in the id: shown as \u202E, so it cannot reorder what is read.
        let body = Self.body(id: "evt_\(image)\u{202E}gpj.exe", type: script, data: #"{"note":"\#(svg)"}"#)
        let headerMarkup = #"<img src=x onerror="document.body.dataset.pwned='header'">"#
        try send(body, type: headerMarkup, to: listener)
        try browser.wait("#list-body tr", count: 1)
        try browser.click("#list-body tr")
        try browser.wait("#body-note", text: "JSON")

        let shownID = #"evt_<img src=x onerror="document.body.dataset.pwned='id'">\u202Egpj.exe"#
        XCTAssertEqual(try browser.text("#list-body tr td:nth-child(3)"), shownID)
        XCTAssertEqual(try browser.text("#list-body tr td:nth-child(2)"), headerMarkup)
        XCTAssertEqual(try browser.text("#detail-title"), headerMarkup + "  " + shownID)
        XCTAssertEqual(try headerRows(browser)["X-AppDNA-Event"], headerMarkup)
        let shownBody = try browser.text("#body")
        XCTAssertTrue(shownBody.contains(#""type": "<script>document.body.dataset.pwned='type'</script>""#), shownBody)
        XCTAssertTrue(shownBody.contains("<svg onload="), shownBody)
        try browser.click("#body-raw")
        try browser.wait("#body-note", text: "as received")
        XCTAssertTrue(try browser.text("#body").contains("<iframe src="))

        // No element came from the payload, nothing ran, and nothing even tried (a CSP report
        // would say so).
        XCTAssertEqual(try browser.script("return document.querySelectorAll('img, svg, iframe, object, embed').length") as? Int, 0)
        XCTAssertEqual(try browser.script("return [...document.scripts].map(s => s.getAttribute('src')).join(' ')") as? String, "/inspector.js")
        XCTAssertNil(try browser.script("return document.body.dataset.pwned ?? null") as? String)
        XCTAssertFalse(try browser.script("return document.body.innerText.includes('\u{202E}')") as? Bool ?? true)
        let console = try browser.console()
        XCTAssertFalse(console.contains { $0.contains("Content Security Policy") || $0.contains("pwned") }, "\(console)")
    }

    // MARK: - Replay

    func testReplaySendsTheExactBytesAndSignatureToTheHandlerAgain() throws {
        let (listener, browser) = try startListenerAndBrowser()
        // Bytes a re-serialiser would change: spacing, escapes, a non-ASCII name, CRLF.
        let body = "{\"id\": \"evt_replay\",  \"type\":\"subscription.renewed\",\"created_at\":\"2026-02-19T10:00:00Z\",\r\n\"data\":{\"name\":\"Zoë \\u00e9\",\"n\":1.50}}"
        try send(body, to: listener)
        try browser.wait("#list-body tr", count: 1)
        XCTAssertEqual(handler.requests.count, 1)
        try browser.click("#list-body tr")
        try browser.wait("#detail-title", text: "evt_replay")
        XCTAssertEqual(try browser.attribute("#replay", "disabled"), nil)
        try browser.click("#replay")
        try browser.wait("#replay-results li", count: 1)
        XCTAssertTrue(try browser.text("#replay-results li").contains(": replayed, the handler answered 200 in "))

        let requests = handler.requests
        XCTAssertEqual(requests.count, 2)
        XCTAssertEqual(requests[1].body, Array(body.utf8), "the replay carries the exact bytes received")
        XCTAssertEqual(requests[1].body, requests[0].body)
        XCTAssertNotNil(requests[0].header("X-AppDNA-Signature"))
        XCTAssertEqual(requests[1].header("X-AppDNA-Signature"), requests[0].header("X-AppDNA-Signature"))
        XCTAssertEqual(requests[1].header("X-AppDNA-Event"), "subscription.renewed")
        XCTAssertEqual(requests[1].path, "/hooks")
        XCTAssertTrue(listener.stderr.contains("replayed delivery 1 from the inspector: forwarded: 200 in "), listener.stderr)
        // The list still holds one delivery: a replay is not a new one.
        XCTAssertEqual(try browser.count("#list-body tr"), 1)
    }

    /// Edit and replay: the body and a header changed in the form, re-signed with the
    /// listener's secret; the handler gets the edited bytes with a valid signature for them,
    /// and the entry still shows what was received. Unsigned, the listener's refusal shows.
    func testEditAndReplaySendsTheEditedBodySignedAgainAndKeepsTheEntryAsReceived() throws {
        let (listener, browser) = try startListenerAndBrowser()
        let original = Self.body(id: "evt_to_edit")
        try send(original, to: listener)
        try browser.wait("#list-body tr", count: 1)
        try browser.click("#list-body tr")
        try browser.wait("#detail-title", text: "evt_to_edit")
        try browser.click("#edit-box summary")
        XCTAssertEqual(try browser.script("return document.getElementById('edit-body').value") as? String, original, "the form starts as received")
        let edited = Self.body(id: "evt_to_edit", type: "subscription.cancelled", data: #"{"user_id":"user_43"}"#)
        try browser.type("#edit-body", edited)
        try browser.click("#edit-add-header")
        try browser.type("#edit-headers .header-row:last-child .header-name", "X-Edited")
        try browser.type("#edit-headers .header-row:last-child .header-value", "in the browser")
        try browser.click("#edit-replay")
        try browser.wait("#replay-results li", count: 1)
        let result = try browser.text("#replay-results li")
        XCTAssertTrue(result.contains(": replayed with modifications (resign, \(edited.utf8.count) bytes), the handler answered 200 in "), result)

        let requests = handler.requests
        XCTAssertEqual(requests.count, 2)
        XCTAssertEqual(requests[1].body, Array(edited.utf8))
        XCTAssertEqual(requests[1].header("X-Edited"), "in the browser")
        let secretText = try String(contentsOfFile: secretPath, encoding: .utf8)
        let secret = try WebhookSecret(raw: Array(secretText.utf8), source: "test")
        let signature = try WebhookSignature.parse(try XCTUnwrap(requests[1].header("X-AppDNA-Signature")))
        XCTAssertTrue(try requests[1].body.withUnsafeBytes { try WebhookVerifier.verify(body: $0, signature: signature, secrets: [secret]) }.isValid)
        // The entry as received.
        try browser.click("#body-raw")
        try browser.wait("#body-note", text: "as received")
        XCTAssertEqual(try browser.text("#body"), original)
        XCTAssertNil(try headerRows(browser)["X-Edited"])

        // Unsigned: the listener forwards only valid deliveries, and the page says so.
        try browser.click("#edit-signature input[value='unsigned']")
        try browser.click("#edit-replay")
        try browser.wait("#edit-note", text: "the replay failed: ")
        let note = try browser.text("#edit-note")
        XCTAssertTrue(note.contains("--forward-invalid"), note)
        XCTAssertEqual(handler.requests.count, 2)
        assertFits(try InspectorLayout.measure(browser), "edit and replay at the default window")
        try browser.viewport(width: 1280, height: 800)
        assertFits(try InspectorLayout.measure(browser), "edit and replay at 1280x800")
    }

    func testReplayIsRefusedWithoutTheTokenAndFromAnotherOrigin() throws {
        let (listener, browser) = try startListenerAndBrowser()
        try send(Self.body(id: "evt_guarded"), to: listener)
        try browser.wait("#list-body tr", count: 1)
        let replay = "/api/deliveries/1/replay"

        // From the page's own origin, a request without the token or with another one is 403.
        let noToken = "fetch('\(replay)', {method: 'POST'}).then(r => arguments[0](r.status))"
        XCTAssertEqual(try browser.asyncScript(noToken) as? Int, 403)
        let wrongToken = "fetch('\(replay)', {method: 'POST', headers: {'X-AppDNA-Inspector-Token': 'f'.repeat(32)}}).then(r => arguments[0](r.status))"
        XCTAssertEqual(try browser.asyncScript(wrongToken) as? Int, 403)
        XCTAssertEqual(handler.requests.count, 1)

        // Another origin (a page any site could serve; here another port of 127.0.0.1) tries
        // both ways a page can: a plain cross-origin POST, and one with a token header.
        let inspector = listener.inspector
        let attacker = try LoopbackHTTPServer { _, _ in
            let page = """
            <!DOCTYPE html><title>elsewhere</title><body><script>
            const target = '\(inspector)\(replay)';
            Promise.allSettled([
              fetch(target, {method: 'POST', mode: 'no-cors'}),
              fetch(target, {method: 'POST', headers: {'X-AppDNA-Inspector-Token': 'guess'}}),
            ]).then(results => { document.body.dataset.done = results.map(r => r.status).join(','); });
            </script></body>
            """
            return .init(status: 200, headers: [("Content-Type", "text/html")], body: Array(page.utf8))
        }
        defer { attacker.stop() }
        try browser.open(attacker.baseURL + "/")
        try browser.wait("body[data-done]")
        // The no-cors POST was sent and refused (403 for its foreign Origin); the one with a
        // header was stopped at its preflight. Either way the handler saw nothing more.
        XCTAssertEqual(handler.requests.count, 1)
        let detail = try curl(listener.inspector + "/api/deliveries/1", in: directory).json
        XCTAssertEqual(detail["replays"] as? Int, 0)

        // The page itself replays with its token.
        try browser.open(listener.inspector + "/#1")
        try browser.wait("#detail-title", text: "evt_guarded")
        try browser.click("#replay")
        try browser.wait("#replay-results li", count: 1)
        XCTAssertEqual(handler.requests.count, 2)
    }

    /// A delivery the listener would refuse to replay (here: no --forward-to, so no handler):
    /// the button is disabled and the listener's reason is next to it.
    func testReplayIsDisabledWithTheListenersReasonWhenItWouldBeRefused() throws {
        let browser = try BrowserSession()
        self.browser = browser
        let listener = try InspectedProcess(["webhook", "listen", "--secret-file", secretPath], in: directory)
        self.listener = listener
        try browser.open(listener.inspector + "/")
        try browser.wait("#live", text: "live")
        try send(Self.body(id: "evt_nowhere"), to: listener)
        try browser.wait("#list-body tr", count: 1)
        try browser.click("#list-body tr")
        try browser.wait("#detail-title", text: "evt_nowhere")
        XCTAssertEqual(try curl(listener.inspector + "/api/deliveries/1", in: directory).json["replayable"] as? Bool, false)
        XCTAssertEqual(try browser.attribute("#replay", "disabled"), "true")
        XCTAssertEqual(try browser.text("#replay-note"), "the listener has no --forward-to: there is no handler to replay to")
        XCTAssertEqual(try browser.attribute("#replay-box", "class"), "replay refused")
    }

    // MARK: - On a laptop's screen and a wide one

    /// The sizes the page is checked at: a laptop (1280 x 800, the smallest it is laid out for
    /// side by side) and a 1920 x 1080 monitor.
    static let screens = [(width: 1280, height: 800), (width: 1920, height: 1080)]

    /// The issue it answers: at 1280 px the list scrolled sideways (the Handler column cut off),
    /// the right half was blank until something was selected, an invalid delivery's reason was
    /// a ~60 px column ten lines tall, and the page wrote times three ways.
    func testThePageFitsALaptopAndAWideScreenWithAPlaceholderReadableDiagnosesAndOneTimeFormat() throws {
        let (listener, browser) = try startListenerAndBrowser()
        // Long names and ids, a diagnosis (an editor's newline) and a long reason (no diagnosis).
        try send(Self.body(id: "evt_01J9Z7Q4W8XKDM3N5P6R7S8T9V", type: "paywall.purchase_completed"), type: "paywall.purchase_completed", to: listener)
        try send(Self.body(id: "evt_demo_subscription_renewed"), to: listener)
        try sendWithNewlineAdded(Self.body(id: "evt_edited_after_signing"), to: listener)
        let unknownScheme = try curl(listener.listener + "/webhooks", ["-X", "POST", "--data-binary", Self.body(id: "evt_unknown_scheme"),
                                                                      "-H", "Content-Type: application/json",
                                                                      "-H", "X-AppDNA-Signature: t=1767225600,v1=" + String(repeating: "0", count: 64)],
                                     in: directory)
        XCTAssertEqual(unknownScheme.status, 401)
        try browser.wait("#list-body tr", count: 4)
        // A replay, so that its result's time is on the page too.
        try browser.click("#list-body tr:nth-child(3)")
        try browser.wait("#detail-title", text: "evt_demo_subscription_renewed")
        try browser.click("#replay")
        try browser.wait("#replay-results li", count: 1)

        let folder = try InspectorLayout.screenshotFolder()
        for screen in Self.screens {
            let size = "\(screen.width)x\(screen.height)"
            try browser.viewport(width: screen.width, height: screen.height)
            try browser.open(listener.inspector + "/")
            try browser.wait("#list-body tr", count: 4)

            // Nothing selected: the list, and a placeholder where the entry will be.
            var layout = try InspectorLayout.measure(browser)
            assertFits(layout, size)
            XCTAssertTrue(layout.placeholderShown, size)
            XCTAssertFalse(layout.detailShown, size)
            XCTAssertTrue(layout.placeholder.hasPrefix("No delivery selected: choose one in the list"), layout.placeholder)
            XCTAssertEqual(layout.columns.map(\.title), ["Time", "Event", "Event id", "Signature", "Sender got", "Handler"])
            let verdicts = layout.rows.compactMap(\.verdict)
            XCTAssertEqual(verdicts.count, 4)
            XCTAssertTrue(verdicts[0].hasPrefix("invalid X-AppDNA-Signature: "), verdicts[0])
            XCTAssertEqual(verdicts[1], "invalid trailing-newline-added")
            for row in layout.rows {
                XCTAssertTrue(row.timeWhole, "\(size): a time cut")
                // Two lines at most (and the row's padding), however long its reason.
                XCTAssertLessThanOrEqual(row.height, 3 * row.lineHeight, "\(size): a row of \(row.height) px")
                XCTAssertGreaterThanOrEqual(row.verdictWidth ?? 0, 150, "\(size): the diagnosis in a narrow column")
            }
            XCTAssertEqual(layout.rows[1].verdictWhole, true, "\(size): the diagnosis is cut")
            for time in try InspectorLayout.times(browser) {
                XCTAssertNotNil(time.range(of: InspectorLayout.timeFormat, options: .regularExpression), "\(size): \(time)")
            }
            try saveScreenshot(browser, folder.appendingPathComponent("inspector-\(size).png"), screen)

            // The invalid one with its diagnosis selected, then the replayed one.
            try browser.click("#list-body tr:nth-child(2)")
            try browser.wait("#detail-title", text: "evt_edited_after_signing")
            layout = try InspectorLayout.measure(browser)
            assertFits(layout, size)
            XCTAssertFalse(layout.placeholderShown, size)
            XCTAssertTrue(layout.detailShown, size)
            try saveScreenshot(browser, folder.appendingPathComponent("inspector-\(size)-invalid.png"), screen)
            try browser.click("#list-body tr:nth-child(3)")
            try browser.wait("#replay-results li", count: 1)
            assertFits(try InspectorLayout.measure(browser), size)
            let times = try InspectorLayout.times(browser)
            // The four rows, the last update, the time received and the replay's.
            XCTAssertGreaterThanOrEqual(times.count, 7, "\(times)")
            for time in times {
                XCTAssertNotNil(time.range(of: InspectorLayout.timeFormat, options: .regularExpression), "\(size): \(time)")
            }
        }
    }

    /// No sideways scrolling: not the page, not either pane; every column of the list inside it
    /// with its title whole; the page no taller than the window (each pane scrolls by itself).
    func assertFits(_ layout: InspectorLayout, _ size: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertLessThanOrEqual(layout.pageWidth, layout.windowWidth, "\(size): the page scrolls sideways", file: file, line: line)
        XCTAssertLessThanOrEqual(layout.pageHeight, layout.windowHeight, "\(size): the page is taller than the window", file: file, line: line)
        XCTAssertLessThanOrEqual(layout.listWidth, layout.listVisibleWidth, "\(size): the list scrolls sideways", file: file, line: line)
        XCTAssertLessThanOrEqual(layout.detailWidth, layout.detailVisibleWidth, "\(size): the detail scrolls sideways", file: file, line: line)
        for column in layout.columns {
            XCTAssertLessThanOrEqual(column.right, layout.listVisibleWidth + 0.5, "\(size): \(column.title) is cut off", file: file, line: line)
            XCTAssertGreaterThanOrEqual(column.right - column.left, 48, "\(size): \(column.title) is a sliver", file: file, line: line)
            XCTAssertFalse(column.titleCut, "\(size): the title \(column.title) is cut", file: file, line: line)
        }
    }

    /// Saves the window as a PNG of the screen's size, for a person to look at.
    func saveScreenshot(_ browser: BrowserSession, _ url: URL, _ screen: (width: Int, height: Int),
                        file: StaticString = #filePath, line: UInt = #line) throws {
        try browser.screenshot(url.path)
        let size = InspectorLayout.pngSize(try Data(contentsOf: url))
        XCTAssertEqual(size?.width, screen.width, url.path, file: file, line: line)
        XCTAssertEqual(size?.height, screen.height, url.path, file: file, line: line)
    }

    // MARK: - The docs' screenshot

    /// scripts/inspector-screenshot, which took docs/images/inspector.png, still takes a
    /// picture of the page with headless Chromium's --screenshot: a PNG of a laptop's screen
    /// (1280 x 800), as the committed one is.
    func testTheScreenshotScriptOfTheDocsTakesAPicture() throws {
        let chromium = try BrowserSession.browser(because: "the docs' screenshot is taken with headless Chromium")
        _ = try requireTool("curl", because: "the screenshot script sends its invalid delivery with curl")
        let output = directory.appendingPathComponent("inspector.png").path
        let result = try ProcessRunner.run("/bin/bash", [repositoryRoot.appendingPathComponent("scripts/inspector-screenshot").path, output],
                                           environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
                                                         "HOME": directory.path, "APPDNA": Binary.url.path, "CHROMIUM": chromium])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, output + "\n")
        for png in [try Data(contentsOf: URL(fileURLWithPath: output)),
                    try Data(contentsOf: repositoryRoot.appendingPathComponent("docs/images/inspector.png"))] {
            XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "a PNG")
            let size = png.subdata(in: 16..<24).map { UInt32($0) }
            XCTAssertEqual(size[0] << 24 | size[1] << 16 | size[2] << 8 | size[3], 1280, "width")
            XCTAssertEqual(size[4] << 24 | size[5] << 16 | size[6] << 8 | size[7], 800, "height")
            XCTAssertGreaterThan(png.count, 40_000, "a page full of text, not an empty window")
        }
    }

    // MARK: - api serve: the console

    /// The console of `api serve --inspect` (issue 46.3) against the real override API of the
    /// built binary: the served bundle's experiments with their shares as bars; a variant forced
    /// in the page is listed as an override, marked on its experiment and in GET /api/overrides,
    /// and raises the bundle's version; Clear takes it away; an API error's message is shown;
    /// the requests list stays below, all of it within a laptop's screen.
    /// (Needs the override API of issue 46 items 1-2: GET /api/bundle, /api/overrides, PUT and DELETE.)
    func testTheConsoleSetsListsAndClearsAnOverride() throws {
        let browser = try BrowserSession()
        self.browser = browser
        let bundle = repositoryRoot.appendingPathComponent("examples/experiments/appdna-config.json").path
        let server = try InspectedProcess(["api", "serve", "--bundle", bundle], in: directory)
        listener = server
        let served = try curl(server.inspector + "/api/bundle", in: directory)
        XCTAssertEqual(served.status, 200, "GET /api/bundle on the inspector port (the override API of issue 46): \(served.text)")
        let version = try XCTUnwrap(served.json["bundle_version"] as? Int)

        try browser.viewport(width: 1280, height: 800)
        try browser.open(server.inspector + "/")
        try browser.wait("#console:not([hidden]) .experiment[data-key='onboarding-v2']")
        XCTAssertEqual(try browser.texts("#list-head th"), ["Time", "Request", "Endpoint", "Status", "Fault", "Events", "Audit"], "the requests list stays")
        XCTAssertEqual(try browser.text("#console-title"), "Served bundle, version \(version)")
        // Each variant with its share, and a bar as wide as the share.
        XCTAssertEqual(try browser.texts(".experiment[data-key='onboarding-v2'] .variant-id"), ["control", "streamlined"])
        XCTAssertEqual(try browser.texts(".experiment[data-key='onboarding-v2'] .share"), ["50.0%", "50.0%"])
        let widths = try XCTUnwrap(browser.script("""
            return [...document.querySelectorAll(".experiment[data-key='paywall-price'] .variant")].map((row) =>
              row.querySelector('.fill').getBoundingClientRect().width / row.querySelector('.bar').getBoundingClientRect().width);
            """) as? [Double])
        XCTAssertEqual(widths.count, 2)
        XCTAssertEqual(widths[0], 0.43, accuracy: 0.02)
        XCTAssertEqual(widths[1], 0.57, accuracy: 0.02)
        XCTAssertEqual(try browser.count("#console-overrides li"), 0)
        XCTAssertEqual(try browser.count(".experiment[data-key='onboarding-v2'] .badge.overridden"), 0)

        // Force a variant: listed, marked, in the API, a new version.
        try browser.select(".experiment[data-key='onboarding-v2'] .variant-choice", value: "streamlined")
        try browser.click(".experiment[data-key='onboarding-v2'] button.set")
        try browser.wait("#console-overrides li[data-kind='experiment'][data-key='onboarding-v2']")
        XCTAssertEqual(try browser.text("#console-overrides li .mono"), #"experiment onboarding-v2 = "streamlined""#)
        try browser.wait(".experiment[data-key='onboarding-v2'] .badge.overridden")
        let listed = try curl(server.inspector + "/api/overrides", in: directory).json
        let overrides = try XCTUnwrap(listed["overrides"] as? [[String: Any]])
        XCTAssertEqual(overrides.count, 1)
        XCTAssertEqual(overrides.first?["kind"] as? String, "experiment")
        XCTAssertEqual(overrides.first?["key"] as? String, "onboarding-v2")
        XCTAssertEqual(overrides.first?["value"] as? String, "streamlined")
        XCTAssertGreaterThan(try XCTUnwrap(listed["bundle_version"] as? Int), version)
        XCTAssertNotEqual(try browser.text("#console-title"), "Served bundle, version \(version)")
        assertFits(try InspectorLayout.measure(browser), "the console at 1280x800")
        try saveScreenshot(browser, try InspectorLayout.screenshotFolder().appendingPathComponent("inspector-console-1280x800.png"), (1280, 800))

        // An answer the API refuses (a variant the experiment lacks, as a stale page would send):
        // its message is shown, as text.
        _ = try browser.script("""
            const option = document.createElement('option');
            option.value = 'no-such-variant<b>';
            document.querySelector(".experiment[data-key='onboarding-v2'] .variant-choice").appendChild(option);
            """)
        try browser.select(".experiment[data-key='onboarding-v2'] .variant-choice", value: "no-such-variant<b>")
        try browser.click(".experiment[data-key='onboarding-v2'] button.set")
        try browser.wait("#console-error:not([hidden])", text: "setting the override of experiment onboarding-v2 failed: ")
        XCTAssertGreaterThan(try browser.text("#console-error").count, "setting the override of experiment onboarding-v2 failed: ".count)
        XCTAssertEqual(try browser.count("#console-error b"), 0)
        XCTAssertEqual(try browser.count("#console-overrides li"), 1, "the override set before is still there")

        // Clear it: gone from the list, the mark and the API.
        try browser.click("#console-overrides li button.clear")
        try browser.wait("#console-no-overrides:not([hidden])")
        XCTAssertEqual(try browser.count(".experiment[data-key='onboarding-v2'] .badge.overridden"), 0)
        XCTAssertEqual((try curl(server.inspector + "/api/overrides", in: directory).json["overrides"] as? [Any])?.count, 0)
        XCTAssertEqual(try browser.script("return document.getElementById('console-error').hidden") as? Bool, true, "a success clears the error")
        XCTAssertFalse(try browser.console().contains { $0.contains("Content Security Policy") })
    }

    /// Issue 51.2: the console's User id finds an id a device in the typed context assigns the
    /// chosen variant (checked with `bucket`), shows the identify() lines as text, and a
    /// refusal's reasons as the error.
    func testTheConsoleFindsAUserIDThatLandsInAVariant() throws {
        let browser = try BrowserSession()
        self.browser = browser
        let bundle = repositoryRoot.appendingPathComponent("examples/experiments/appdna-config.json").path
        let server = try InspectedProcess(["api", "serve", "--bundle", bundle], in: directory)
        listener = server
        try browser.viewport(width: 1280, height: 800)
        try browser.open(server.inspector + "/")
        try browser.wait("#console:not([hidden]) .experiment[data-key='paywall-price']")
        try browser.select("#identity-platform", value: "android")
        try browser.type("#identity-country", "CA")
        try browser.type("#identity-app-version", "2.5")
        let choices = try browser.texts(".experiment[data-key='paywall-price'] .variant-id")
        let variant = try XCTUnwrap(choices.last)
        try browser.select(".experiment[data-key='paywall-price'] .variant-choice", value: variant)
        try browser.click(".experiment[data-key='paywall-price'] button.identity")
        try browser.wait("#console-identity:not([hidden])", text: "AppDNA.identify(")
        let shown = try browser.text("#console-identity")
        let user = try XCTUnwrap(shown.firstMatch(of: /for user id (\S+);/).map { String($0.1) }, shown)
        let said = try Binary.run(["bucket", user, "paywall-price", "--bundle", bundle, "--platform", "android", "--country", "CA", "--app-version", "2.5", "--json"])
        XCTAssertEqual((try JSONSerialization.jsonObject(with: said.stdout) as? [String: Any])?["variant"] as? String, variant, said.stderr)
        XCTAssertTrue(shown.contains("kotlin: AppDNA.identify(\"\(user)\")"), shown)
        assertFits(try InspectorLayout.measure(browser), "the console with a user id at 1280x800")

        // A country the targeting excludes: no id, and why.
        try browser.type("#identity-country", "FR")
        try browser.click(".experiment[data-key='paywall-price'] button.identity")
        try browser.wait("#console-error:not([hidden])", text: "no user id for paywall-price")
        let refusal = try browser.text("#console-error")
        XCTAssertTrue(refusal.contains("countries"), refusal)
        XCTAssertEqual(try browser.script("return document.getElementById('console-identity').hidden") as? Bool, true)
    }

    // MARK: - api serve

    func testAPIServeListsRequestsWithFaultsAndEachEventOfABatch() throws {
        let browser = try BrowserSession()
        self.browser = browser
        let bundle = repositoryRoot.appendingPathComponent("examples/experiments/appdna-config.json").path
        let server = try InspectedProcess(["api", "serve", "--bundle", bundle, "--fail", "503:1"], in: directory)
        listener = server
        try browser.open(server.inspector + "/")
        try browser.wait("#live", text: "live")
        XCTAssertEqual(try browser.texts("#list-head th"), ["Time", "Request", "Endpoint", "Status", "Fault", "Events", "Audit"])

        let key = ["-H", "x-api-key: adn_test_browser"]
        XCTAssertEqual(try curl(server.listener + "/api/v1/sdk/config-bundle/version", key, in: directory).status, 503)
        let batch = try InspectorAPIEndToEndTests.deflatedBatch([1, 2], in: directory)
        XCTAssertEqual(try curl(server.listener + "/api/v1/ingest/events", key + ["-H", "Content-Encoding: deflate", "--data-binary", "@" + batch],
                                in: directory).status, 200)
        let again = try InspectorAPIEndToEndTests.deflatedBatch([2, 3], in: directory)
        XCTAssertEqual(try curl(server.listener + "/api/v1/ingest/events", key + ["-H", "Content-Encoding: deflate", "--data-binary", "@" + again],
                                in: directory).status, 200)
        try browser.wait("#list-body tr", count: 3)
        // On a laptop's screen: the list whole, a placeholder until a request is selected.
        let laptop = (width: 1280, height: 800)
        try browser.viewport(width: laptop.width, height: laptop.height)
        let layout = try InspectorLayout.measure(browser)
        assertFits(layout, "api serve at 1280x800")
        XCTAssertTrue(layout.placeholderShown && !layout.detailShown)
        XCTAssertTrue(layout.placeholder.hasPrefix("No request selected: choose one in the list"), layout.placeholder)
        XCTAssertEqual(try browser.texts("#list-body tr td:nth-child(3)"), ["events", "events", "version"])
        XCTAssertEqual(try browser.texts("#list-body tr td:nth-child(4)"), ["200", "200", "503"])
        XCTAssertEqual(try browser.texts("#list-body tr td:nth-child(5)"), ["", "", "injected by --fail"])
        XCTAssertEqual(try browser.texts("#list-body tr td:nth-child(6)"), ["1 accepted, 1 duplicate", "2 accepted, 0 duplicates", ""])

        try browser.click("#list-body tr:first-child")
        try browser.wait("#batch details", count: 2)
        XCTAssertEqual(try browser.text("#batch-title"), "Events (2)")
        XCTAssertEqual(try browser.texts("#batch summary"), ["app_open  \(TestEvents.id(2))  duplicate", "app_open  \(TestEvents.id(3))  accepted"])
        assertFits(try InspectorLayout.measure(browser), "api serve at 1280x800, a batch selected")
        for time in try InspectorLayout.times(browser) {
            XCTAssertNotNil(time.range(of: InspectorLayout.timeFormat, options: .regularExpression), time)
        }
        try saveScreenshot(browser, try InspectorLayout.screenshotFolder().appendingPathComponent("inspector-api-1280x800.png"), laptop)
        try browser.click("#batch details:nth-child(2) summary")
        XCTAssertTrue(try browser.text("#batch details:nth-child(2) pre").contains("\"event_id\": \"\(TestEvents.id(3))\""))
        // Hidden: null in the API, shown as such by the page, or masked as ••• by the server itself.
        let shownKey = try headerRows(browser)["x-api-key"] ?? "(missing)"
        XCTAssertTrue(["(hidden: a credential)", "•••"].contains(shownKey), shownKey)
        XCTAssertFalse(try XCTUnwrap(browser.script("return document.body.textContent") as? String).contains("adn_test_browser"))
        XCTAssertTrue(try browser.text("#body-note").hasPrefix("raw DEFLATE, "))
        XCTAssertEqual(try browser.count("#replay-box:not([hidden])"), 0)
    }
}
