import Foundation
import TestSupport
import XCTest

/// `api serve` as a dev server: overrides set by flag, by the inspector's API and by
/// `appdna api override`, proved with the tool's own assignment. For the served bundle,
/// `bucket -` over 10,000 users in several contexts (and both schemes) gives the forced variant
/// every time; the bundle passes `bundle validate`; its version rises with each change; the
/// overrides survive a restart.
final class DevServerEndToEndTests: XCTestCase {
    var scratch: ScratchDirectory!

    override func setUpWithError() throws {
        scratch = try ScratchDirectory("dev-server")
        addTeardownBlock { [scratch] in scratch?.remove() }
        _ = try requireTool("curl", because: "the served bundle and the inspector's API are fetched with curl")
    }

    /// An experiment no user of these contexts would all get one variant of: targeting,
    /// a platform list, 10 % traffic allocation, three variants; one paused; one plain. Flags in
    /// `feature_flags` (with `remote_config` empty, so the SDK reads `feature_flags`), one of
    /// them a `{value, type}` wrapper; two onboarding flows.
    static let source = #"""
    {"bundle_version": 7,
     "experiments": {"experiments": {
       "onboarding-v2": {"status": "running", "salt": "s", "platforms": ["ios"], "traffic_allocation": 0.1,
         "targeting": {"countries": ["US"], "min_app_version": "2.0.0", "new_users_only": true}, "started_at_ms": 1700000000000,
         "variants": [{"id": "control", "weight": 0.5, "is_control": true}, {"id": "streamlined", "weight": 0.3}, {"id": "long", "weight": 0.2}]},
       "paused-exp": {"status": "paused", "salt": "p", "variants": [{"id": "a", "weight": 0.5}, {"id": "b", "weight": 0.5}]},
       "other": {"status": "running", "salt": "o", "variants": [{"id": "x", "weight": 0.5}, {"id": "y", "weight": 0.5}]}}},
     "remote_config": {},
     "feature_flags": {"new_paywall": false, "welcome_message": {"value": "Hello", "type": "string"}},
     "onboarding": {"active_flow_id": "flow_a", "flows": {"flow_a": {}, "flow_b": {}}}}
    """#

    /// The contexts a device can send (none, eligible, every rule failing, another platform),
    /// in both schemes.
    static let contexts: [[String]] = [
        [],
        ["--platform", "ios", "--country", "US", "--app-version", "2.1.0", "--installed-at", "1800000000000"],
        ["--platform", "android", "--country", "FR", "--app-version", "1.0.0", "--installed-at", "1"],
        ["--platform", "ios", "--country", "DE", "--app-version", "0.0.1", "--trait", "plan=free"],
        ["--scheme", "docs"],
    ]

    static let users = Data((1...10_000).map { "user-\($0)\n" }.joined().utf8)

    /// What `bucket -` over the bundle's experiments gives `experiment` in `bundle` for the
    /// 10,000 users in every context: the variant where the user is eligible for certain, nil
    /// where not eligible, "unknown: VARIANT" where a rule could not be settled; with the count of rows.
    func variants(of experiment: String, in bundle: String) throws -> (variants: Set<String?>, rows: Int) {
        var seen = Set<String?>()
        var rows = 0
        let marker = #""experiment":"\#(experiment)""#
        for context in Self.contexts {
            let result = try Binary.run(["bucket", "-", "--bundle", bundle, "--format", "ndjson"] + context, stdin: Self.users)
            XCTAssertEqual(result.status, 0, "bucket \(context): \(result.stderr)")
            for line in result.text.split(separator: "\n") where line.contains(marker) {
                let row = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                rows += 1
                let variant = row["variant"] as? String
                switch row["eligible"] {
                case let eligible as Bool: seen.insert(eligible ? variant : nil)
                default: seen.insert("unknown: \(variant ?? "none")")
                }
            }
        }
        return (seen, rows)
    }

    /// The served bundle, saved to a file; its bundle_version.
    func served(_ server: InspectedProcess) throws -> (path: String, version: Int) {
        let answer = try curl(server.listener + "/api/v1/sdk/config-bundle", ["-H", "x-api-key: k"], in: scratch.url)
        XCTAssertEqual(answer.status, 200)
        let path = try scratch.file("served-\(UUID().uuidString).json", Array(answer.body))
        let validated = try Binary.run(["bundle", "validate", path])
        XCTAssertEqual(validated.status, 0, "the served bundle must pass bundle validate: \(validated.text) \(validated.stderr)")
        let polled = try curl(server.listener + "/api/v1/sdk/config-bundle/version", ["-H", "x-api-key: k"], in: scratch.url)
        let version = try XCTUnwrap(answer.json["bundle_version"] as? Int)
        XCTAssertEqual(polled.json["bundle_version"] as? Int, version, "the version endpoint says what the bundle says")
        return (path, version)
    }

    func testOverridesByFlagAPIAndCLIForceTheVariantDevicesComputeAndSurviveARestart() throws {
        let source = try scratch.file("bundle.json", Array(Self.source.utf8))
        let state = scratch.path + "/overrides.json"
        // Before any override, the users are spread (and mostly not eligible): the checks below can fail.
        XCTAssertGreaterThan(try variants(of: "onboarding-v2", in: source).variants.count, 1)

        var server = try InspectedProcess(["api", "serve", "--bundle", source, "--state", state,
                                           "--override", "experiment:onboarding-v2=streamlined", "--override", "flag:new_paywall=true",
                                           "--override", #"config:welcome_message="Hi""#, "--override", "onboarding:flow_b"], in: scratch.url)
        defer { server.stop() }

        // 1. By flag: four changes, version 7 + 4.
        var bundle = try served(server)
        XCTAssertEqual(bundle.version, 11)
        let forced = try variants(of: "onboarding-v2", in: bundle.path)
        XCTAssertEqual(forced.variants, ["streamlined"], "every user in every context gets the forced variant")
        XCTAssertEqual(forced.rows, 50_000)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: bundle.path))) as? [String: Any])
        let flags = try XCTUnwrap(json["feature_flags"] as? [String: Any])
        XCTAssertEqual(flags["new_paywall"] as? Bool, true, "in the section the SDK reads")
        XCTAssertEqual(flags["welcome_message"] as? String, "Hi", "raw, not a {value, type} wrapper")
        XCTAssertEqual((json["remote_config"] as? [String: Any])?.count, 0, "remote_config stays empty, or it would hide feature_flags")
        XCTAssertEqual((json["onboarding"] as? [String: Any])?["active_flow_id"] as? String, "flow_b")
        XCTAssertTrue(server.stderr.contains("override experiment:onboarding-v2=streamlined"), server.stderr)

        // The console's view: the forced variant owns every bucket.
        let shown = try curl(server.inspector + "/api/bundle", in: scratch.url).json
        let experiment = try XCTUnwrap((shown["experiments"] as? [[String: Any]])?.first { $0["key"] as? String == "onboarding-v2" })
        XCTAssertEqual(experiment["overridden"] as? String, "streamlined")
        let shares = (experiment["variants"] as? [[String: Any]] ?? []).map { ($0["id"] as? String ?? "", $0["share"] as? Double ?? -1) }
        XCTAssertEqual(shares.map(\.0), ["control", "streamlined", "long"])
        XCTAssertEqual(shares.map(\.1), [0, 1, 0])
        XCTAssertEqual(shown["bundle_version"] as? Int, 11)

        // 2. By the API: the token is required, unknown variants are refused, the paused experiment runs.
        XCTAssertEqual(try variants(of: "paused-exp", in: bundle.path).variants, [nil], "paused: no one is assigned before")
        let put = [#"-X"#, "PUT", "-H", "Content-Type: application/json", "--data-binary", #"{"value": "b"}"#]
        XCTAssertEqual(try curl(server.inspector + "/api/overrides/experiment/paused-exp", put, in: scratch.url).status, 403)
        let token = try inspectorToken(server.inspector, in: scratch.url)
        let withToken = put + ["-H", "X-AppDNA-Inspector-Token: \(token)"]
        let unknown = try curl(server.inspector + "/api/overrides/experiment/paused-exp",
                               ["-X", "PUT", "-H", "X-AppDNA-Inspector-Token: \(token)", "--data-binary", #"{"value": "c"}"#], in: scratch.url)
        XCTAssertEqual(unknown.status, 409, "a well-formed override that does not fit the bundle")
        XCTAssertTrue((unknown.json["error"] as? String ?? "").contains("no variant 'c'"), unknown.text)
        let set = try curl(server.inspector + "/api/overrides/experiment/paused-exp", withToken, in: scratch.url)
        XCTAssertEqual(set.status, 200, set.text)
        XCTAssertEqual(set.json["bundle_version"] as? Int, 12)
        XCTAssertEqual((set.json["overrides"] as? [[String: Any]])?.count, 5)
        bundle = try served(server)
        XCTAssertEqual(bundle.version, 12)
        XCTAssertEqual(try variants(of: "paused-exp", in: bundle.path).variants, ["b"])
        let missing = try curl(server.inspector + "/api/overrides/flag/no_such_flag", ["-X", "DELETE", "-H", "X-AppDNA-Inspector-Token: \(token)"], in: scratch.url)
        XCTAssertEqual(missing.status, 404)

        // 3. By the CLI.
        XCTAssertEqual(try variants(of: "other", in: bundle.path).variants, ["x", "y"])
        let cli = try Binary.run(["api", "override", "set", "experiment:other=y", "--server", server.inspector])
        XCTAssertEqual(cli.status, 0, cli.stderr)
        XCTAssertTrue(cli.text.contains("experiment:other=y\n"), cli.text)
        bundle = try served(server)
        XCTAssertEqual(bundle.version, 13)
        XCTAssertEqual(try variants(of: "other", in: bundle.path).variants, ["y"])
        let refused = try Binary.run(["api", "override", "set", "experiment:other=z", "--server", server.inspector])
        XCTAssertEqual(refused.status, 64)
        XCTAssertTrue(refused.stderr.contains("no variant 'z'"), refused.stderr)

        // 4. A restart: the state file brings every override back, listed at start; the version does not go back.
        XCTAssertEqual(server.stop(), 0)
        server = try InspectedProcess(["api", "serve", "--bundle", source, "--state", state], in: scratch.url)
        let listedAtStart = ["experiment:onboarding-v2=streamlined", "flag:new_paywall=true", #"config:welcome_message="Hi""#, "onboarding:flow_b",
                      "experiment:paused-exp=b", "experiment:other=y"]
        // The lines follow the "serving" line the start waits for: on a loaded machine they may come a moment later.
        let waitUntil = Date().addingTimeInterval(10)
        while Date() < waitUntil && !listedAtStart.allSatisfy({ server.stderr.contains("override \($0)\n") }) { usleep(20_000) }
        for line in listedAtStart {
            XCTAssertTrue(server.stderr.contains("override \(line)\n"), "listed at start: \(line)\n\(server.stderr)")
        }
        bundle = try served(server)
        XCTAssertEqual(bundle.version, 13)
        XCTAssertEqual(try variants(of: "other", in: bundle.path).variants, ["y"])
        XCTAssertEqual(try variants(of: "onboarding-v2", in: bundle.path).variants, ["streamlined"])
        let listed = try Binary.run(["api", "override", "list", "--server", server.inspector, "--json"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        let listedJSON = try XCTUnwrap(JSONSerialization.jsonObject(with: listed.stdout) as? [String: Any])
        XCTAssertEqual((listedJSON["overrides"] as? [[String: Any]])?.count, 6)

        // 5. Cleared by the CLI: the bundle's own weights again, and one more version.
        let cleared = try Binary.run(["api", "override", "clear", "experiment:other", "--server", server.inspector])
        XCTAssertEqual(cleared.status, 0, cleared.stderr)
        bundle = try served(server)
        XCTAssertEqual(bundle.version, 14)
        XCTAssertEqual(try variants(of: "other", in: bundle.path).variants, ["x", "y"])
        XCTAssertEqual(try Binary.run(["api", "override", "clear", "experiment:other", "--server", server.inspector]).status, 64,
                       "clearing what is not set is refused")
    }

    func testABadOverrideFlagIsAUsageErrorNamingWhatExists() throws {
        let source = try scratch.file("bundle.json", Array(Self.source.utf8))
        for (override, words) in [("experiment:nope=x", "no experiment 'nope'"), ("flag:nope=true", "no flag 'nope'"),
                                  ("onboarding:flow_z", "no onboarding flow 'flow_z'"), ("config:k=Hi", "not a JSON value"), ("color:k=1", "an override is")] {
            let result = try Binary.run(["api", "serve", "--bundle", source, "--port", "0", "--state", scratch.path + "/s.json", "--override", override])
            XCTAssertEqual(result.status, 64, override)
            XCTAssertTrue(result.stderr.contains(words), "\(override): \(result.stderr)")
        }
    }

    /// An exposure event of `user-N` on the served bundle_version `version`.
    static func exposureEvent(_ n: Int, _ exposures: [(String, String)], version: Int) -> String {
        let list = exposures.map { #"{"exp":"\#($0.0)","variant":"\#($0.1)"}"# }.joined(separator: ",")
        return #"{"schema_version":1,"event_id":"\#(TestEvents.id(n))","event_name":"experiment_exposure","ts_ms":1760000000000,"#
            + #""user":{"anon_id":"11111111-1111-4111-8111-111111111111","user_id":"user-\#(n)"},"#
            + #""device":{"platform":"ios","sdk_version":"1.0.78","os":"17.0.1","bundle_version":\#(version),"country":"US","app_version":"2.1.0"},"#
            + #""context":{"session_id":"s\#(n)","client_seq":\#(n),"experiment_exposures":[\#(list)]},"properties":{},"privacy":{"consent":{"analytics":true}}}"#
    }

    func testExposuresAreAuditedAgainstTheServedBundleAsTheyArrive() throws {
        let source = try scratch.file("bundle.json", Array(Self.source.utf8))
        // The right variant is the forced one (y for everyone); x is wrong for every user now.
        let batch = #"{"batch":["# + [
            Self.exposureEvent(1, [("other", "y")], version: 8),
            Self.exposureEvent(2, [("other", "x")], version: 8),
            Self.exposureEvent(3, [("no-such-experiment", "a")], version: 8),
            Self.exposureEvent(4, [("paused-exp", "a")], version: 8),
        ].joined(separator: ",") + "]}"
        let body = try scratch.file("batch.json", Array(batch.utf8))
        for json in [false, true] {
            let server = try InspectedProcess(["api", "serve", "--bundle", source, "--state", scratch.path + "/state-\(json).json",
                                               "--override", "experiment:other=y"] + (json ? ["--json"] : []), in: scratch.url)
            let posted = try curl(server.listener + "/api/v1/ingest/events", ["-X", "POST", "-H", "x-api-key: k", "-H", "Content-Type: application/json",
                                                                             "--data-binary", "@" + body], in: scratch.url)
            XCTAssertEqual(posted.status, 200, posted.text)

            // In the request's inspector entry.
            let entries = try curl(server.inspector + "/api/requests", in: scratch.url).json["requests"] as? [[String: Any]] ?? []
            let audit = try XCTUnwrap(entries.first?["audit"] as? [String: Any], "\(entries)")
            XCTAssertEqual(audit["bundle_version"] as? Int, 8)
            XCTAssertEqual(audit["checked"] as? Int, 4)
            XCTAssertEqual(audit["agreeing"] as? Int, 1)
            XCTAssertEqual(audit["disagreeing"] as? Int, 3)
            let mismatches = audit["mismatches"] as? [[String: Any]] ?? []
            XCTAssertEqual(mismatches.map { $0["event_index"] as? Int }, [2, 3, 4], "the right exposure (event 1) is not flagged")
            XCTAssertEqual(mismatches.map { $0["cause"] as? String }, ["unexplained", "experiment-missing", "experiment-not-running"])
            XCTAssertEqual(mismatches.first?["recorded"] as? String, "x")
            XCTAssertEqual(mismatches.first?["expected"] as? String, "y")
            XCTAssertEqual(mismatches.first?["event_id"] as? String, TestEvents.id(2))

            XCTAssertEqual(server.stop(), 0)
            // On stdout, as the batch arrives.
            if json {
                let line = try XCTUnwrap(server.stdout.split(separator: "\n").first { $0.contains("/api/v1/ingest/events") })
                let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                XCTAssertEqual((object["audit"] as? [String: Any])?["disagreeing"] as? Int, 3, String(line))
            } else {
                XCTAssertTrue(server.stdout.contains("4 exposures checked against bundle_version 8: 1 agree, 3 disagree"), server.stdout)
                XCTAssertTrue(server.stdout.contains("exposure audit: event 2 (\(TestEvents.id(2))): other recorded x, expected y: unexplained"), server.stdout)
                XCTAssertFalse(server.stdout.contains("exposure audit: event 1 "), server.stdout)
            }
            // And in the summary at stop.
            XCTAssertTrue(server.stderr.contains("exposure audit: 4 checked against the served bundle, 1 agree, 3 disagree "
                                                 + "(experiment-missing 1, experiment-not-running 1, unexplained 1)"), server.stderr)
        }
    }

    /// `--bundle @remote`: the live bundle (here another `api serve`, as the API), fetched at
    /// the start, again on `POST /api/bundle/refetch` (token) and with `--refetch`; the overrides
    /// apply on top, and the version still rises. A file source answers the refetch 409.
    func testTheLiveBundleIsFetchedAgainOnRequestAndOnAnInterval() throws {
        let source = try scratch.file("live.json", Array(Self.source.utf8))
        let live = try InspectedProcess(["api", "serve", "--bundle", source, "--state", scratch.path + "/live-state.json"], in: scratch.url)
        defer { live.stop() }
        let environment = ["APPDNA_SDK_KEY": "adn_test_devserver000000000000001", "APPDNA_API_URL": live.listener]
        let server = try InspectedProcess(["api", "serve", "--bundle", "@remote", "--refetch", "1s", "--state", scratch.path + "/remote-state.json",
                                           "--override", "experiment:other=x"], in: scratch.url, environment: environment)
        defer { server.stop() }
        XCTAssertTrue(server.stderr.contains("serving @remote (bundle_version 8)"), server.stderr)
        XCTAssertEqual(try variants(of: "other", in: served(server).path).variants, ["x"])

        // The live bundle moves on: the refetch serves it, the override still on top.
        _ = try scratch.file("live.json", Array(Self.source.replacingOccurrences(of: #""bundle_version": 7"#, with: #""bundle_version": 20"#).utf8))
        let token = try inspectorToken(server.inspector, in: scratch.url)
        XCTAssertEqual(try curl(server.inspector + "/api/bundle/refetch", ["-X", "POST"], in: scratch.url).status, 403)
        let refetched = try curl(server.inspector + "/api/bundle/refetch", ["-X", "POST", "-H", "X-AppDNA-Inspector-Token: \(token)"], in: scratch.url)
        XCTAssertEqual(refetched.status, 200, refetched.text)
        XCTAssertEqual(refetched.json["bundle_version"] as? Int, 21)
        XCTAssertEqual(refetched.json["source"] as? String, "@remote")
        let bundle = try served(server)
        XCTAssertEqual(bundle.version, 21)
        XCTAssertEqual(try variants(of: "other", in: bundle.path).variants, ["x"])

        // --refetch 1s: a request a second after the last fetch fetches again.
        _ = try scratch.file("live.json", Array(Self.source.replacingOccurrences(of: #""bundle_version": 7"#, with: #""bundle_version": 30"#).utf8))
        // The fetch runs on a thread of its own (the request that makes it due is answered from
        // the last good bundle): the new version is served once it is in.
        usleep(1_200_000)
        var polled = 0
        for _ in 0..<100 {
            polled = try curl(server.listener + "/api/v1/sdk/config-bundle/version", ["-H", "x-api-key: k"], in: scratch.url).json["bundle_version"] as? Int ?? 0
            if polled == 31 { break }
            usleep(100_000)
        }
        XCTAssertEqual(polled, 31)
        XCTAssertEqual(try served(server).version, 31)

        // A file is read again whenever it changes: nothing to fetch.
        let fileToken = try inspectorToken(live.inspector, in: scratch.url)
        XCTAssertEqual(try curl(live.inspector + "/api/bundle/refetch", ["-X", "POST", "-H", "X-AppDNA-Inspector-Token: \(fileToken)"], in: scratch.url).status, 409)
    }

    /// A change is saved before it is served: when the state file cannot be written, the
    /// override is refused (500) and neither the bundle nor its version changes.
    func testAnOverrideThatCannotBeKeptIsNotServed() throws {
        let source = try scratch.file("bundle.json", Array(Self.source.utf8))
        let directory = scratch.path + "/state-directory"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let server = try InspectedProcess(["api", "serve", "--bundle", source, "--state", directory + "/state.json"], in: scratch.url)
        defer { server.stop() }
        // The state's directory turns into a plain file while the server runs (the lock stays held).
        try FileManager.default.moveItem(atPath: directory, toPath: directory + "-moved")
        _ = try scratch.file("state-directory", [0x78])
        let token = try inspectorToken(server.inspector, in: scratch.url)
        let put = try curl(server.inspector + "/api/overrides/experiment/other",
                           ["-X", "PUT", "-H", "X-AppDNA-Inspector-Token: \(token)", "--data-binary", #"{"value": "y"}"#], in: scratch.url)
        XCTAssertEqual(put.status, 500, put.text)
        XCTAssertEqual(put.json["step"] as? String, "write", put.text)
        let listed = try curl(server.inspector + "/api/overrides", in: scratch.url).json
        XCTAssertEqual((listed["overrides"] as? [Any])?.count, 0)
        XCTAssertEqual(listed["bundle_version"] as? Int, 7)
        XCTAssertEqual(try served(server).version, 7)
    }
}
