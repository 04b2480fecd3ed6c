import AppDNACore
import Foundation
@testable import AppDNACLI
@testable import AppDNAServers
@testable import AppDNANet
import TestSupport
import XCTest

/// `api serve` as values (issue 49): `APIServer` answers requests handed to it in-process, and
/// each request's one `ServeOutcome` is the `--json` line, the text line and the inspector entry.
final class ServeOutcomeTests: XCTestCase {
    /// What the server reported, in order.
    final class Reports: ServeReport, @unchecked Sendable {
        // Test-only: one thread hands requests to the server here, so no lock is needed.
        var outcomes: [ServeOutcome] = []
        var rejections: [RejectedRequest] = []
        func served(_ outcome: ServeOutcome) { outcomes.append(outcome) }
        func rejected(_ rejected: RejectedRequest) { rejections.append(rejected) }
    }

    /// The documented fields, in their documented order (docs/schemas/api-serve.schema.json,
    /// inspector-requests.schema.json): both lists are only added to.
    static let jsonLineKeys = ["time", "peer", "method", "target", "endpoint", "status", "injected", "events", "duplicates", "note", "audit", "reason"]
    static let inspectorKeys = ["endpoint", "status", "injected", "fault", "note", "events", "duplicates", "body_length", "audit", "reason"]

    var scratch: ScratchDirectory!
    override func setUpWithError() throws { scratch = try ScratchDirectory("serve-outcome") }
    override func tearDown() { scratch.remove() }

