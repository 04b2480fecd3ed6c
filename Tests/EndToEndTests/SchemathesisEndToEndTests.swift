import Foundation
import LoopbackHTTPServer
import TestSupport
import XCTest

/// An outside fuzzer that gets past the door: schemathesis (PyPI) runs every phase (examples,
/// coverage, fuzzing, stateful) with every check (`--checks all`: no 5xx, answers conform to the
/// description and their schemas, valid requests accepted, invalid ones refused, unknown methods
/// 405, guards enforced) against `webhook listen --inspect` and `api serve --inspect` as real
/// processes, from the committed descriptions in docs/openapi/, with the inspector's token and
/// the API key. Bounded: `--max-examples 10` and `--max-time 20` per server. 0 failures.
///
/// The OpenAPI descriptions themselves are checked by `openapi-spec-validator` (PyPI).
/// Both tools come from scripts/install-test-tools: a skip locally without them, a failure under CI.
final class SchemathesisEndToEndTests: XCTestCase {
    static let key = "adn_test_schemathesis0000000001"
    static let descriptions = repositoryRoot.appendingPathComponent("docs/openapi")
    var scratch: ScratchDirectory!

    override func setUpWithError() throws {
        scratch = try ScratchDirectory("schemathesis")
        addTeardownBlock { [scratch] in scratch?.remove() }
    }

    func testTheDescriptionsAreValidOpenAPI() throws {
        let validator = try requireTool("openapi-spec-validator", because: "the generated OpenAPI descriptions are checked by an independent validator")
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.descriptions.path).filter { $0.hasSuffix(".json") }.sorted()
        XCTAssertEqual(files, ["api-serve-inspector.json", "api-serve.json", "webhook-listen-inspector.json", "webhook-listen.json"])
        for file in files {
            let result = try ProcessRunner.run(validator, [Self.descriptions.appendingPathComponent(file).path], environment: nil)
            XCTAssertEqual(result.status, 0, "\(file): \(result.stdout)\(result.stderr)")
        }
    }

    /// One schemathesis run against `url` from the committed `description`; its output.
    func schemathesis(_ description: String, url: String, headers: [String]) throws -> String {
        let tool = try requireTool("schemathesis", because: "the servers are fuzzed from their OpenAPI descriptions by schemathesis")
        var arguments = ["run", Self.descriptions.appendingPathComponent(description).path, "--url", url,
                         "--checks", "all", "--phases", "examples,coverage,fuzzing,stateful",
                         "--max-examples", "10", "--max-time", "20", "--seed", "1", "--request-timeout", "10",
                         "--output-truncate", "false", "--no-color"]
        for header in headers { arguments += ["-H", header] }
        // In the scratch directory: its .hypothesis database stays there.
        let result = try ProcessRunner.run(tool, arguments, environment: nil, currentDirectory: scratch.path)
        let output = result.stdout + result.stderr
        XCTAssertEqual(result.status, 0, "schemathesis against \(description) (\(url)) found failures:\n\(output)")
        XCTAssertFalse(output.contains("failure"), output)
        return output
    }

    func testAPIServeAndItsInspectorPassEveryCheck() throws {
        let bundle = try scratch.file("bundle.json", Array("""
            {"bundle_version": 1, "experiments": {"exp_a": {"id": "exp_a", "status": "running", "salt": "s",
             "variants": [{"id": "control", "weight": 0.5}, {"id": "b", "weight": 0.5}]}}}

            """.utf8))
        let keyFile = try scratch.file("key", Array(Self.key.utf8))
        let served = try InspectedProcess(["api", "serve", "--bundle", bundle, "--key-file", keyFile, "--state", scratch.path + "/state.json"],
                                          in: scratch.url)
        defer { served.stop() }
        // An entry for the inspector to show.
        XCTAssertEqual(try curl(served.listener + "/api/v1/sdk/config-bundle/version", ["-H", "x-api-key: \(Self.key)"], in: scratch.url).status, 200)
        let token = try inspectorToken(served.inspector, in: scratch.url)
        XCTAssertFalse(token.isEmpty)
        _ = try schemathesis("api-serve.json", url: served.listener, headers: ["x-api-key: \(Self.key)"])
        _ = try schemathesis("api-serve-inspector.json", url: served.inspector, headers: ["X-AppDNA-Inspector-Token: \(token)"])
        XCTAssertTrue(served.process.isRunning, "api serve died under the fuzzer: \(served.stderr)")
        // What the inspector serves is the committed description.
        let servedDescription = try curl(served.inspector + "/api/openapi.json", in: scratch.url).body
        let committed = try Data(contentsOf: Self.descriptions.appendingPathComponent("api-serve-inspector.json"))
        XCTAssertEqual(servedDescription, committed)
        XCTAssertEqual(try curl(served.inspector + "/api/listener-openapi.json", in: scratch.url).body,
                       try Data(contentsOf: Self.descriptions.appendingPathComponent("api-serve.json")))
    }

    func testWebhookListenAndItsInspectorPassEveryCheck() throws {
        let handler = try LoopbackHTTPServer { _, _ in .init(status: 200, headers: [("Content-Type", "text/plain")], body: Array("handled".utf8)) }
        defer { handler.stop() }
        let secret = try scratch.file("secret", Array("whsec_schemathesis".utf8))
        let listening = try InspectedProcess(["webhook", "listen", "--secret-file", secret, "--forward-to", handler.baseURL + "/hooks",
                                              "--record", scratch.path + "/deliveries.ndjson"], in: scratch.url)
        defer { listening.stop() }
        // A delivery for the inspector to show, record and replay.
        try sendDelivery(Data(#"{"id":"evt_st","type":"subscription.renewed"}"#.utf8), to: listening.listener + "/hooks", secretPath: secret, in: scratch.url)
        let token = try inspectorToken(listening.inspector, in: scratch.url)
        XCTAssertFalse(token.isEmpty)
        _ = try schemathesis("webhook-listen.json", url: listening.listener, headers: [])
        _ = try schemathesis("webhook-listen-inspector.json", url: listening.inspector, headers: ["X-AppDNA-Inspector-Token: \(token)"])
        XCTAssertTrue(listening.process.isRunning, "webhook listen died under the fuzzer: \(listening.stderr)")
        XCTAssertEqual(try curl(listening.inspector + "/api/openapi.json", in: scratch.url).body,
                       try Data(contentsOf: Self.descriptions.appendingPathComponent("webhook-listen-inspector.json")))
    }
}
