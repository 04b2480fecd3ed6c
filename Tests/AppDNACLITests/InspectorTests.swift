import AppDNACore
@testable import AppDNACLI
@testable import AppDNAServers
@testable import AppDNANet
import XCTest

/// The inspector's parts in-process: the bounded log, what an entry keeps of a payload, and the
/// server's routes and guard answering requests handed to it (the browser and curl tests in
/// EndToEndTests run the same through the built binary).
final class InspectorTests: XCTestCase {
    static func request(_ method: String, _ target: String, headers: [(String, String)] = [("Host", "127.0.0.1:9")],
                        body: [UInt8] = []) throws -> HTTPServer.Request {
        var text = "\(method) \(target) HTTP/1.1\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "Content-Length: \(body.count)\r\n\r\n"
        return HTTPServer.Request(head: try RawHTTPRequest.parseHead(Array(text.utf8)), body: body, peer: "127.0.0.1:50000")
    }

    static func entry(body: [UInt8] = Array(#"{"id":"evt_1"}"#.utf8), headers: [(String, String)] = [("Host", "127.0.0.1:9")]) throws -> InspectorEntry {
        InspectorEntry(time: "2026-11-26T10:00:00.000Z", request: try request("POST", "/webhooks", headers: headers, body: body),
                       answer: HTTPServer.Response(status: 200, headers: [("Content-Type", "text/plain")], body: Array(repeating: 0x41, count: 10_000)),
                       summary: ["event": "x"])
    }

    // MARK: - The log

    func testTheLogKeepsTheLastNAndFindsThemByID() throws {
        let log = InspectorLog(keep: 3)
        XCTAssertEqual(log.entries().map(\.id), [])
        for _ in 1...5 { log.record(try Self.entry()) }
        XCTAssertEqual(log.count, 5)
        XCTAssertEqual(log.entries().map(\.id), [5, 4, 3])
        XCTAssertEqual(log.entries(after: 3).map(\.id), [5, 4])
        XCTAssertEqual(log.entries(after: 5).map(\.id), [])
        XCTAssertEqual(log.entries(after: 1).map(\.id), [5, 4, 3])
        XCTAssertNil(log.entry(2))
        XCTAssertNil(log.entry(0))
        XCTAssertNil(log.entry(6))
        XCTAssertEqual(log.entry(3)?.id, 3)
    }

    func testTenThousandEntriesLeaveOnlyTheLastNEachBoundedInSize() throws {
        let log = InspectorLog(keep: 500)
        let big = [UInt8](repeating: 0x7B, count: 1 << 20)
        for n in 1...10_000 { log.record(try Self.entry(body: n % 100 == 0 ? big : Array("{\"n\":\(n)}".utf8))) }
        let kept = log.entries()
        XCTAssertEqual(kept.count, 500)
        XCTAssertEqual(kept.first?.id, 10_000)
        XCTAssertEqual(kept.last?.id, 9_501)
        // What each entry holds is bounded whatever was sent: a 1 MiB body keeps 64 KiB, a
        // 10,000-byte answer 4 KiB.
        XCTAssertEqual(kept.map(\.body.bytes.count).max(), InspectorLog.bodyBytes)
        XCTAssertEqual(log.entry(10_000)?.body.length, 1 << 20)
        XCTAssertEqual(kept.map(\.answerBody.bytes.count).max(), InspectorLog.answerBytes)
    }

    func testReplaysAreCountedOnEntriesStillKeptAndTheLastTwentyKept() throws {
        let log = InspectorLog(keep: 2)
        var replayable = try Self.entry()
        replayable.replayCount = 0
        for _ in 1...3 { log.record(replayable) }
        log.addReplay(["n": 1], to: 1)   // dropped already: nothing happens
        XCTAssertNil(log.entry(1))
        for n in 1...25 { log.addReplay(["n": .integer(n)], to: 3) }
        let entry = try XCTUnwrap(log.entry(3))
        XCTAssertEqual(entry.replayCount, 25)
        XCTAssertEqual(entry.replays.count, InspectorLog.replaysKept)
        XCTAssertEqual(entry.replays.first, ["n": 6])
        XCTAssertEqual(entry.summaryJSON["replays"], 25)
        // An entry that cannot be replayed has no replays field at all.
        XCTAssertNil(try Self.entry().summaryJSON["replays"])
        XCTAssertNil(try Self.entry().detailJSON()["replay_results"])
    }

    // MARK: - What is kept of a payload

    func testAWholeJSONBodyIsPrettyPrintedWithItsNumbersAsSent() {
        let json = KeptBytes(Array(#"{"price":1.50,"big":12345678901234567890,"a":[]}"#.utf8), limit: 100).json()
        XCTAssertEqual(json["encoding"], "json")
        XCTAssertEqual(json["pretty"], .string("{\n  \"price\": 1.50,\n  \"big\": 12345678901234567890,\n  \"a\": []\n}"))
        XCTAssertEqual(json["length"], 48)
        XCTAssertEqual(json["kept"], 48)
    }

    func testACutBodyIsTextEndingAtAWholeCharacterAndNeverJSON() {
        // "é" is two bytes: a limit of 5 cuts the third one in half.
        let cut = KeptBytes(Array("\"ééé\"".utf8), limit: 5)
        XCTAssertFalse(cut.isWhole)
        XCTAssertEqual(cut.json()["encoding"], "text")
        XCTAssertEqual(cut.json()["text"], "\"éé")
        for bytes in [[0xF0, 0x9F, 0x98], [0x61, 0xE2, 0x82], [0x61, 0xC3], [0x61]] as [[UInt8]] {
            XCTAssertEqual(Array(KeptBytes.wholeCharacters(bytes)), bytes.count == 1 ? bytes : bytes.first == 0x61 ? [0x61] : [], "\(bytes)")
        }
        XCTAssertEqual(Array(KeptBytes.wholeCharacters(Array("aé".utf8))), Array("aé".utf8))
    }

    func testBinaryAndCompressedBodies() {
        let binary = KeptBytes([0xFF, 0x41], limit: 10).json()
        XCTAssertEqual(binary["encoding"], "binary")
        XCTAssertEqual(binary["text"], "\u{FFFD}A")
        let deflate = KeptBytes([0x01, 0x02], limit: 10).json(compressed: true)
        XCTAssertEqual(deflate["encoding"], "deflate")
        XCTAssertEqual(deflate["text"], .null)
        XCTAssertEqual(KeptBytes([], limit: 10).json()["encoding"], "text")
    }

    func testCredentialsAreListedByNameOnly() throws {
        let entry = try Self.entry(headers: [("Host", "h"), ("X-API-Key", "adn_secret"), ("Authorization", "Bearer t"), ("Cookie", "c=1"),
                                             ("X-AppDNA-Signature", "sha256=00")])
        let shown = JSONWriter().writeString(entry.shownHeaders)
        XCTAssertEqual(shown, #"[["Host","h"],["X-API-Key",null],["Authorization",null],["Cookie",null],["X-AppDNA-Signature","sha256=00"],["Content-Length","14"]]"#)
        XCTAssertEqual(entry.headers[1].value, "adn_secret", "kept as received, for a replay")
    }

    /// Every answer of the inspector masks credentials, the `/record` export included (it
    /// leaves them out: a re-sent delivery is checked by its signature, not by them).
    func testCredentialsNeverLeaveTheInspector() throws {
        let secrets = ["adn_secret_key", "Bearer tok3n", "Basic cHJveHk=", "session=s3cr3t", "id=c00kie", "sk_header"]
        var entry = try Self.entry(headers: [("Host", "h"), ("x-api-key", secrets[0]), ("AUTHORIZATION", secrets[1]),
                                             ("Proxy-Authorization", secrets[2]), ("Cookie", secrets[3]), ("Set-Cookie", secrets[4]),
                                             ("X-Other", "visible")])
        entry.id = 1
        let site = InspectorServer.Site(kind: "webhook", collection: "deliveries", listener: [:])
        let detail = JSONWriter().writeString(.object(entry.detailJSON(extra: site.detailFields(entry, "http://127.0.0.1:1/"))))
        let list = JSONWriter().writeString(.object(entry.listJSON))
        let record = String(decoding: try XCTUnwrap(DeliveryInspection.record(entry)), as: UTF8.self)
        for secret in secrets.dropLast() {
            XCTAssertFalse(detail.contains(secret), secret)
            XCTAssertFalse(list.contains(secret), secret)
            XCTAssertFalse(record.contains(secret), "\(secret) in \(record)")
        }
        XCTAssertTrue(record.contains("visible") && detail.contains("visible"))
        XCTAssertTrue(detail.contains(#"["Set-Cookie",null]"#), detail)
    }

    /// The listener's rule holds in the inspector: an invalid delivery was not forwarded, so
    /// it is not replayed either, unless the listener forwards invalid deliveries.
    func testAnInvalidDeliveryIsReplayedOnlyWithForwardInvalid() throws {
        var invalid = try Self.entry()
        invalid.summary["valid"] = false
        var valid = try Self.entry()
        valid.summary["valid"] = true
        let refusal = try XCTUnwrap(DeliveryInspection.replayRefusal(invalid, target: "http://127.0.0.1:9/", forwardInvalid: false))
        XCTAssertTrue(refusal.contains("--forward-invalid"), refusal)
        XCTAssertNil(DeliveryInspection.replayRefusal(invalid, target: "http://127.0.0.1:9/", forwardInvalid: true))
        XCTAssertNil(DeliveryInspection.replayRefusal(valid, target: "http://127.0.0.1:9/", forwardInvalid: false))
    }

    // MARK: - Memory by bytes, pages by numbers

    /// `--inspect-keep 100000` of 120 KB deliveries: the byte budget decides, not the count.
    func testTheLogIsBoundedByBytesWhateverTheCount() throws {
        let budget = 4 << 20
        let log = InspectorLog(keep: 100_000, maxBytes: budget)
        let fat = [UInt8](repeating: 0x41, count: 120_000)
        let headers = [("Host", "h")] + (0..<40).map { ("X-Header-\($0)", String(repeating: "v", count: 1_000)) }
        for _ in 1...2_000 { log.record(try Self.entry(body: fat, headers: headers)) }
        XCTAssertLessThanOrEqual(log.bytesHeld, budget)
        let kept = log.entries()
        XCTAssertEqual(kept.first?.id, 2_000)
        XCTAssertGreaterThan(kept.count, 10)
        XCTAssertLessThan(kept.count, 60, "each entry holds ~150 KB: about 27 fit in 4 MiB")
        XCTAssertEqual(kept.map(\.id), Array((2_001 - kept.count...2_000).reversed()), "the newest, consecutive")
        XCTAssertNil(log.entry(2_000 - kept.count))
        // Replays count too, and the newest entry stays whatever its size.
        let tiny = InspectorLog(keep: 10, maxBytes: 1)
        tiny.record(try Self.entry(body: fat))
        XCTAssertEqual(tiny.entries().map(\.id), [1])
    }

    /// Pages at every extreme a request or a caller can give: no trap, the right ids.
    func testPagesAtTheExtremes() throws {
        let log = InspectorLog(keep: 5)
        XCTAssertTrue(log.page(after: Int.max, before: Int.min, limit: Int.max).entries.isEmpty)
        for _ in 1...12 { log.record(try Self.entry()) }
        func ids(_ after: Int, _ before: Int, _ limit: Int) -> [Int] { log.page(after: after, before: before, limit: limit).entries.map(\.id) }
        XCTAssertEqual(ids(0, Int.max, 100), [12, 11, 10, 9, 8])
        XCTAssertEqual(ids(0, Int.max, 2), [12, 11])
        XCTAssertTrue(log.page(after: 0, before: Int.max, limit: 2).older)
        XCTAssertEqual(ids(0, 11, 2), [10, 9])
        XCTAssertEqual(ids(0, 9, 2), [8])
        XCTAssertFalse(log.page(after: 0, before: 9, limit: 2).older)
        XCTAssertEqual(ids(9, Int.max, 100), [12, 11, 10])
        XCTAssertEqual(ids(Int.max, Int.max, 100), [])
        XCTAssertEqual(ids(Int.min, Int.max, 100), [12, 11, 10, 9, 8])
        XCTAssertEqual(ids(0, Int.min, 100), [])
        XCTAssertEqual(ids(0, 1, 100), [])
        XCTAssertEqual(ids(-1, 13, Int.max), [12, 11, 10, 9, 8])
        XCTAssertEqual(ids(0, Int.max, 0), [])
        XCTAssertEqual(ids(0, Int.max, Int.min), [])
        for id in [Int.min, -1, 0, 7, 13, Int.max] { XCTAssertNil(log.entry(id), "\(id)") }
        log.addReplay(["x": 1], to: Int.max)
        log.addReplay(["x": 1], to: Int.min)
    }

    /// The list answer: fields cut, paged, and every hostile number a 400 naming it.
    func testTheListIsPagedAndItsFieldsCut() throws {
        let server = try makeServer()
        let long = "/" + String(repeating: "é", count: 2_000)
        var entry = InspectorEntry(time: "t", request: try Self.request("POST", long, headers: [("Host", "h")]),
                                   answer: HTTPServer.Response(status: 200), summary: ["verdict": .string(String(repeating: "v", count: 10_000))])
        entry.replayCount = 0
        for _ in 1...7 { server.log.record(entry) }
        func get(_ target: String) throws -> (status: Int, body: JSONValue) {
            let answer = server.respond(to: try Self.request("GET", target, headers: [host(server)]))
            return (answer.status, try JSONValue(parsing: answer.body))
        }
        let first = try get("/api/deliveries?limit=3")
        XCTAssertEqual(first.status, 200)
        guard case .array(let items)? = first.body["deliveries"] else { return XCTFail("\(first.body)") }
        XCTAssertEqual(items.compactMap { $0["id"] }, [8, 7, 6])
        XCTAssertEqual(first.body["next_before"], 6)
        guard case .string(let target)? = items[0]["target"], case .string(let verdict)? = items[0]["verdict"] else { return XCTFail() }
        XCTAssertLessThanOrEqual(target.utf8.count, InspectorEntry.listFieldBytes + 3)
        XCTAssertTrue(target.hasSuffix("é…"), "cut at a whole character")
        XCTAssertLessThanOrEqual(verdict.utf8.count, InspectorEntry.listFieldBytes + 3)
        let last = try get("/api/deliveries?limit=3&before=3")
        guard case .array(let older)? = last.body["deliveries"] else { return XCTFail() }
        XCTAssertEqual(older.compactMap { $0["id"] }, [2, 1])
        XCTAssertEqual(last.body["next_before"], .null)
        let detail = try get("/api/deliveries/8")
        guard case .string(let whole)? = detail.body["verdict"] else { return XCTFail() }
        XCTAssertEqual(whole.utf8.count, 10_000, "the detail has it whole")
        for query in ["after=9223372036854775807", "after=-1", "after=\(String(repeating: "9", count: 30))", "before=0", "limit=501",
                      "limit=0", "after=1e3", "after=0x10", "after=+1", "after=", "after=1&after=2", "after=%E2%88%9E", "nope=1"] {
            let answer = try get("/api/deliveries?\(query)")
            XCTAssertEqual(answer.status, 400, query)
        }
        for target in ["/api/deliveries/9223372036854775807", "/api/deliveries/-1", "/api/deliveries/0", "/api/deliveries/1e3",
                       "/api/deliveries/\(String(repeating: "9", count: 30))"] {
            XCTAssertEqual(try get(target).status, 400, target)
        }
        XCTAssertEqual(try get("/api/deliveries/9007199254740991").status, 404, "in range, not kept")
    }

    // MARK: - The server's routes and guard

    func makeServer(replay: Bool = true) throws -> InspectorServer {
        var site = InspectorServer.Site(kind: "webhook", collection: "deliveries", listener: ["address": "http://127.0.0.1:1"])
        if replay { site.replay = { _, _ in (200, ["replayed": true]) } }
        let server = try InspectorServer(port: 0, site: site, log: InspectorLog(keep: 10))
        var entry = try Self.entry()
        entry.replayCount = 0
        server.log.record(entry)
        return server
    }

    func host(_ server: InspectorServer) -> (String, String) { ("Host", "127.0.0.1:\(server.guardian.port)") }

    func testThePageCarriesTheTokenAndEveryAnswerThePolicy() throws {
        let server = try makeServer()
        let page = server.respond(to: try Self.request("GET", "/", headers: [host(server)]))
        XCTAssertEqual(page.status, 200)
        let html = String(decoding: page.body, as: UTF8.self)
        XCTAssertTrue(html.contains(#"<meta name="appdna-inspector-token" content="\#(server.guardian.token)">"#), html)
        XCTAssertTrue(html.contains(#"<meta name="appdna-inspector-kind" content="webhook">"#))
        XCTAssertFalse(html.contains("{{"))
        for target in ["/", "/inspector.js", "/api/deliveries", "/api/deliveries/1", "/api/deliveries/x", "/elsewhere"] {
            let answer = server.respond(to: try Self.request("GET", target, headers: [host(server)]))
            XCTAssertTrue(answer.headers.contains { $0.name == "Content-Security-Policy" && $0.value.contains("script-src 'self'") }, target)
        }
        XCTAssertNotEqual(InspectorGuard(port: 1).token, InspectorGuard(port: 1).token, "a new token each run")
    }

    func testRoutesAndMethods() throws {
        let server = try makeServer()
        func status(_ method: String, _ target: String, _ headers: [(String, String)] = []) throws -> Int {
            server.respond(to: try Self.request(method, target, headers: [host(server)] + headers)).status
        }
        XCTAssertEqual(try status("GET", "/api/deliveries"), 200)
        XCTAssertEqual(try status("GET", "/api/deliveries?after=0"), 200)
        XCTAssertEqual(try status("GET", "/api/deliveries?after=-1"), 400)
        XCTAssertEqual(try status("GET", "/api/deliveries?after=9223372036854775807"), 400, "it once trapped on after + 1")
        XCTAssertEqual(try status("GET", "/api/deliveries/1"), 200)
        XCTAssertEqual(try status("GET", "/api/deliveries/2"), 404)
        XCTAssertEqual(try status("GET", "/api/deliveries/1/record"), 404, "no record form on this site")
        XCTAssertEqual(try status("GET", "/api/requests"), 404)
        XCTAssertEqual(try status("GET", "/api/deliveries/1/2/3"), 404)
        XCTAssertEqual(try status("POST", "/"), 405)
        XCTAssertEqual(try status("DELETE", "/api/deliveries/1"), 405)
        XCTAssertEqual(try status("GET", "/api/deliveries/1/replay"), 405)
        XCTAssertEqual(try status("POST", "/api/deliveries/1/replay"), 403)
        XCTAssertEqual(try status("POST", "/api/deliveries/1/replay", [(InspectorGuard.tokenHeader, server.guardian.token)]), 200)
        XCTAssertEqual(try status("POST", "/api/deliveries/9/replay", [(InspectorGuard.tokenHeader, server.guardian.token)]), 404)
        XCTAssertEqual(server.log.entry(1)?.replayCount, 1)
        let unreplayable = try makeServer(replay: false)
        XCTAssertEqual(unreplayable.respond(to: try Self.request("POST", "/api/deliveries/1/replay",
                                                                 headers: [host(unreplayable), (InspectorGuard.tokenHeader, unreplayable.guardian.token)])).status, 404)
    }

    func testTheGuard() throws {
        let guardian = InspectorGuard(port: 8788, token: "0123456789abcdef0123456789abcdef")
        func hostRefused(_ headers: [(String, String)]) throws -> Bool {
            guardian.hostRefusal(try Self.request("GET", "/", headers: headers)) != nil
        }
        XCTAssertFalse(try hostRefused([("Host", "127.0.0.1:8788")]))
        XCTAssertFalse(try hostRefused([("Host", "Localhost:8788")]))
        XCTAssertTrue(try hostRefused([("Host", "127.0.0.1")]), "port 80 is not this one")
        XCTAssertTrue(try hostRefused([("Host", "rebound.example:8788")]))
        XCTAssertTrue(try hostRefused([("Host", "127.0.0.1:8789")]))
        XCTAssertTrue(try hostRefused([]))
        XCTAssertFalse(InspectorGuard(port: 80).hostRefusal(try Self.request("GET", "/", headers: [("Host", "localhost")])) != nil)

        func actionRefusal(_ headers: [(String, String)]) throws -> String? {
            guardian.actionRefusal(try Self.request("POST", "/api/deliveries/1/replay", headers: headers))
        }
        let token = (InspectorGuard.tokenHeader, guardian.token)
        XCTAssertNil(try actionRefusal([token]))
        XCTAssertNil(try actionRefusal([token, ("Origin", "http://127.0.0.1:8788")]))
        XCTAssertNil(try actionRefusal([token, ("Origin", "http://localhost:8788")]))
        XCTAssertEqual(try actionRefusal([]), "X-AppDNA-Inspector-Token is missing: it is in the page's appdna-inspector-token meta tag")
        XCTAssertEqual(try actionRefusal([(InspectorGuard.tokenHeader, "0123456789abcdef0123456789abcdeF")]),
                       "X-AppDNA-Inspector-Token is not this run's token")
        XCTAssertEqual(try actionRefusal([(InspectorGuard.tokenHeader, "")]), "X-AppDNA-Inspector-Token is not this run's token")
        for origin in ["http://evil.example", "null", "http://127.0.0.1:8789", "https://127.0.0.1:8788", "http://127.0.0.1:8788.evil.example"] {
            XCTAssertEqual(try actionRefusal([token, ("Origin", origin)]), "a page from another origin (\(origin)) cannot use the inspector")
        }
    }

    func testFilledReplacesOnlyTheNamedPlaceholders() {
        XCTAssertEqual(InspectorServer.filled("a {{token}} b {{kind}} {{other}} {", ["{{token}}": "T", "{{kind}}": "K"]), "a T b K {{other}} {")
    }
}
