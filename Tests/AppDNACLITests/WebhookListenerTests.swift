import AppDNACore
import Foundation
@testable import AppDNACLI
@testable import AppDNAServers
@testable import AppDNANet
import TestSupport
import XCTest

/// `webhook listen` as values (issue 45): one `DeliveryOutcome` is both the `--json` line and
/// the inspector's entry, and the plan is the only reader of the command's flags.
final class WebhookListenerTests: XCTestCase {
    let secret = try! WebhookSecret(raw: Array("whsec_unit_test_secret".utf8), source: "test")
    let body = Array(#"{"id":"evt_1","type":"subscription.renewed"}"#.utf8)

    func outcome(signature: String?, status: Int, refusal: DeliveryRefusal? = nil) throws -> DeliveryOutcome {
        var headers = [("Host", "127.0.0.1:9")]
        if let signature { headers.append(("X-AppDNA-Signature", signature)) }
        let request = try InspectorTests.request("POST", "/webhooks", headers: headers, body: body)
        let check = DeliveryCheck(headers: request.head.headers, body: request.body, secrets: [secret])
        return DeliveryOutcome(time: "2026-11-28T04:00:00.000Z", request: request, check: check, secrets: [secret],
                               response: HTTPServer.Response(status: status), forward: nil, refusal: refusal, words: FlagWording.listen)
    }

    /// The documented fields, in their documented order (docs/webhooks.md): both lists are only added to.
    static let jsonLineKeys = ["time", "peer", "method", "target", "event", "id", "body_length", "valid", "matched_secret",
                               "problem", "diagnoses", "status", "forward", "reason"]
    static let inspectorKeys = ["event", "event_id", "body_length", "valid", "verdict", "problem", "diagnoses", "status", "forward", "reason"]

    func testTheJSONLineAndTheInspectorEntryTellTheSameFacts() throws {
        let signed = WebhookSigner.headerValue(body: body, secret: secret)
        let refused = try outcome(signature: "t=1,v1=00", status: 401, refusal: .invalidSignature("the signature does not match"))
        for (outcome, valid) in [(try outcome(signature: signed, status: 200), true), (refused, false)] {
            guard case .object(let line)? = try? JSONValue(parsing: Array(outcome.jsonLine.utf8)) else { return XCTFail("the line is a JSON object") }
            let summary = outcome.inspectorEntry.summary
            XCTAssertEqual(line.keys, Self.jsonLineKeys)
            XCTAssertEqual(summary.keys, Self.inspectorKeys)
            XCTAssertEqual(line["valid"], JSONValue.bool(valid))
            XCTAssertEqual(line["id"], JSONValue.string("evt_1"))
            XCTAssertEqual(summary["event_id"], line["id"], "the body's id, spelled for each reader")
            for key in ["event", "body_length", "valid", "problem", "diagnoses", "status", "forward", "reason"] {
                XCTAssertEqual(summary[key], line[key], key)
            }
            XCTAssertEqual(line["time"], JSONValue.string(outcome.inspectorEntry.time))
            XCTAssertEqual(summary["verdict"], JSONValue.string(outcome.check.verdictText(secrets: [secret], words: FlagWording.listen)))
            XCTAssertNil(outcome.forwardCount, "not forwarded: not counted under a forward")
            XCTAssertEqual(line["reason"], valid ? JSONValue.null : JSONValue.string("invalid webhook signature: the signature does not match"))
        }
    }

    /// A refusal's reason is spelled `reason` in the listener's lines as in api serve's (and the
    /// same words as the answer's body).
    func testARefusalsReasonIsTheAnswersWords() throws {
        for refusal in [DeliveryRefusal.invalidSignature("no signature"), .forwardBudgetSpent, .forwardFailed(timedOut: true, error: "timed out")] {
            let response = refusal.response
            XCTAssertEqual(response.status, refusal.status)
            XCTAssertEqual(String(decoding: response.body, as: UTF8.self).trimmingCharacters(in: .newlines), refusal.message)
            let outcome = try outcome(signature: nil, status: response.status, refusal: refusal)
            XCTAssertEqual(outcome.inspectorEntry.summary["reason"], JSONValue.string(refusal.message))
        }
        XCTAssertTrue(DeliveryRefusal.forwardBudgetSpent.response.headers.contains { $0.name == "Retry-After" })
    }

    func testTheTextLineSaysWhatTheSenderGot() throws {
        let line = try outcome(signature: "t=1,v1=00", status: 401).textLine(style: Styler(enabled: false))
        XCTAssertTrue(line.hasPrefix("2026-11-28T04:00:00.000Z  subscription.renewed  evt_1  invalid"), line)
        XCTAssertTrue(line.hasSuffix("-> answered 401, not forwarded"), line)
    }

    // MARK: - The plan is the only reader of the flags

    /// `file:line: text` of each line of `source` (comments left out) that reads parsed arguments.
    static func argumentReads(in source: String, file: String) -> [String] {
        SourceLines.matching(source, file: file) { code in
            code.contains("arguments") || code.contains("WebhookListenFlags.") && !code.contains("WebhookListenFlags.all")
        }
    }

    func testOnlyThePlanReadsTheListenersFlags() throws {
        let folder = repositoryRoot.appendingPathComponent("Sources/AppDNACLI/Commands/Webhook")
        let library = repositoryRoot.appendingPathComponent("Sources/AppDNAServers/Listener")
        var found: [String] = []
        for (place, file) in [(folder, "WebhookListenCommand.swift"), (library, "WebhookListener.swift"), (library, "DeliveryOutcome.swift"),
                              (folder, "DeliveryOutcome+Text.swift"), (folder, "ListenLog.swift"), (folder, "DeliveryInspection.swift")] {
            let source = try String(contentsOf: place.appendingPathComponent(file), encoding: .utf8)
            found += Self.argumentReads(in: source, file: file)
        }
        XCTAssertEqual(found, [], "\n" + found.joined(separator: "\n"))
        let plan = try String(contentsOf: folder.appendingPathComponent("WebhookListenPlan.swift"), encoding: .utf8)
        XCTAssertFalse(Self.argumentReads(in: plan, file: "WebhookListenPlan.swift").isEmpty, "the plan is where they are read")
    }

    func testAPlantedReadIsFound() {
        let planted = "let json = invocation.arguments[WebhookListenFlags.json]\n// arguments in a comment\nstatic let flags = WebhookListenFlags.all\nlet t = WebhookListenFlags.forwardTo\n"
        XCTAssertEqual(Self.argumentReads(in: planted, file: "planted.swift").count, 2)
    }
}
