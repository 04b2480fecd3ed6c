import Foundation
import LoopbackHTTPServer
import TestSupport
import XCTest

/// A model-based test of `api serve` as a dev server (issue 50): a seeded random sequence of
/// overrides set and cleared, refetches, edits of the live bundle (a variant removed and
/// restored, the onboarding flows removed and restored, the version lowered and raised),
/// restarts and SIGKILLs, against the real process; after every step:
///
/// - the served bundle passes `bundle validate`;
/// - served versions strictly rise when the bytes change, and one version never has two bodies
///   (across restarts and kills too);
/// - the state file loads (a restart on it serves) and holds every acknowledged override;
/// - `bucket -` over 10,000 users gives every forced, non-stale variant, to every user;
/// - the overrides listed are the model's, stale exactly where the source lacks what they name.
///
/// The seed is printed (random locally, 739757054 under CI); `APPDNA_MODEL_SEED=N` replays one
/// sequence, `APPDNA_MODEL_STEPS=N` sets its length.
final class DevServerModelEndToEndTests: XCTestCase {
    var scratch: ScratchDirectory!

    override func setUpWithError() throws {
        scratch = try ScratchDirectory("dev-server-model")
        addTeardownBlock { [scratch] in scratch?.remove() }
        _ = try requireTool("curl", because: "the served bundle and the inspector's API are fetched with curl")
    }

