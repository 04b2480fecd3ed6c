@testable import AppDNACLI
@testable import AppDNAServers
import AppDNACore
@testable import AppDNANet
import Foundation
import LoopbackHTTPServer
import TestSupport
import XCTest

/// The route-aware fuzzer: its cases are generated from the servers' route tables
/// (`ListenRoutes`, `ServeRoutes`, `InspectorRoutes`), so a route or parameter added to a table
/// is attacked without anyone remembering to. For every route of `webhook listen --inspect` and
/// `api serve --inspect`, each running as the real binary: every parameter and path id at its
/// hostile values (0, -1, ±2^63 and beyond, 30 digits, `1e3`, `0x10`, `+1`, empty, repeated,
/// percent-encoded, non-ASCII), every method, and the request-line, header and body mutations
/// of `RequestMutator` on top. Oracles: the process is alive afterwards, every request is
/// answered within a bound, a hostile number is a 400 naming its parameter, no answer is a 5xx
/// the server did not mean, memory stays bounded, and nothing invalid reaches the handler.
///
/// `APPDNA_ROUTE_FUZZ_ROUNDS` (default 20 rounds of mutations per generated case) and
/// `APPDNA_FUZZ_SEED` change the run; a failure names the seed and the request.
final class RouteFuzzEndToEndTests: XCTestCase {
    /// What a number parameter is attacked with; each is refused (400) by every integer range
    /// the tables declare (all start at 0 or 1 and end below 2^63 - 1).
    static let hostileNumbers = ["-1", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
                                 "18446744073709551616", String(repeating: "9", count: 30), "1e3", "0x10", "+1", "1.5", "1,0", "%2B1",
                                 "%2D1", "%39%39%39%39%39%39%39%39%39%39%39%39%39%39%39%39%39%39%39%39", "%C3%A9", "é", "١٢", "%00",
                                 "%", "%4", "%zz", "NaN", "Infinity", "%20"]

    /// A value of `spec` the route accepts (its smallest).
    static func sample(_ spec: RouteParameterSpec) -> String {
        switch spec.kind {
        case .integer(let range): return String(range.lowerBound)
        case .choice(let choices): return choices[0]
        case .text: return "x"
        }
    }

    /// The target of `route` with every parameter at its sample, but `hostile` (a name and a
    /// raw value) in its place; `.rest` becomes `/hooks`.
    static func target(_ route: Route<some Sendable>, hostile: (name: String, value: String)? = nil,
                       extraQuery: String? = nil) -> String {
        var path = ""
        for segment in route.path {
            switch segment {
            case .literal(let text): path += "/" + text
            case .parameter(let spec): path += "/" + (hostile?.name == spec.name ? hostile!.value : sample(spec))
            case .rest: path += "/hooks"
            }
        }
        if path.isEmpty { path = "/" }
        var query: [String] = []
        if case .declared(let specs) = route.query, let hostile, specs.contains(where: { $0.name == hostile.name }) {
            query.append("\(hostile.name)=\(hostile.value)")
        }
        if let extraQuery { query.append(extraQuery) }
        return query.isEmpty ? path : path + "?" + query.joined(separator: "&")
    }

