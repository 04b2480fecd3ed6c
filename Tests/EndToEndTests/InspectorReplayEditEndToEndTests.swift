import AppDNACore
import Foundation
import LoopbackHTTPServer
import TestSupport
import XCTest

/// The inspector's "Edit and replay" (`POST /api/deliveries/{id}/replay` with a JSON body), with
/// curl against the built `webhook listen --inspect`: the edited delivery reaches a real handler
/// signed for the edited body (checked with Core's verifier), the entry stays as received, and
/// the listener's rule on invalid deliveries holds for what is sent.
final class InspectorReplayEditEndToEndTests: XCTestCase {
    var directory: URL!
    var secretPath = ""
    var secret: WebhookSecret!
    var handler: LoopbackHTTPServer!
    var processes: [InspectedProcess] = []

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-replay-edit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        secretPath = directory.appendingPathComponent("secret.txt").path
        let text = "whsec_replay_edit_\(UUID().uuidString)"
        try Data((text + "\n").utf8).write(to: URL(fileURLWithPath: secretPath))
        secret = try WebhookSecret(raw: Array(text.utf8), source: "test")
        handler = try LoopbackHTTPServer { _, _ in .init(status: 200, headers: [("Content-Type", "text/plain")], body: Array("ok".utf8)) }
    }

    override func tearDownWithError() throws {
        for process in processes { process.stop() }
        handler?.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    static let original = #"{"id":"evt_edit","type":"subscription.renewed","created_at":"2026-02-19T10:00:00Z","data":{"user_id":"u1"}}"#
    static let edited = #"{"id":"evt_edit","type":"subscription.cancelled","created_at":"2026-02-19T10:00:00Z","data":{"user_id":"u2","zoë":true}}"#

    func startListener(_ extra: [String] = []) throws -> (InspectedProcess, String) {
        let listener = try InspectedProcess(["webhook", "listen", "--secret-file", secretPath, "--forward-to", handler.baseURL + "/hooks"] + extra,
                                            in: directory)
        processes.append(listener)
        let before = handler.requests.count
        try sendDelivery(Data(Self.original.utf8), to: listener.listener + "/webhooks", secretPath: secretPath, in: directory)
        XCTAssertEqual(handler.requests.count, before + 1, "the delivery, forwarded")
        return (listener, try inspectorToken(listener.inspector, in: directory))
    }

    func replay(_ listener: InspectedProcess, token: String, _ edits: [String: Any], id: Int = 1) throws -> CurlExchange {
        let path = directory.appendingPathComponent("edits-\(UUID().uuidString).json").path
        try JSONSerialization.data(withJSONObject: edits).write(to: URL(fileURLWithPath: path))
        return try curl(listener.inspector + "/api/deliveries/\(id)/replay",
                        ["-X", "POST", "-H", "X-AppDNA-Inspector-Token: \(token)", "-H", "Content-Type: application/json", "--data-binary", "@" + path],
                        in: directory)
    }

    func verifies(_ request: LoopbackHTTPServer.Request) throws -> Bool {
        let header = try XCTUnwrap(request.header("X-AppDNA-Signature"), "no signature")
        let signature = try WebhookSignature.parse(header)
        return try request.body.withUnsafeBytes { try WebhookVerifier.verify(body: $0, signature: signature, secrets: [secret]) }.isValid
    }

    func testAnEditedReplayReachesTheHandlerSignedForTheEditedBodyAndTheEntryStaysAsReceived() throws {
        let (listener, token) = try startListener()
        let before = try curl(listener.inspector + "/api/deliveries/1", in: directory).json
        let headers: [[Any]] = [["Content-Type", "application/json"], ["X-AppDNA-Event", "subscription.cancelled"], ["X-Edited-By", "the test"],
                                ["Content-Length", "1"], ["Connection", "close"]]
        let answer = try replay(listener, token: token, ["body": Self.edited, "headers": headers, "signature": "resign"])
        XCTAssertEqual(answer.status, 200, answer.text)
        let result = try XCTUnwrap(answer.json["replay"] as? [String: Any])
        XCTAssertEqual(result["modified"] as? Bool, true)
        XCTAssertEqual(result["signature"] as? String, "resign")
        XCTAssertEqual(result["body_length"] as? Int, Self.edited.utf8.count)
        XCTAssertEqual(result["status"] as? Int, 200)

        let requests = handler.requests
        XCTAssertEqual(requests.count, 2)
        let sent = requests[1]
        XCTAssertEqual(sent.body, Array(Self.edited.utf8), "the edited bytes")
        XCTAssertTrue(try verifies(sent), "signed with the listener's secret for the edited body")
        var sentWithTheOriginalBody = sent
        sentWithTheOriginalBody.body = Array(Self.original.utf8)
        XCTAssertFalse(try verifies(sentWithTheOriginalBody), "a signature of the edited body, not of the received one")
        XCTAssertEqual(sent.header("X-AppDNA-Event"), "subscription.cancelled")
        XCTAssertEqual(sent.header("X-Edited-By"), "the test")
        XCTAssertEqual(sent.header("Content-Length"), String(Self.edited.utf8.count), "made again for the edited body")
        XCTAssertEqual(sent.path, "/hooks")
        XCTAssertTrue(listener.stderr.contains("replayed delivery 1 from the inspector with modifications (signature: resign, "), listener.stderr)

        // The entry: as received, with a replay that says it was modified.
        let after = try curl(listener.inspector + "/api/deliveries/1", in: directory).json
        XCTAssertEqual((after["body"] as? [String: Any])?["text"] as? String, Self.original)
        XCTAssertEqual(after["headers"] as? NSArray, before["headers"] as? NSArray)
        XCTAssertEqual(after["replays"] as? Int, 1)
        XCTAssertEqual(((after["replay_results"] as? [[String: Any]])?.first)?["modified"] as? Bool, true)

        // A plain replay still sends what was received.
        XCTAssertEqual(try curl(listener.inspector + "/api/deliveries/1/replay", ["-X", "POST", "-H", "X-AppDNA-Inspector-Token: \(token)"],
                                in: directory).status, 200)
        XCTAssertEqual(handler.requests[2].body, Array(Self.original.utf8))
        XCTAssertEqual(handler.requests[2].header("X-AppDNA-Signature"), requests[0].header("X-AppDNA-Signature"))
    }

    func testAnUnsignedOrWronglySignedEditIsRefusedUnlessTheListenerForwardsInvalidDeliveries() throws {
        let (listener, token) = try startListener()
        let unsigned = try replay(listener, token: token, ["body": Self.edited, "signature": "unsigned"])
        XCTAssertEqual(unsigned.status, 409)
        XCTAssertTrue((unsigned.json["error"] as? String ?? "").contains("--forward-invalid"), unsigned.text)
        // The received signature does not sign an edited body.
        XCTAssertEqual(try replay(listener, token: token, ["body": Self.edited, "signature": "original"]).status, 409)
        // …but it does sign the received one, edited headers or not.
        XCTAssertEqual(try replay(listener, token: token, ["headers": [["X-AppDNA-Signature", handler.requests[0].header("X-AppDNA-Signature") ?? ""]],
                                                           "signature": "original"]).status, 200)
        XCTAssertEqual(handler.requests.count, 2)
        XCTAssertEqual(handler.requests[1].body, Array(Self.original.utf8))
        XCTAssertTrue(try verifies(handler.requests[1]))

        // Badly formed edits: 400 with why; none reaches the handler.
        for (edits, words) in [(["signature": "sometimes"], "\"signature\""), (["headers": [["bad name", "x"]]], "not an HTTP header name"),
                               (["headers": [["X-A", "1\r\nX-Injected: 1"]]], "line break")] as [([String: Any], String)] {
            let answer = try replay(listener, token: token, edits)
            XCTAssertEqual(answer.status, 400, "\(edits)")
            XCTAssertTrue((answer.json["error"] as? String ?? "").contains(words), answer.text)
        }
        XCTAssertEqual(handler.requests.count, 2)
        // Without the token: 403, as a plain replay.
        let path = directory.appendingPathComponent("no-token.json").path
        try Data(#"{"signature":"resign"}"#.utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(try curl(listener.inspector + "/api/deliveries/1/replay", ["-X", "POST", "--data-binary", "@" + path], in: directory).status, 403)

        // With --forward-invalid the unsigned edit goes, with no signature at all.
        let (forwarding, forwardingToken) = try startListener(["--forward-invalid"])
        XCTAssertEqual(try replay(forwarding, token: forwardingToken, ["body": Self.edited, "signature": "unsigned"]).status, 200)
        let sent = try XCTUnwrap(handler.requests.last)
        XCTAssertEqual(sent.body, Array(Self.edited.utf8))
        XCTAssertNil(sent.header("X-AppDNA-Signature"))
        // An edited body is no larger than a delivery may be (--max-body, 1 MiB here).
        let tooLarge = try replay(forwarding, token: forwardingToken, ["body": String(repeating: "x", count: (1 << 20) + 1)])
        XCTAssertEqual(tooLarge.status, 400)
        XCTAssertTrue((tooLarge.json["error"] as? String ?? "").contains("larger than the listener's --max-body (1 MiB)"), tooLarge.text)
        XCTAssertEqual(try replay(forwarding, token: forwardingToken, ["body": String(repeating: "x", count: 1 << 20)]).status, 200)
        XCTAssertEqual(handler.requests.last?.body.count, 1 << 20)
    }
}
