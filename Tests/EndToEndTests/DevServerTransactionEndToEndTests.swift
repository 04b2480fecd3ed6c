import Foundation
import LoopbackHTTPServer
import TestSupport
import XCTest

/// `api serve` keeps a change only once it is proven (issue 50): a change the server cannot
/// serve or load back is refused and nothing changes; start-up checks every flag before it
/// writes; an override the source loses is stale, not applied; one server per state file; the
/// live bundle is fetched outside the lock and its version never goes back; one rule for keys;
/// values keep their exact JSON text.
final class DevServerTransactionEndToEndTests: XCTestCase {
    var scratch: ScratchDirectory!

    override func setUpWithError() throws {
        scratch = try ScratchDirectory("dev-server-transaction")
        addTeardownBlock { [scratch] in scratch?.remove() }
        _ = try requireTool("curl", because: "the served bundle and the inspector's API are fetched with curl")
    }

    var source: String { DevServerEndToEndTests.source }

    func put(_ server: InspectedProcess, _ kind: String, _ key: String, _ body: String, token: String) throws -> CurlExchange {
        try curl(server.inspector + "/api/overrides/\(kind)/\(key)",
                 ["-X", "PUT", "-H", "X-AppDNA-Inspector-Token: \(token)", "--data-binary", body], in: scratch.url)
    }

    /// The variants `bucket -` gives `experiment` in `bundle` over 10,000 users (both schemes).
    func variants(of experiment: String, in bundle: String) throws -> Set<String> {
        var seen = Set<String>()
        for context in [[], ["--scheme", "docs"]] {
            let result = try Binary.run(["bucket", "-", "--bundle", bundle, "--format", "ndjson"] + context, stdin: DevServerEndToEndTests.users)
            XCTAssertEqual(result.status, 0, result.stderr)
            for line in result.text.split(separator: "\n") where line.contains(#""experiment":"\#(experiment)""#) {
                let row = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                seen.insert(row["variant"] as? String ?? "none")
            }
        }
        return seen
    }

    func servedBundle(_ server: InspectedProcess) throws -> (path: String, version: Int) {
        let answer = try curl(server.listener + "/api/v1/sdk/config-bundle", ["-H", "x-api-key: k"], in: scratch.url)
        XCTAssertEqual(answer.status, 200, answer.text)
        let path = try scratch.file("served-\(UUID().uuidString).json", Array(answer.body))
        let validated = try Binary.run(["bundle", "validate", path])
        XCTAssertEqual(validated.status, 0, "the served bundle must pass bundle validate: \(validated.text) \(validated.stderr)")
        return (path, answer.json["bundle_version"] as? Int ?? -1)
    }

    /// A value nested 999 deep (the served bundle would not parse) or 998 deep (the state file
    /// would not load) is refused, and nothing is kept: not listed, not in the file, and a
    /// restart on the state starts.
    func testAnOverrideTheServerCouldNotServeOrLoadBackIsNotKept() throws {
        let bundle = try scratch.file("bundle.json", Array(source.utf8))
        let state = scratch.path + "/state.json"
        var server = try InspectedProcess(["api", "serve", "--bundle", bundle, "--state", state], in: scratch.url)
        defer { server.stop() }
        let token = try inspectorToken(server.inspector, in: scratch.url)
        for depth in [999, 998] {
            let deep = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            let answer = try put(server, "config", "deep", #"{"value": \#(deep)}"#, token: token)
            XCTAssertEqual(answer.status, 400, "depth \(depth): \(answer.text)")
            let listed = try curl(server.inspector + "/api/overrides", in: scratch.url)
            XCTAssertEqual(listed.status, 200, listed.text)
            XCTAssertEqual((listed.json["overrides"] as? [Any])?.count, 0, "depth \(depth): nothing kept")
            XCTAssertEqual(listed.json["bundle_version"] as? Int, 7)
            XCTAssertEqual(try servedBundle(server).version, 7)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: state), "no change, no state file")
        XCTAssertEqual(server.stop(), 0)
        server = try InspectedProcess(["api", "serve", "--bundle", bundle, "--state", state], in: scratch.url)
        XCTAssertEqual(try servedBundle(server).version, 7)
    }

