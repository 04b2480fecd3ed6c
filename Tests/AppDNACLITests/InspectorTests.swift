import AppDNACore
@testable import AppDNACLI
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

    // MARK: - The server's routes and guard

    func makeServer(replay: Bool = true) throws -> InspectorServer {
        var site = InspectorServer.Site(kind: "webhook", collection: "deliveries", listener: ["address": "http://127.0.0.1:1"])
        if replay { site.replay = { _ in (200, ["replayed": true]) } }
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