    /// SplitMix64: the same sequence for the same seed on every platform.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
    }

    /// The live bundle the model edits.
    struct Source {
        var version = 40
        var hasB = true
        var hasFlows = true

        var text: String {
            let e1 = hasB ? #"[{"id": "a", "weight": 0.4}, {"id": "b", "weight": 0.3}, {"id": "c", "weight": 0.3}]"#
                          : #"[{"id": "a", "weight": 0.5}, {"id": "c", "weight": 0.5}]"#
            let onboarding = hasFlows ? #"{"active_flow_id": "fa", "flows": {"fa": {}, "fb": {}}}"# : "{}"
            return #"{"bundle_version": \#(version), "experiments": {"experiments": {"#
                + #""e1": {"status": "running", "salt": "s1", "targeting": {"countries": ["US"]}, "variants": \#(e1)},"#
                + #""e2": {"status": "paused", "salt": "s2", "variants": [{"id": "x", "weight": 0.5}, {"id": "y", "weight": 0.5}]}}},"#
                + #""remote_config": {"f1": false, "greeting": "hi"}, "onboarding": \#(onboarding)}"#
        }

        /// Whether the override kind:key=value names what this source has.
        func has(_ kind: String, _ key: String, _ value: String) -> Bool {
            switch kind {
            case "experiment": return key == "e2" || value != "\"b\"" || hasB
            case "onboarding": return hasFlows
            default: return true
            }
        }
    }

    /// GET `path` on 127.0.0.1:`port` in this process (the checks run after every step: a
    /// curl process each would take most of the test's time): status and body.
    func get(_ port: Int, _ path: String) -> (status: Int, body: Data) {
        let request = "GET \(path) HTTP/1.0\r\nHost: 127.0.0.1:\(port)\r\nx-api-key: k\r\nConnection: close\r\n\r\n"
        guard let answer = WebhookListenFuzzEndToEndTests.exchange(Array(request.utf8), port: port, seconds: 30),
              let split = answer.indices.first(where: { answer[$0...].starts(with: [13, 10, 13, 10]) }), answer.count >= 12 else { return (0, Data()) }
        return (Int(String(decoding: answer[9..<12], as: UTF8.self)) ?? 0, Data(answer[(split + 4)...]))
    }

    func testARandomSequenceKeepsEveryInvariant() throws {
        // A new sequence on every local run (each has found what a fixed one would not: seed
        // 445857098 found a restart serving a lower version); under CI one known sequence, so a
        // submission is judged on the same steps each time. Any seed replays with the variable.
        let variables = ProcessInfo.processInfo.environment
        let ci = !["", "0", "false"].contains(variables["CI"] ?? "")
        let seed = variables["APPDNA_MODEL_SEED"].flatMap { UInt64($0) } ?? (ci ? 739757054 : UInt64.random(in: 1...UInt64(UInt32.max)))
        let steps = ProcessInfo.processInfo.environment["APPDNA_MODEL_STEPS"].flatMap { Int($0) }.map { min(max($0, 1), 2_000) } ?? 200
        print("DevServerModelEndToEndTests: seed \(seed), \(steps) steps (APPDNA_MODEL_SEED=\(seed) replays it)")
        var random = Random(state: seed)
        var source = Source()
        let upstream = LiveUpstream(source.text)
        let api = try LoopbackHTTPServer { request, _ in upstream.answer(request) }
        defer { api.stop() }
        let environment = ["APPDNA_SDK_KEY": "adn_test_devserver000000000000001", "APPDNA_API_URL": api.baseURL]
        let state = scratch.path + "/state.json"
        func start() throws -> InspectedProcess {
            try InspectedProcess(["api", "serve", "--bundle", "@remote", "--state", state], in: scratch.url, environment: environment)
        }
        var server = try start()
        defer { server.stop() }
        var token = try inspectorToken(server.inspector, in: scratch.url)
        /// The live bundle as the server last fetched it, and the overrides acknowledged (kind, key) → value JSON.
        var adopted = source
        var model: [String: (kind: String, key: String, value: String)] = [:]
        var bodies: [Int: Data] = [:]
        var lastVersion = 0
        var lastBody = Data()
        var checked = Set<Data>()
        var bucketed = Set<Data>()

        let targets: [(String, String, [String])] = [
            ("experiment", "e1", [#""a""#, #""b""#, #""c""#]), ("experiment", "e2", [#""x""#, #""y""#]),
            ("flag", "f1", ["true", "false"]), ("config", "greeting", [#""hello""#, "12345678901234567890123456789", "[1,2]"]),
            ("onboarding", "flow", [#""fa""#, #""fb""#]),
        ]
        var spent: [String: (count: Int, seconds: Double)] = [:]
        defer { print("DevServerModelEndToEndTests: time per kind of step: " + spent.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.count)× \(String(format: "%.2f", $0.value.seconds))s" }.joined(separator: ", ")) }
        for step in 1...steps {
            var action = ""
            let began = Date()
            switch random.below(10) {
            case 0, 1, 2:
                let (kind, key, values) = random.pick(targets)
                let value = random.pick(values)
                action = "set \(kind):\(key)=\(value)"
                let answer = try curl(server.inspector + "/api/overrides/\(kind)/\(key)",
                                      ["-X", "PUT", "-H", "X-AppDNA-Inspector-Token: \(token)", "--data-binary", #"{"value": \#(value)}"#], in: scratch.url)
                if adopted.has(kind, key, value) {
                    XCTAssertEqual(answer.status, 200, "step \(step) \(action): \(answer.text)")
                    if answer.status == 200 { model["\(kind)/\(key)"] = (kind, key, value) }
                } else {
                    XCTAssertEqual(answer.status, 409, "step \(step) \(action): refused (409: a conflict with the bundle served), the source lacks it: \(answer.text)")
                }
            case 3:
                let (kind, key, _) = random.pick(targets)
                action = "clear \(kind):\(key)"
                let answer = try curl(server.inspector + "/api/overrides/\(kind)/\(key)", ["-X", "DELETE", "-H", "X-AppDNA-Inspector-Token: \(token)"], in: scratch.url)
                XCTAssertEqual(answer.status, model["\(kind)/\(key)"] == nil ? 404 : 200, "step \(step) \(action): \(answer.text)")
                if answer.status == 200 { model["\(kind)/\(key)"] = nil }
            case 4, 5:
                switch random.below(3) {
                case 0: source.hasB.toggle()
                case 1: source.hasFlows.toggle()
                default: source.version = max(1, source.version + random.pick([-7, -2, 3, 5]))
                }
                upstream.body = source.text
                action = "edit the live bundle (b \(source.hasB), flows \(source.hasFlows), version \(source.version))"
            case 6, 7:
                action = "refetch"
                let answer = try curl(server.inspector + "/api/bundle/refetch", ["-X", "POST", "-H", "X-AppDNA-Inspector-Token: \(token)"], in: scratch.url)
                XCTAssertEqual(answer.status, 200, "step \(step) \(action): \(answer.text)")
                adopted = source
            case 8:
                action = "restart"
                XCTAssertEqual(server.stop(), 0, "step \(step): \(server.stderr)")
                server = try start()
                token = try inspectorToken(server.inspector, in: scratch.url)
                adopted = source
            default:
                action = "kill -9 and start"
                kill(server.process.processIdentifier, SIGKILL)
                server.process.waitUntilExit()
                server = try start()
                token = try inspectorToken(server.inspector, in: scratch.url)
                adopted = source
            }
            let context = "step \(step) of seed \(seed), after \(action)"
            let kind = String(action.prefix { $0 != " " && $0 != ":" })
            let acted = Date()
            defer {
                spent[kind, default: (0, 0)].count += 1
                spent[kind, default: (0, 0)].seconds += acted.timeIntervalSince(began)
                spent["(checks)", default: (0, 0)].count += 1
                spent["(checks)", default: (0, 0)].seconds += Date().timeIntervalSince(acted)
            }

            // The served bundle: valid, its version never back, one body per version.
            let served = get(server.listenerPort, "/api/v1/sdk/config-bundle")
            XCTAssertEqual(served.status, 200, "\(context): \(String(decoding: served.body, as: UTF8.self))")
            let version = try XCTUnwrap((try? JSONSerialization.jsonObject(with: served.body) as? [String: Any])?["bundle_version"] as? Int, context)
            if served.body != lastBody { XCTAssertGreaterThan(version, lastVersion, "\(context): new bytes, a higher version") }
            XCTAssertGreaterThanOrEqual(version, lastVersion, "\(context): the version went back")
            if let earlier = bodies[version] { XCTAssertEqual(earlier, served.body, "\(context): bundle_version \(version) with two bodies") }
            bodies[version] = served.body
            (lastVersion, lastBody) = (version, served.body)
            // validate and bucket are functions of the bytes (and of what is forced): bytes
            // already checked with the same forced variants are not checked again.
            let forced = model.values.filter { $0.kind == "experiment" && adopted.has($0.kind, $0.key, $0.value) }
            let checkKey = served.body + Data(forced.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: ",").utf8)
            let path = try scratch.file("served.json", Array(served.body))
            if !checked.contains(checkKey) {
                checked.insert(checkKey)
                let validated = try Binary.run(["bundle", "validate", path])
                XCTAssertEqual(validated.status, 0, "\(context): \(validated.text)")
            }

            // The overrides listed are the model's, stale where the source lacks what they name.
            let listed = get(server.inspectorPort, "/api/overrides")
            XCTAssertEqual(listed.status, 200, context)
            var seen: [String: (value: String, stale: Bool)] = [:]
            for item in (try? JSONSerialization.jsonObject(with: listed.body) as? [String: Any])?["overrides"] as? [[String: Any]] ?? [] {
                seen["\(item["kind"] as? String ?? "")/\(item["key"] as? String ?? "")"] = (item["value_json"] as? String ?? "", item["stale"] as? Bool ?? false)
            }
            XCTAssertEqual(Set(seen.keys), Set(model.keys), "\(context): nothing acknowledged is lost, nothing else is kept")
            for (name, item) in model {
                XCTAssertEqual(seen[name]?.value, item.value, "\(context): \(name)")
                XCTAssertEqual(seen[name]?.stale, !adopted.has(item.kind, item.key, item.value), "\(context): \(name) stale")
            }

            // The state file loads: format 1, the same overrides.
            if FileManager.default.fileExists(atPath: state) {
                let saved = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: state))) as? [String: Any], context)
                XCTAssertEqual(saved["format"] as? Int, 1)
                XCTAssertEqual((saved["overrides"] as? [Any])?.count, model.count, context)
            } else {
                XCTAssertTrue(model.isEmpty, "\(context): overrides acknowledged, no state file")
            }

            // Every forced, non-stale variant is what every one of 10,000 users gets.
            if !forced.isEmpty && !bucketed.contains(checkKey) {
                bucketed.insert(checkKey)
                let bucket = try Binary.run(["bucket", "-", "--bundle", path, "--format", "ndjson"], stdin: DevServerEndToEndTests.users)
                XCTAssertEqual(bucket.status, 0, "\(context): \(bucket.stderr)")
                for item in forced {
                    let variant = item.value.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                    var rows = 0
                    for line in bucket.text.split(separator: "\n") where line.contains(#""experiment":"\#(item.key)""#) {
                        rows += 1
                        XCTAssertTrue(line.contains(#""variant":"\#(variant)""#), "\(context): \(item.key) forced to \(variant): \(line)")
                        if !line.contains(#""variant":"\#(variant)""#) { break }
                    }
                    XCTAssertEqual(rows, 10_000, "\(context): \(item.key)")
                }
            }
            if testRun?.failureCount ?? 0 > 0 { break }
        }
    }
}