    /// Every flag is checked before anything is written: a bad --fail after a good --override,
    /// or a bad second --override, leaves no state file (and no lock).
    func testStartUpChecksEveryFlagBeforeWritingAnything() throws {
        let bundle = try scratch.file("bundle.json", Array(source.utf8))
        let state = scratch.path + "/appdna-overrides.json"
        for (arguments, words) in [(["--override", "experiment:other=x", "--fail", "bogus"], "--fail"),
                                   (["--override", "experiment:other=x", "--override", "experiment:other=z"], "no variant 'z'")] {
            let result = try Binary.run(["api", "serve", "--bundle", bundle, "--port", "0", "--state", state] + arguments)
            XCTAssertEqual(result.status, 64, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(words), result.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: state), "\(arguments) wrote the state")
            XCTAssertFalse(FileManager.default.fileExists(atPath: state + ".lock"), "\(arguments) made a lock")
        }
        // A port in use (69): the start's override is not written either.
        let taken = try LoopbackHTTPServer { _, _ in .init(status: 404) }
        defer { taken.stop() }
        let busy = try Binary.run(["api", "serve", "--bundle", bundle, "--port", String(taken.port), "--state", state, "--override", "experiment:other=x"])
        XCTAssertEqual(busy.status, 69, busy.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: state), "a start that cannot listen wrote the state")
        XCTAssertFalse(FileManager.default.fileExists(atPath: state + ".lock"), "a start that cannot listen left its lock")
    }

    /// Force other=y, then edit the bundle so that `other` has x and z: the override is stale
    /// (kept, not applied, marked everywhere), the experiment is served as the source has it
    /// and passes validate; restored, the override applies again.
    func testAForcedVariantTheSourceLosesIsStaleAndAppliesAgainWhenItComesBack() throws {
        let bundle = try scratch.file("bundle.json", Array(source.utf8))
        let server = try InspectedProcess(["api", "serve", "--bundle", bundle, "--state", scratch.path + "/state.json",
                                           "--override", "experiment:other=y"], in: scratch.url)
        defer { server.stop() }
        XCTAssertEqual(try variants(of: "other", in: servedBundle(server).path), ["y"])

        _ = try scratch.file("bundle.json", Array(source.replacingOccurrences(of: #"{"id": "y", "weight": 0.5}"#, with: #"{"id": "z", "weight": 0.5}"#).utf8))
        let edited = try servedBundle(server)
        XCTAssertEqual(try variants(of: "other", in: edited.path), ["x", "z"], "served as the source has it, not zeroed")
        let listed = try curl(server.inspector + "/api/overrides", in: scratch.url).json
        let item = try XCTUnwrap((listed["overrides"] as? [[String: Any]])?.first)
        XCTAssertEqual(item["stale"] as? Bool, true)
        XCTAssertTrue((item["stale_reason"] as? String ?? "").contains("no variant 'y'"), "\(item)")
        let shown = try curl(server.inspector + "/api/bundle", in: scratch.url).json
        XCTAssertEqual((shown["stale"] as? [[String: Any]])?.count, 1)
        let experiment = (shown["experiments"] as? [[String: Any]])?.first { $0["key"] as? String == "other" }
        XCTAssertTrue(experiment?["overridden"] is NSNull, "a stale override is not shown as applied: \(String(describing: experiment))")
        let cli = try Binary.run(["api", "override", "list", "--server", server.inspector])
        XCTAssertTrue(cli.text.contains("experiment:other=y (stale: "), cli.text)
        XCTAssertTrue(server.stderr.contains("override experiment:other=y is stale (kept, not applied)"), server.stderr)

        _ = try scratch.file("bundle.json", Array(source.utf8))
        let restored = try servedBundle(server)
        XCTAssertGreaterThan(restored.version, edited.version)
        XCTAssertEqual(try variants(of: "other", in: restored.path), ["y"])
        let again = try curl(server.inspector + "/api/overrides", in: scratch.url).json
        XCTAssertEqual((again["overrides"] as? [[String: Any]])?.first?["stale"] as? Bool, false)
        XCTAssertTrue(server.stderr.contains("override experiment:other=y applies again"), server.stderr)
    }

    /// A variant without a string id cannot be forced (it would be "#0", which no device
    /// computes), and an onboarding flow cannot be activated on a bundle without flows (E016).
    func testAVariantWithoutAStringIDAndAFlowWithoutFlowsAreRefusedByName() throws {
        let text = #"{"bundle_version": 3, "experiments": {"n": {"status": "running", "salt": "n", "variants": [{"weight": 0.5}, {"id": "b", "weight": 0.5}]}}, "onboarding": {}}"#
        let bundle = try scratch.file("bundle.json", Array(text.utf8))
        let server = try InspectedProcess(["api", "serve", "--bundle", bundle, "--state", scratch.path + "/state.json"], in: scratch.url)
        defer { server.stop() }
        let token = try inspectorToken(server.inspector, in: scratch.url)
        let unnamed = try put(server, "experiment", "n", ##"{"value": "#0"}"##, token: token)
        // 409: a well-formed request the bundle served has no room for (docs/local-api.md).
        XCTAssertEqual(unnamed.status, 409, unnamed.text)
        XCTAssertTrue((unnamed.json["error"] as? String ?? "").contains("no variant '#0'; it has b (and 1 without a string id"), unnamed.text)
        let flow = try put(server, "onboarding", "flow", #"{"value": "f"}"#, token: token)
        XCTAssertEqual(flow.status, 409, flow.text)
        XCTAssertTrue((flow.json["error"] as? String ?? "").contains("no onboarding.flows"), flow.text)
        XCTAssertEqual((try curl(server.inspector + "/api/overrides", in: scratch.url).json["overrides"] as? [Any])?.count, 0)
    }

    /// One server per state file: a second one is refused naming the first's pid and port;
    /// a crash's temporary files are removed at the next start.
    func testASecondServerOnTheStateIsRefusedAndLeftoversAreRemoved() throws {
        let bundle = try scratch.file("bundle.json", Array(source.utf8))
        let state = scratch.path + "/appdna-overrides.json"
        var first = try InspectedProcess(["api", "serve", "--bundle", bundle, "--state", state, "--override", "experiment:other=x"], in: scratch.url)
        defer { first.stop() }
        let before = try Data(contentsOf: URL(fileURLWithPath: state))
        do {
            let second = try InspectedProcess(["api", "serve", "--bundle", bundle, "--state", state, "--override", "experiment:other=y"], in: scratch.url)
            second.stop()
            XCTFail("a second server started on the same state")
        } catch {
            let message = String(describing: error)
            XCTAssertTrue(message.contains("pid \(first.process.processIdentifier), port \(first.listenerPort)"), message)
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: state)), before, "the second server wrote nothing")
        XCTAssertEqual(try servedBundle(first).version, 8)

        XCTAssertEqual(first.stop(), 0)
        let leftover = scratch.path + "/.appdna-overrides.json.appdna-4242-abc.tmp"
        XCTAssertTrue(FileManager.default.createFile(atPath: leftover, contents: Data("{".utf8)))
        first = try InspectedProcess(["api", "serve", "--bundle", bundle, "--state", state], in: scratch.url)
        XCTAssertFalse(FileManager.default.fileExists(atPath: leftover), "a crash's temporary file is removed at start")
        XCTAssertTrue(first.stderr.contains("removed .appdna-overrides.json.appdna-4242-abc.tmp"), first.stderr)
    }

    /// What the store accepts the API can clear: a key with a control character is refused
    /// from --override (64) and from a hand-edited state (65).
    func testAKeyTheRoutesRefuseIsRefusedByTheStore() throws {
        let bundle = try scratch.file("bundle.json", Array(source.utf8))
        do {
            let server = try InspectedProcess(["api", "serve", "--bundle", bundle, "--state", scratch.path + "/a.json",
                                               "--override", "config:a\u{1}b=1"], in: scratch.url)
            server.stop()
            XCTFail("a key the routes refuse was accepted")
        } catch {
            XCTAssertTrue(String(describing: error).contains("control characters"), String(describing: error))
        }
        let state = try scratch.file("b.json", Array(#"{"format": 1, "changes": 1, "overrides": [{"kind": "config", "key": "a\u0007b", "value": 1}]}"#.utf8))
        do {
            let server = try InspectedProcess(["api", "serve", "--bundle", bundle, "--state", state], in: scratch.url)
            let status = server.stop()
            XCTFail("a state with a key the routes refuse was served (stopped with \(status))")
        } catch {
            XCTAssertTrue(String(describing: error).contains("control characters"), String(describing: error))
        }
    }

    /// The console reads values as their exact JSON text.
    func testValuesAreListedAsTheirExactJSONText() throws {
        let bundle = try scratch.file("bundle.json", Array(source.utf8))
        let server = try InspectedProcess(["api", "serve", "--bundle", bundle, "--state", scratch.path + "/state.json"], in: scratch.url)
        defer { server.stop() }
        let token = try inspectorToken(server.inspector, in: scratch.url)
        XCTAssertEqual(try put(server, "config", "big", #"{"value": 12345678901234567890123456789}"#, token: token).status, 200)
        XCTAssertEqual(try put(server, "config", "huge", #"{"value": 1e999}"#, token: token).status, 200)
        // (Foundation's parser refuses 1e999 itself: the answers are read as text.)
        func compact(_ text: String) -> String { text.filter { $0 != " " && $0 != "\n" } }
        let listed = compact(try curl(server.inspector + "/api/overrides", in: scratch.url).text)
        XCTAssertTrue(listed.contains(#""key":"big","value":12345678901234567890123456789,"value_json":"12345678901234567890123456789""#), listed)
        XCTAssertTrue(listed.contains(#""key":"huge","value":1e999,"value_json":"1e999""#), listed)
        let shown = compact(try curl(server.inspector + "/api/bundle", in: scratch.url).text)
        XCTAssertTrue(shown.contains(#""key":"big","value":12345678901234567890123456789,"value_json":"12345678901234567890123456789""#), shown)
        XCTAssertTrue(shown.contains(#""key":"huge","value":1e999,"value_json":"1e999""#), shown)
    }

    /// The live bundle: a refetch runs outside the lock (a version poll and the console are
    /// answered while the upstream holds the fetch), a failed one answers 502 and changes
    /// nothing, and the served version never goes back (10 → 5) and rises when the content
    /// changes under the same version.
    func testTheLiveBundleIsFetchedOutsideTheLockAndItsVersionNeverGoesBack() throws {
        let upstream = LiveUpstream(source.replacingOccurrences(of: #""bundle_version": 7"#, with: #""bundle_version": 10"#))
        let api = try LoopbackHTTPServer { request, _ in upstream.answer(request) }
        defer { api.stop() }
        let environment = ["APPDNA_SDK_KEY": "adn_test_devserver000000000000001", "APPDNA_API_URL": api.baseURL]
        let server = try InspectedProcess(["api", "serve", "--bundle", "@remote", "--state", scratch.path + "/state.json"], in: scratch.url, environment: environment)
        defer { server.stop() }
        let token = try inspectorToken(server.inspector, in: scratch.url)
        XCTAssertEqual(try servedBundle(server).version, 10)
        func refetch() throws -> CurlExchange {
            try curl(server.inspector + "/api/bundle/refetch", ["-X", "POST", "-H", "X-AppDNA-Inspector-Token: \(token)"], in: scratch.url)
        }

        // The upstream holds the fetch until released: meanwhile the last good bundle is served.
        upstream.hold()
        let background = Process()
        background.executableURL = URL(fileURLWithPath: try requireTool("curl", because: "the refetch is sent with curl"))
        background.arguments = ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "60", "-X", "POST",
                                "-H", "X-AppDNA-Inspector-Token: \(token)", server.inspector + "/api/bundle/refetch"]
        let output = Pipe()
        background.standardOutput = output
        try background.run()
        XCTAssertTrue(upstream.waitUntilHeld(), "the refetch reached the upstream")
        let poll = try curl(server.listener + "/api/v1/sdk/config-bundle/version", ["-H", "x-api-key: k", "--max-time", "10"], in: scratch.url)
        XCTAssertEqual(poll.status, 200, "a version poll is answered while the fetch runs")
        XCTAssertEqual(poll.json["bundle_version"] as? Int, 10)
        XCTAssertEqual(try curl(server.inspector + "/api/bundle", ["--max-time", "10"], in: scratch.url).status, 200)
        upstream.release()
        background.waitUntilExit()
        XCTAssertEqual(String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self), "200")

        // Rolled back to 5, the rest the same: still 10.
        upstream.body = source.replacingOccurrences(of: #""bundle_version": 7"#, with: #""bundle_version": 5"#)
        XCTAssertEqual(try refetch().status, 200)
        let rolledBack = try servedBundle(server).version
        XCTAssertEqual(rolledBack, 10, "never back to 5: the bytes are those served as 10")
        // New content under the same version: a new served version.
        upstream.body = source.replacingOccurrences(of: #""bundle_version": 7"#, with: #""bundle_version": 5"#)
            .replacingOccurrences(of: #""new_paywall": false"#, with: #""new_paywall": true"#)
        XCTAssertEqual(try refetch().status, 200)
        let changed = try servedBundle(server).version
        XCTAssertGreaterThan(changed, rolledBack)
        // A failed fetch: 502, nothing changes.
        upstream.body = "not json"
        let failed = try refetch()
        XCTAssertEqual(failed.status, 502, failed.text)
        XCTAssertEqual(failed.json["step"] as? String, "fetch")
        XCTAssertEqual(try servedBundle(server).version, changed)
    }
}

/// A live API whose bundle the test sets, and which can hold a fetch until released.
final class LiveUpstream: @unchecked Sendable {
    private let lock = NSCondition()
    private var text: String
    private var holding = false
    private var waiting = 0

    init(_ body: String) { text = body }

    var body: String {
        get { lock.lock(); defer { lock.unlock() }; return text }
        set { lock.lock(); text = newValue; lock.unlock() }
    }

    func hold() { lock.lock(); holding = true; lock.unlock() }

    func release() {
        lock.lock()
        holding = false
        lock.broadcast()
        lock.unlock()
    }

    /// Whether a request is being held (waits up to 20 s for one).
    func waitUntilHeld() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        let deadline = Date().addingTimeInterval(20)
        while waiting == 0 && lock.wait(until: deadline) {}
        return waiting > 0
    }

    func answer(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Reply {
        lock.lock()
        waiting += 1
        lock.broadcast()
        while holding { lock.wait() }
        waiting -= 1
        let body = text
        lock.unlock()
        return LoopbackHTTPServer.Reply(json: body)
    }
}
