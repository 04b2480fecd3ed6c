import Foundation
import LoopbackHTTPServer
import XCTest
import TestSupport

/// Every `--json` output matches its schema in docs/schemas/ (draft 2020-12), checked by an
/// independent validator (Python's `jsonschema`): each command is run as a user runs it (on a
/// scratch copy of examples/, against `appdna api serve` and a real `webhook listen`), and a
/// field its schema does not describe fails the test (the schemas allow no other field).
final class JSONSchemaEndToEndTests: XCTestCase {
    static let schemas = repositoryRoot.appendingPathComponent("docs/schemas")

    /// One output to check: which schema, what the command printed, and whether it is one JSON
    /// document or one per line.
    struct Output {
        let schema: String
        let command: String
        let text: String
        var lines = false
    }

    var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-schemas-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: repositoryRoot.appendingPathComponent("examples"), to: scratch.appendingPathComponent("examples"))
        addTeardownBlock { [scratch] in try? FileManager.default.removeItem(at: scratch!) }
    }

    /// The docs/schemas files the OpenAPI descriptions reference (`"$ref": "../schemas/FILE"`).
    static func openAPIReferenced() throws -> Set<String> {
        let folder = repositoryRoot.appendingPathComponent("docs/openapi")
        var referenced = Set<String>()
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".json") {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for part in text.components(separatedBy: "\"../schemas/").dropFirst() {
                referenced.insert(String(part.prefix { $0 != "\"" }))
            }
        }
        return referenced
    }

    func testEveryCommandsJSONMatchesItsSchema() throws {
        let python = try Self.requireValidator()
        let outputs = try collectOutputs()
        let result = try validate(outputs, python: python)
        XCTAssertEqual(result.status, 0, result.output)
        // Every schema is exercised: a schema no command's output is checked against proves nothing.
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.schemas.path).filter { $0.hasSuffix(".schema.json") }
        // The servers' bodies and answers referenced by docs/openapi/ are exercised by
        // SchemathesisEndToEndTests (requests generated from them, answers checked against them).
        XCTAssertEqual(Set(outputs.map { $0.schema + ".schema.json" }).union(try Self.openAPIReferenced()), Set(files))
        // …and listed in docs/json.md, where users look for them.
        let guide = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/json.md"), encoding: .utf8)
        for file in files {
            XCTAssertTrue(guide.contains("(schemas/\(file))"), "docs/json.md does not link \(file)")
        }
    }

    /// A field the schema does not describe fails, at the top and deep inside; so does a
    /// documented field of the wrong type.
    func testAPlantedUndocumentedFieldFailsValidation() throws {
        let python = try Self.requireValidator()
        let single = try run(["bucket", "user-123", "paywall-price", "--bundle", "examples/experiments/appdna-config.json", "--json"])
        var top = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(single.utf8)) as? [String: Any])
        XCTAssertEqual(try validate([Output(schema: "bucket", command: "as printed", text: single)], python: python).status, 0)

        top["planted_undocumented_field"] = 1
        let planted = try validate([Output(schema: "bucket", command: "planted at the top", text: Self.text(top))], python: python)
        XCTAssertEqual(planted.status, 1, planted.output)
        XCTAssertTrue(planted.output.contains("planted_undocumented_field"), planted.output)

        top.removeValue(forKey: "planted_undocumented_field")
        var rules = try XCTUnwrap(top["rules"] as? [[String: Any]])
        rules[0]["planted_in_a_rule"] = true
        top["rules"] = rules
        let deep = try validate([Output(schema: "bucket", command: "planted in a rule", text: Self.text(top))], python: python)
        XCTAssertEqual(deep.status, 1, deep.output)
        XCTAssertTrue(deep.output.contains("planted_in_a_rule"), deep.output)

        top["rules"] = [[String: Any]]()
        top["bucket"] = "5791"
        let wrongType = try validate([Output(schema: "bucket", command: "bucket as a string", text: Self.text(top))], python: python)
        XCTAssertEqual(wrongType.status, 1, wrongType.output)
    }

    static func text(_ object: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    // MARK: - Running the commands

    /// Runs appdna in the scratch directory; its stdout.
    func run(_ arguments: [String], stdin: String = "", environment: [String: String] = [:]) throws -> String {
        let process = Process()
        process.executableURL = Binary.url
        process.arguments = arguments
        process.environment = ["PATH": "/usr/bin:/bin"].merging(environment) { $1 }
        process.currentDirectoryURL = scratch
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    func collectOutputs() throws -> [Output] {
        var outputs: [Output] = []
        func add(_ schema: String, _ arguments: [String], stdin: String = "", environment: [String: String] = [:], lines: Bool = false) throws {
            let text = try run(arguments, stdin: stdin, environment: environment)
            XCTAssertFalse(text.isEmpty, "appdna \(arguments.joined(separator: " ")) printed nothing")
            outputs.append(Output(schema: schema, command: "appdna " + arguments.joined(separator: " "), text: text, lines: lines))
        }
        let bundle = "examples/experiments/appdna-config.json"
        let users = (1...300).map { "user-\($0)\n" }.joined()

        // bucket, in every form.
        try add("bucket", ["bucket", "user_12345", "exp_paywall_v3", "a8f3c9d2", "--variants", "control=0.5,variant_b=0.5", "--json"])
        try add("bucket", ["bucket", "café", "paywall_test", "s1", "--variants", "a=0.57,b=0.43", "--explain", "--json"])
        try add("bucket", ["bucket", "u", "e", " ", "--variants", "a=0.5,b=0.5", "--scheme", "docs", "--explain", "--json"])
        try add("bucket", ["bucket", "u", "e", "s", "--json"])
        try add("bucket", ["bucket", "user-123", "paywall-price", "--bundle", bundle, "--platform", "ios", "--explain", "--json"])
        try add("bucket", ["bucket", "user-123", "pro-upsell", "--bundle", bundle, "--platform", "ios", "--country", "FR", "--app-version", "2.5", "--json"])
        try add("bucket-all", ["bucket", "user-123", "--bundle", bundle, "--json"])
        try add("bucket-all", ["bucket", "user-123", "--bundle", bundle, "--platform", "android", "--country", "US", "--app-version", "3",
                               "--installed-at", "2026-01-01T00:00:00Z", "--trait", "plan=pro", "--json"])
        try add("bucket-batch", ["bucket", "-", "exp", "s", "--variants", "a=0.5,b=0.5", "--format", "ndjson"], stdin: users, lines: true)
        try add("bucket-batch", ["bucket", "-", "exp", "s", "--format", "ndjson"], stdin: users, lines: true)
        try add("bucket-batch", ["bucket", "-", "--bundle", bundle, "--format", "ndjson"], stdin: users, lines: true)
        try add("bucket-batch", ["bucket", "-", "paywall-price", "--bundle", bundle, "--country", "US", "--format", "ndjson"], stdin: users, lines: true)
        try add("bucket-summary", ["bucket", "-", "exp", "s", "--variants", "a=0.5,b=0.5", "--summary", "--json"], stdin: users + users)
        try add("bucket-summary", ["bucket", "-", "paywall-price", "--bundle", bundle, "--summary", "--json"], stdin: users)
        try add("bucket-find", ["bucket", "--find", "b", "--count", "3", "exp", "s", "--variants", "a=0.5,b=0.5", "--json"])
        try add("bucket-force", ["bucket", "--force-variant", "onboarding=bold", "--force-variant", "paywall=annual_first", "--bundle", "examples/device-variants/appdna-config.json",
                                 "--platform", "ios", "--country", "US", "--app-version", "2.4", "--trait", "plan=pro", "--json"])
        try add("bucket-self-test", ["bucket", "--self-test", "--json"])
        try add("bucket-vectors", ["bucket", "--vectors", "--count", "5", "--seed", "7"])

        // bundle validate and diff (--json and --format json).
        try FileManager.default.createDirectory(at: scratch.appendingPathComponent("bad"), withIntermediateDirectories: true)
        try Data(#"{"bundle_version": "1", "experiments": {"e": {"variants": []}}}"#.utf8).write(to: scratch.appendingPathComponent("bad/bundle.json"))
        try add("bundle-validate", ["bundle", "validate", "--json", "examples/bundles/appdna-config.json"])
        try add("bundle-validate", ["bundle", "validate", "--format", "json", "--strict", "bad/bundle.json", "missing.json", bundle])
        try add("bundle-diff", ["bundle", "diff", "--json", "examples/bundles/old.json", "examples/bundles/new.json"])
        try add("bundle-diff", ["bundle", "diff", "--format", "json", bundle, "examples/experiments/appdna-config-next.json"])
        try add("bundle-diff", ["bundle", "diff", "--json", "examples/experiments/appdna-config-next.json", bundle])
        try add("bundle-diff", ["bundle", "diff", "--json", bundle, bundle])
        try add("bundle-diff", ["bundle", "diff", "--json", "--fail-on-switch", "10", bundle, "examples/experiments/appdna-config-next.json"])
        try Data(#"{"bundle_version": 1, "list": [{"id": "a"}, {"id": "b"}, {"id": "c"}]}"#.utf8).write(to: scratch.appendingPathComponent("bad/list-old.json"))
        try Data(#"{"bundle_version": 2, "list": [{"id": "b"}, {"id": "c"}, {"id": "a"}]}"#.utf8).write(to: scratch.appendingPathComponent("bad/list-new.json"))
        try add("bundle-diff", ["bundle", "diff", "--json", "bad/list-old.json", "bad/list-new.json"])

        // queue inspect.
        try add("queue-inspect", ["queue", "inspect", "examples/queues/pending_events.json", "--now", "2026-02-20T10:00:00Z", "--json"])
        try add("queue-inspect", ["queue", "inspect", "examples/experiments/pending_events.json", "--bundle", bundle, "--json"])
        try add("queue-inspect", ["queue", "inspect", "examples", "--json"])
        try add("queue-inspect-events", ["queue", "inspect", "examples/queues/pending_events.json", "--events", "--json"], lines: true)

        // webhook verify and sign.
        let secret = ["--secret-file", "examples/webhook/secret.txt"]
        try add("webhook-verify", ["webhook", "verify", "--request", "examples/webhook/delivery.http", "--json"] + secret)
        try add("webhook-verify", ["webhook", "verify", "--request", "examples/webhook/tampered.http", "--explain", "--json"] + secret)
        try add("webhook-verify", ["webhook", "verify", "examples/webhook/reserialised.json", "--explain", "--json",
                                   "--signature", "sha256=c79f194d7d9041535e7f31716634fea8d2a82e16af67296aea724d1273cf190a"] + secret)
        try add("webhook-verify", ["webhook", "verify", "examples/webhook/saved.json", "--json", "--secret-file", "examples/webhook-secret.txt",
                                   "--signature", "sha256=c79f194d7d9041535e7f31716634fea8d2a82e16af67296aea724d1273cf190a"] + secret)
        try add("webhook-verify", ["webhook", "verify", "examples/webhook/delivery.http", "--json",
                                   "--signature", "sha256=c79f194d7d9041535e7f31716634fea8d2a82e16af67296aea724d1273cf190a"] + secret)
        try add("webhook-sign", ["webhook", "sign", "examples/webhook/body.json", "--json"] + secret)
        try add("webhook-trigger-list", ["webhook", "trigger", "--list", "--json"])

        // The API: fetch, --check, replay, and api serve's own log.
        let key = "adn_test_schema00000000000000001"
        let server = try APIServeProcess(["--bundle", "examples/bundles/appdna-config.json", "--json"], directory: scratch)
        let api = ["APPDNA_SDK_KEY": key, "APPDNA_API_URL": server.baseURL]
        try add("bundle-fetch", ["bundle", "fetch", "-o", "fetched.json", "--json"], environment: api)
        try add("bundle-fetch", ["bundle", "fetch", "-o", "fetched.json", "--json"], environment: api)
        try add("bundle-fetch", ["bundle", "fetch", "--raw", "--force", "-o", "raw.json", "--json"], environment: api)
        try add("bundle-fetch", ["bundle", "fetch", "--check", "-o", "fetched.json", "--json"], environment: api)
        try add("bundle-fetch", ["bundle", "fetch", "--check", "-o", "missing.json", "--json"], environment: api)
        try add("queue-replay", ["queue", "replay", "examples/replay/pending_events.json", "--dry-run", "--now", "2026-02-19T10:00:00Z", "--json"],
                environment: api)
        try add("queue-replay", ["queue", "replay", "examples/replay/pending_events.json", "--yes", "--now", "2026-02-19T10:00:00Z", "--json"],
                environment: api)
        try add("queue-replay", ["queue", "replay", "examples/replay/pending_events.json", "--yes", "--now", "2026-02-19T10:00:00Z", "--json"],
                environment: api)
        try add("webhook-trigger", ["webhook", "trigger", "payment.completed", "--to", server.baseURL + "/hooks", "--json"] + secret)
        XCTAssertEqual(server.stop(), 0, server.stderr)
        outputs.append(Output(schema: "api-serve", command: "appdna api serve --json", text: server.requestLines.joined(separator: "\n") + "\n", lines: true))

        // api serve --bootstrap live: the live bootstrap it passes on (a fake live API answers it).
        let upstream = try LoopbackHTTPServer { _, _ in .init(json: DeviceVariantsEndToEndTests.liveBootstrap) }
        defer { upstream.stop() }
        let live = try APIServeProcess(["--bundle", "examples/bundles/appdna-config.json", "--bootstrap", "live"],
                                       environment: ["APPDNA_SDK_KEY": key, "APPDNA_API_URL": upstream.baseURL], directory: scratch)
        let bootstrap = try ProcessRunner.run(try requireTool("curl", because: "fetches the bootstrap"),
                                              ["-s", "-H", "x-api-key: device", live.baseURL + "/api/v1/sdk/bootstrap"], environment: [:])
        XCTAssertEqual(live.stop(), 0, live.stderr)
        outputs.append(Output(schema: "sdk-bootstrap", command: "curl /api/v1/sdk/bootstrap (api serve --bootstrap live)", text: bootstrap.stdout))

        // webhook listen: a valid delivery (forwarded to a handler that is down), an invalid one,
        // and a refused request; the deliveries come from webhook trigger, whose reports are
        // checked too.
        let listener = try APIServeProcess(["--max-body", "1KiB", "--forward-to", "http://127.0.0.1:9/handler", "--json"] + secret,
                                           directory: scratch, command: ["webhook", "listen"])
        let hook = listener.baseURL + "/webhooks"
        try add("webhook-trigger", ["webhook", "trigger", "subscription.renewed", "--to", hook, "--json"] + secret)
        try add("webhook-trigger", ["webhook", "trigger", "user.created", "--to", hook, "--json", "--secret-file", "examples/webhook-secret.txt"])
        try Data(repeating: UInt8(ascii: " "), count: 4096).write(to: scratch.appendingPathComponent("big.json"))
        try add("webhook-trigger", ["webhook", "trigger", "user.created", "--to", hook, "--body", "big.json", "--json"] + secret)
        XCTAssertEqual(listener.stop(), 0, listener.stderr)
        outputs.append(Output(schema: "webhook-listen", command: "appdna webhook listen --json", text: listener.requestLines.joined(separator: "\n") + "\n", lines: true))
        return outputs + (try inspectorOutputs(secret: secret))
    }

    /// The inspector's JSON API (`webhook listen --inspect`, `api serve --inspect`): the lists,
    /// an entry of each kind in full, and a replay's answer.
    func inspectorOutputs(secret: [String]) throws -> [Output] {
        var outputs: [Output] = []
        func get(_ schema: String, _ url: String, _ arguments: [String] = []) throws {
            let answer = try curl(url, arguments, in: scratch)
            XCTAssertEqual(answer.status, 200, "\(url): \(answer.text)")
            outputs.append(Output(schema: schema, command: "curl \(arguments.joined(separator: " ")) \(url)", text: answer.text))
        }
        let handler = try LoopbackHTTPServer { _, _ in .init(status: 200, json: #"{"handled":true}"#) }
        defer { handler.stop() }
        let listener = try InspectedProcess(["webhook", "listen", "--forward-to", handler.baseURL + "/hooks"] + secret, in: scratch)
        defer { listener.stop() }
        let hook = listener.listener + "/webhooks"
        _ = try run(["webhook", "trigger", "payment.completed", "--to", hook] + secret)
        _ = try run(["webhook", "trigger", "user.created", "--to", hook, "--secret-file", "examples/webhook-secret.txt"])
        try Data([0xFF, 0x00, 0x80, 0x7B]).write(to: scratch.appendingPathComponent("binary.bin"))
        _ = try run(["webhook", "trigger", "user.created", "--to", hook, "--body", "binary.bin"] + secret)
        try get("inspector-deliveries", listener.inspector + "/api/deliveries")
        try get("inspector-deliveries", listener.inspector + "/api/deliveries?after=2")
        let token = try inspectorToken(listener.inspector, in: scratch)
        try get("inspector-replay", listener.inspector + "/api/deliveries/1/replay", ["-X", "POST", "-H", "X-AppDNA-Inspector-Token: \(token)"])
        // Edit and replay: the same answer with what was changed.
        try get("inspector-replay", listener.inspector + "/api/deliveries/1/replay",
                ["-X", "POST", "-H", "X-AppDNA-Inspector-Token: \(token)", "-H", "Content-Type: application/json",
                 "--data-binary", #"{"body":"{\"id\":\"evt_edited\"}","headers":[["Content-Type","application/json"]],"signature":"resign"}"#])
        for id in 1...3 { try get("inspector-delivery", listener.inspector + "/api/deliveries/\(id)") }

        let server = try InspectedProcess(["api", "serve", "--bundle", "examples/bundles/appdna-config.json", "--fail", "503:1", "--fail-after", "1"],
                                          in: scratch)
        defer { server.stop() }
        let key = ["-H", "x-api-key: adn_test_schema"]
        _ = try curl(server.listener + "/api/v1/sdk/config-bundle", key, in: scratch)
        _ = try curl(server.listener + "/api/v1/sdk/config-bundle/version", key, in: scratch)
        let batch = try InspectorAPIEndToEndTests.deflatedBatch([1, 2, 1], in: scratch)
        _ = try curl(server.listener + "/api/v1/ingest/events", key + ["-H", "Content-Encoding: deflate", "--data-binary", "@" + batch], in: scratch)
        _ = try curl(server.listener + "/elsewhere", key, in: scratch)
        try get("inspector-requests", server.inspector + "/api/requests")
        for id in 1...4 { try get("inspector-request", server.inspector + "/api/requests/\(id)") }

        // The dev server: its overrides and served bundle, and an audited batch.
        let serverToken = try inspectorToken(server.inspector, in: scratch)
        try get("api-overrides", server.inspector + "/api/overrides/experiment/e",
                ["-X", "PUT", "-H", "X-AppDNA-Inspector-Token: \(serverToken)", "--data-binary", #"{"value": "b"}"#])
        try get("api-overrides", server.inspector + "/api/overrides/config/welcome",
                ["-X", "PUT", "-H", "X-AppDNA-Inspector-Token: \(serverToken)", "--data-binary", #"{"value": {"text": "Hi"}}"#])
        try get("api-overrides", server.inspector + "/api/overrides")
        try get("api-bundle", server.inspector + "/api/bundle")
        outputs.append(Output(schema: "api-overrides", command: "appdna api override list --json",
                              text: try run(["api", "override", "list", "--server", server.inspector, "--json"])))
        try get("api-overrides", server.inspector + "/api/overrides/config/welcome", ["-X", "DELETE", "-H", "X-AppDNA-Inspector-Token: \(serverToken)"])
        let exposures = #"{"batch":["# + DevServerEndToEndTests.exposureEvent(7, [("e", "b")], version: 3) + ","
            + DevServerEndToEndTests.exposureEvent(8, [("e", "control"), ("gone", "x")], version: 3) + "]}"
        _ = try curl(server.listener + "/api/v1/ingest/events", key + ["--data-binary", exposures], in: scratch)
        try get("inspector-requests", server.inspector + "/api/requests")
        try get("inspector-request", server.inspector + "/api/requests/5")
        return outputs
    }

    // MARK: - The validator

    /// python3 with `jsonschema` (scripts/install-test-tools installs it).
    static func requireValidator() throws -> String {
        try requirePythonModules(["jsonschema"], because: "validates every --json output against its schema")
    }

    /// Validates the outputs with Python's jsonschema; its status (0 all valid, 1 not) and report.
    /// The schemas themselves are checked too: valid draft 2020-12, every property described,
    /// every object closed (`additionalProperties: false`).
    func validate(_ outputs: [Output], python: String) throws -> (status: Int32, output: String) {
        var manifest: [[String: Any]] = []
        for (index, output) in outputs.enumerated() {
            let file = scratch.appendingPathComponent("output-\(index).json")
            try Data(output.text.utf8).write(to: file)
            manifest.append(["schema": Self.schemas.appendingPathComponent(output.schema + ".schema.json").path,
                             "file": file.path, "lines": output.lines, "command": output.command])
        }
        let manifestFile = scratch.appendingPathComponent("manifest.json")
        try JSONSerialization.data(withJSONObject: manifest).write(to: manifestFile)
        let result = try ProcessRunner.run(python, ["-c", Self.validator, manifestFile.path], environment: nil)
        return (result.status, result.stdout + result.stderr)
    }

    static let validator = #"""
import json, sys
from jsonschema import Draft202012Validator

problems = []

def check_schema_text(name, node, where):
    if isinstance(node, dict):
        if node.get("type") == "object" or "properties" in node:
            if node.get("additionalProperties") is not False and node.get("unevaluatedProperties") is not False:
                problems.append(f"{name}: {where}: an object that allows undescribed fields")
        for key, value in node.get("properties", {}).items():
            if not isinstance(value, dict) or not value.get("description"):
                problems.append(f"{name}: {where}/properties/{key}: no description")
        for key, value in node.items():
            check_schema_text(name, value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            check_schema_text(name, value, f"{where}/{index}")

validators = {}
for entry in json.load(open(sys.argv[1])):
    path = entry["schema"]
    if path not in validators:
        schema = json.load(open(path))
        if schema.get("$schema") != "https://json-schema.org/draft/2020-12/schema":
            problems.append(f"{path}: not a draft 2020-12 schema")
        Draft202012Validator.check_schema(schema)
        check_schema_text(path, schema, "#")
        validators[path] = Draft202012Validator(schema)
    text = open(entry["file"], encoding="utf-8").read()
    documents = [line for line in text.split("\n") if line] if entry["lines"] else [text]
    if not documents:
        problems.append(f"{entry['command']}: no output")
    for number, document in enumerate(documents, 1):
        where = f"{entry['command']} (line {number})" if entry["lines"] else entry["command"]
        try:
            instance = json.loads(document)
        except ValueError as error:
            problems.append(f"{where}: not JSON: {error}")
            continue
        for error in validators[path].iter_errors(instance):
            pointer = "/" + "/".join(str(part) for part in error.absolute_path)
            problems.append(f"{where}: {pointer}: {error.message} ({path.rsplit('/', 1)[-1]})")
for problem in problems:
    print(problem)
sys.exit(1 if problems else 0)
"""#
}