    func server(fail: String? = nil, maxEventBody: Int? = nil, requiredKey: [UInt8]? = nil) throws -> (APIServer, Reports, InspectorLog) {
        let path = try scratch.file("bundle.json", Array(#"{"bundle_version": 7, "experiments": {}}"#.utf8))
        let bundle = try ServedBundle(source: .file(path: path), name: path, statePath: nil, clock: SystemClock(), words: { "\($0)" }, warn: { _ in }, refetchFailed: { _, _ in })
        let reports = Reports()
        let log = InspectorLog(keep: 10)
        let faults = try ServeFaults(fail: fail, retryAfter: 2, latency: 0, maxEventBody: maxEventBody)
        // Only its byte budget is used: the batches are handed to the handler directly.
        let budget = try HTTPServer(host: "127.0.0.1", port: 0, limits: HTTPServer.Limits(maxBodyBytes: 1 << 20, headerTimeout: 1, idleTimeout: 1, maxConnections: 1))
        let server = APIServer(bundle: bundle, faults: faults, requiredKey: requiredKey, serverLimit: 1 << 20, ingest: IngestEndpoint(recorder: nil, budget: budget), sdk: SDKEndpoints(mode: .local, fetchLive: nil), words: FlagWording.serve,
                               report: reports, clock: SystemClock(), inspector: log)
        return (server, reports, log)
    }

    func request(_ method: String, _ target: String, key: String? = "k", body: [UInt8] = []) throws -> HTTPServer.Request {
        var headers = [("Host", "127.0.0.1:9")]
        if let key { headers.append(("x-api-key", key)) }
        return try InspectorTests.request(method, target, headers: headers, body: body)
    }

    static func object(_ line: String) throws -> JSONObject {
        guard case .object(let object) = try JSONValue(parsing: Array(line.utf8)) else {
            XCTFail("not a JSON object: \(line)")
            return [:]
        }
        return object
    }

    /// The answer's `{"error": …}`, or nil.
    static func error(_ response: HTTPServer.Response) -> String? {
        guard case .object(let object)? = try? JSONValue(parsing: response.body), case .string(let text)? = object["error"] else { return nil }
        return text
    }

    func testEachOutcomeTellsTheSameFactsInItsLineAndItsEntry() throws {
        let (server, reports, log) = try server()
        let batch = Array(#"{"batch": [\#(TestEvents.stored(1, ts: 1_700_000_000_000)), \#(TestEvents.stored(1, ts: 1_700_000_000_000))]}"#.utf8)
        let requests = [
            try request("GET", "/api/v1/sdk/config-bundle/version"),
            try request("POST", "/api/v1/ingest/events", body: batch),
            try request("GET", "/api/v1/sdk/config-bundle", key: nil),
            try request("GET", "/nowhere"),
            try request("POST", "/api/v1/ingest/events", body: Array(#"{"events": []}"#.utf8)),
        ]
        let statuses = requests.map { server.handle($0).status }
        XCTAssertEqual(statuses, [200, 200, 401, 404, 400])
        XCTAssertEqual(reports.outcomes.map(\.endpointName), ["version", "events", "bundle", "other", "events"])
        XCTAssertEqual(reports.outcomes.map(\.note), ["bundle_version 7", "2 events, 1 duplicate", "missing x-api-key", "not an AppDNA API path",
                                                      "the body is not {\"batch\": [events]} (\"events\" is the documented name; the SDK sends \"batch\")"])
        let entries = log.entries().reversed()
        XCTAssertEqual(entries.count, requests.count)
        for (outcome, entry) in zip(reports.outcomes, entries) {
            let line = try Self.object(outcome.jsonLine)
            XCTAssertEqual(line.keys, Self.jsonLineKeys)
            XCTAssertEqual(entry.summary.keys, Self.inspectorKeys)
            for key in ["endpoint", "status", "injected", "note", "events", "duplicates", "audit", "reason"] {
                XCTAssertEqual(entry.summary[key], line[key], key)
            }
            // A refusal's reason is its answer's words; a request served has none.
            XCTAssertEqual(line["reason"], Self.error(outcome.response).map(JSONValue.string) ?? .null)
            XCTAssertEqual(outcome.textLines.first, "\(outcome.time)  \(outcome.request.head.method) \(outcome.request.head.target)  \(outcome.response.status)  \(outcome.note)")
        }
        XCTAssertEqual(reports.outcomes[1].events, 1)
        XCTAssertEqual(reports.outcomes[1].duplicates, 1)
        XCTAssertTrue(reports.outcomes[2].refusedKey)
    }

    func testInjectedFaultsAreWordedByTheCLI() throws {
        let (failing, reports, log) = try server(fail: "503:1")
        let answer = failing.handle(try request("GET", "/api/v1/sdk/config-bundle"))
        XCTAssertEqual(answer.status, 503)
        XCTAssertTrue(answer.headers.contains { $0.name == "Retry-After" && $0.value == "2" })
        XCTAssertEqual(Self.error(answer), "injected by --fail")
        XCTAssertEqual(log.entries().first?.summary["fault"], .string("injected by --fail"))
        XCTAssertEqual(try Self.object(reports.outcomes[0].jsonLine)["injected"], .bool(true))
        XCTAssertEqual(failing.handle(try request("GET", "/api/v1/sdk/config-bundle")).status, 200, "one failure, then served")

        let (small, smallReports, _) = try server(maxEventBody: 10)
        XCTAssertEqual(small.handle(try request("POST", "/api/v1/ingest/events", body: Array(repeating: 0x20, count: 2048))).status, 413)
        XCTAssertEqual(smallReports.outcomes[0].note, "2 KiB over --status-413-over")
        XCTAssertEqual(smallReports.outcomes[0].reason, "the batch is 2048 bytes, over 10")
    }

    func testARejectedRequestSpellsItsReasonAsTheListenerDoes() throws {
        let (server, reports, _) = try server()
        server.reject(HTTPServer.Rejection(status: 400, reason: "the request line is not HTTP/1.x", peer: "127.0.0.1:1"))
        let serve = try Self.object(reports.rejections[0].jsonLine(withNote: true))
        let listen = try Self.object(reports.rejections[0].jsonLine(withNote: false))
        XCTAssertEqual(serve.keys, ["time", "peer", "rejected", "status", "note", "reason"])
        XCTAssertEqual(listen.keys, ["time", "peer", "rejected", "status", "reason"])
        XCTAssertEqual(serve["reason"], listen["reason"])
        XCTAssertEqual(serve["note"], serve["reason"])
    }
}