    /// Every case one table yields: (method, target, what the answer must be).
    enum Expectation: Equatable { case refused400, anyAnswer }
    static func cases<E: Sendable>(_ table: RouteTable<E>) -> [(method: String, target: String, expect: Expectation)] {
        var cases: [(String, String, Expectation)] = []
        for route in table.routes {
            let method = route.methods[0]
            cases.append((method, target(route), .anyAnswer))
            for other in ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "CONNECT", "TRACE", "get", "BREW"] {
                cases.append((other, target(route), .anyAnswer))
            }
            for spec in route.parameters {
                if case .integer = spec.kind {
                    for value in hostileNumbers { cases.append((method, target(route, hostile: (spec.name, value)), .refused400)) }
                } else if case .text(let maxCharacters) = spec.kind {
                    // Text is any UTF-8 but empty, too long, badly encoded or a control character.
                    for value in ["", "%", "%zz", "%00", "%0A", "%7F", "%C2%85", "%FF", String(repeating: "a", count: maxCharacters + 1)] {
                        cases.append((method, target(route, hostile: (spec.name, value)), .refused400))
                    }
                } else {
                    for value in ["", "X", "%", "é"] { cases.append((method, target(route, hostile: (spec.name, value)), .refused400)) }
                }
                if spec.place == .query {
                    let sample = sample(spec)
                    cases.append((method, target(route, extraQuery: "\(spec.name)=\(sample)&\(spec.name)=\(sample)"), .refused400))
                    cases.append((method, target(route, extraQuery: "\(spec.name)="), .refused400))
                    cases.append((method, target(route, extraQuery: "\(spec.name)"), .refused400))
                }
            }
            switch route.query {
            case .declared:
                cases.append((method, target(route, extraQuery: "unknown=1"), .refused400))
            case .notInterpreted:
                // Not read: these must change nothing and crash nothing.
                for query in ["after=9223372036854775807", "after=-1&after=%", "%zz", "a=\(String(repeating: "9", count: 30))"] {
                    cases.append((method, target(route, extraQuery: query), .anyAnswer))
                }
            }
        }
        // Paths no table has, and the forms an origin server refuses.
        for target in ["/nowhere", "/api/nothing/1", "//", "/%", "/%zz", "/é", "*", "http://127.0.0.1/", "@127.0.0.2:1/x", "127.0.0.1:80"] {
            cases.append(("GET", target, .anyAnswer))
        }
        return cases
    }

    /// The request as bytes; a POST carries a small body (a webhook delivery's shape, unsigned).
    static func request(_ method: String, _ target: String, host: String, headers: [String] = []) -> [UInt8] {
        let body = method == "POST" ? #"{"id":"evt_route_fuzz","type":"x"}"# : ""
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n"
        for header in headers { head += header + "\r\n" }
        if !body.isEmpty { head += "Content-Length: \(body.utf8.count)\r\n" }
        return Array((head + "\r\n" + body).utf8)
    }

    static func residentKiB(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        return Int(line.split(separator: " ").dropFirst().first ?? "")
    }

    static func status(_ answer: [UInt8]) -> Int? {
        guard answer.count >= 12, answer.starts(with: Array("HTTP/1.1 ".utf8)) else { return nil }
        return Int(String(decoding: answer[9..<12], as: UTF8.self))
    }

    /// One server under attack: its port and Host, the tables it serves there.
    struct Target {
        let name: String
        let port: Int
        let cases: [(method: String, target: String, expect: Expectation)]
        let headers: [String]
    }

    /// Why a process died, from its stderr: the runtime's fatal-error line, else the last lines.
    static func deathNote(_ process: InspectedProcess) -> String {
        let lines = process.stderr.split(separator: "\n")
        let fatal = lines.filter { $0.contains("runtime failure") || $0.contains("crashed") || $0.contains("Inspector") }.prefix(4)
        return fatal.isEmpty ? String(process.stderr.suffix(1000)) : fatal.joined(separator: "\n")
    }

    func attack(_ process: InspectedProcess, targets: [Target], seed: UInt64, rounds: Int,
                file: StaticString = #filePath, line: UInt = #line) {
        var random = SplitMix64(seed: seed)
        var failures: [String] = []
        let before = Self.residentKiB(process.process.processIdentifier) ?? 0
        var sent = 0
        let started = Date()
        for target in targets {
            let host = "127.0.0.1:\(target.port)"
            var requests = target.cases.map { Self.request($0.method, $0.target, host: host, headers: target.headers) }
            let generated = requests.count
            // The existing mutations on top of each generated request, `rounds` times.
            for _ in 0..<rounds { for index in 0..<generated { requests.append(RequestMutator.mutate(requests[index], &random)) } }
            let answers = ConcurrentExchanges.send(requests, port: target.port, seconds: 10)
            sent += requests.count
            guard process.process.isRunning else {
                failures.append("\(target.name): the process died (seed \(seed)): \(Self.deathNote(process))")
                break
            }
            for (index, answer) in answers.enumerated() {
                let shown = String(decoding: requests[index].prefix(160), as: UTF8.self).debugDescription
                guard let answer else { failures.append("\(target.name): no answer within 10 s to \(shown)"); continue }
                let status = Self.status(answer)
                // 503 (no thread, over the byte budget) and 505 (a mutated version) are meant; any other 5xx is not.
                if let status, status >= 500, status != 503, status != 505 {
                    failures.append("\(target.name): \(status) to \(shown)")
                }
                if index < generated, target.cases[index].expect == .refused400 {
                    let text = String(decoding: answer, as: UTF8.self)
                    if status != 400 { failures.append("\(target.name): \(status.map(String.init) ?? "no status") instead of 400 to \(shown)") }
                    // The answer names what is wrong: the parameter, or the bad encoding.
                    else if !(text.contains("takes") || text.contains("empty") || text.contains("more than once") || text.contains("%")
                                || text.contains("unknown parameter")) {
                        failures.append("\(target.name): a 400 that names nothing to \(shown): \(text.suffix(200))")
                    }
                }
            }
        }
        let after = Self.residentKiB(process.process.processIdentifier) ?? 0
        print("route fuzz (seed \(seed)): \(sent) requests in \(Int(Date().timeIntervalSince(started) * 1000)) ms; RSS \(before) -> \(after) KiB")
        XCTAssertTrue(process.process.isRunning, "the server died (seed \(seed)): \(Self.deathNote(process))", file: file, line: line)
        XCTAssertLessThan(after, max(before, 20_000) + 120_000, "memory grew by over 120 MB under the fuzzer", file: file, line: line)
        XCTAssertEqual(failures.count, 0, "seed \(seed): \(failures.count) failures, the first: \(failures.prefix(8).joined(separator: "\n"))",
                       file: file, line: line)
    }

    var seed: UInt64 { ProcessInfo.processInfo.environment["APPDNA_FUZZ_SEED"].flatMap(UInt64.init) ?? 42 }
    var rounds: Int { ProcessInfo.processInfo.environment["APPDNA_ROUTE_FUZZ_ROUNDS"].flatMap(Int.init) ?? 20 }

    func testWebhookListenAndItsInspectorSurviveEveryRouteAttacked() throws {
        let scratch = try ScratchDirectory("route-fuzz")
        defer { scratch.remove() }
        let secret = try scratch.file("secret", Array("whsec_route_fuzz".utf8))
        let handler = try LoopbackHTTPServer { _, _ in .init(status: 200, body: Array("handled".utf8)) }
        defer { handler.stop() }
        let process = try InspectedProcess(["webhook", "listen", "--secret-file", secret, "--forward-to", handler.baseURL + "/hook",
                                            "--inspect-keep", "50"], in: scratch.url)
        defer { process.stop() }
        // Something to find by id: one delivery first (unsigned: invalid, not forwarded).
        _ = WebhookListenFuzzEndToEndTests.exchange(Self.request("POST", "/hooks", host: "127.0.0.1"), port: process.listenerPort)
        attack(process, targets: [
            Target(name: "webhook listen", port: process.listenerPort, cases: Self.cases(ListenRoutes.table), headers: []),
            Target(name: "its inspector", port: process.inspectorPort,
                   cases: Self.cases(InspectorRoutes.table(collection: "deliveries", record: true, replay: true)), headers: []),
        ], seed: seed, rounds: rounds)
        XCTAssertEqual(handler.requests.count, 0, "nothing unsigned or refused reached the handler")
    }

    func testAPIServeAndItsInspectorSurviveEveryRouteAttacked() throws {
        let scratch = try ScratchDirectory("route-fuzz")
        defer { scratch.remove() }
        let bundle = try scratch.file("bundle.json", Array(#"{"bundle_version":1,"experiments":{}}"#.utf8))
        let process = try InspectedProcess(["api", "serve", "--bundle", bundle, "--inspect-keep", "50"], in: scratch.url)
        defer { process.stop() }
        attack(process, targets: [
            Target(name: "api serve", port: process.listenerPort, cases: Self.cases(ServeRoutes.table), headers: ["x-api-key: k"]),
            Target(name: "its inspector", port: process.inspectorPort,
                   cases: Self.cases(InspectorRoutes.table(collection: "requests", record: false, replay: false, bundle: true)), headers: []),
        ], seed: seed, rounds: rounds)
    }

    /// The generator covers every route and parameter of every table: a table row cannot be
    /// added without being attacked.
    func testTheCasesCoverEveryRouteAndParameter() {
        let tables: [[(method: String, target: String, expect: Expectation)]] = [
            Self.cases(ListenRoutes.table), Self.cases(ServeRoutes.table),
            Self.cases(InspectorRoutes.table(collection: "deliveries", record: true, replay: true)),
        ]
        let all = tables.flatMap { $0 }
        for route in InspectorRoutes.table(collection: "deliveries", record: true, replay: true).routes {
            for spec in route.parameters {
                XCTAssertTrue(all.contains { $0.target.contains("9223372036854775808") && ($0.target.contains("\(spec.name)=") || spec.place == .path) },
                              "\(route.pattern) \(spec.name)")
            }
        }
        XCTAssertTrue(all.contains { $0.target.contains("after=9223372036854775807") && $0.expect == .refused400 })
        // api serve's override routes: the kind and the text key at their hostile values.
        let overrides = Self.cases(InspectorRoutes.table(collection: "requests", record: false, replay: false, bundle: true))
        XCTAssertTrue(overrides.contains { $0.method == "PUT" && $0.target.hasSuffix("/api/overrides/experiment/%00") && $0.expect == .refused400 })
        XCTAssertTrue(overrides.contains { $0.method == "DELETE" && $0.target.hasSuffix("/api/overrides/X/x") && $0.expect == .refused400 })
        XCTAssertGreaterThan(all.count, 300)
    }
}
