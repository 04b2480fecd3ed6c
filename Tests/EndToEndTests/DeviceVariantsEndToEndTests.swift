import Foundation
import LoopbackHTTPServer
import TestSupport
import XCTest

/// Issue 51: a variant forced on a real device on the paths the SDKs use (platform facts §7).
/// `bucket --force-variant` finds an id devices assign every forced variant (checked with `bucket USER
/// --bundle`, the independent single-user path) or names what no id can meet; `api serve`
/// answers the SDK's bootstrap (local: 403; live: the live answer, only when both decoders
/// accept it), identify and its other calls, writes the served bundle to the app's bundled
/// file, and finds ids on its inspector (`POST /api/identity`).
final class DeviceVariantsEndToEndTests: XCTestCase {
    var scratch: ScratchDirectory!
    static let bundle = repositoryRoot.appendingPathComponent("examples/device-variants/appdna-config.json").path

    override func setUpWithError() throws {
        scratch = try ScratchDirectory("device-variants")
        addTeardownBlock { [scratch] in scratch?.remove() }
    }

    static let contexts: [(platform: String, flags: [String])] = [
        ("ios", ["--platform", "ios", "--country", "US", "--app-version", "2.4", "--trait", "plan=pro"]),
        ("android", ["--platform", "android", "--country", "DE", "--app-version", "2.0", "--trait", "plan=team", "--installed-at", "1770000000000"]),
    ]

    /// The variant `bucket USER --bundle` gives `experiment`, and whether it is eligible for certain.
    func bucketSays(_ user: String, _ experiment: String, _ flags: [String]) throws -> (variant: String?, eligible: Bool) {
        let result = try Binary.run(["bucket", user, experiment, "--bundle", Self.bundle, "--json"] + flags)
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        return (json["variant"] as? String, json["eligible"] as? Bool == true)
    }

    func testForcedIDsAreWhatBucketComputesInEveryContextAndSDKVersion() throws {
        let combinations: [(platform: String?, forced: [String])] = [
            (nil, ["onboarding=bold"]),
            (nil, ["onboarding=streamlined", "paywall=annual_first"]),
            (nil, ["paywall=control", "rare=rare"]),
            ("android", ["onboarding=control", "android_new=b", "rare=common"]),
        ]
        for (only, forced) in combinations {
            for (platform, flags) in Self.contexts where only == nil || only == platform {
                let arguments = ["bucket", "--bundle", Self.bundle, "--json"] + forced.flatMap { ["--force-variant", $0] } + flags
                let result = try Binary.run(arguments)
                XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)")
                let json = try XCTUnwrap(JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
                let user = try XCTUnwrap(json["user_id"] as? String)
                for entry in forced {
                    let parts = entry.split(separator: "=").map(String.init)
                    let said = try bucketSays(user, parts[0], flags)
                    XCTAssertEqual(said.variant, parts[1], "\(user) in \(parts[0]) on \(platform)")
                    XCTAssertTrue(said.eligible)
                }
                let identify = try XCTUnwrap(json["identify"] as? [String: String])
                XCTAssertEqual(identify["swift"], "AppDNA.identify(userId: \"\(user)\")")
                XCTAssertEqual(identify["kotlin"], "AppDNA.identify(\"\(user)\")")
            }
        }
    }

    func testRequirementsNoIDCanMeetAreNamedAndExit64() throws {
        let ios = Self.contexts[0].flags
        let cases: [([String], String)] = [
            (["--force-variant", "zero=b"] + ios, "zero: variant 'b' owns no bucket"),
            (["--force-variant", "paused_test=a"] + ios, "paused_test: status fails for every user id in this context: status is paused"),
            (["--force-variant", "android_new=a"] + ios, "android_new: platform fails for every user id in this context: ios is not in [android]"),
            (["--force-variant", "onboarding=bold", "--platform", "ios", "--country", "FR", "--app-version", "2.4"], "onboarding: countries fails"),
            (["--force-variant", "paywall=control", "--platform", "ios"], "give --trait plan=VALUE"),
            (["--force-variant", "onboarding=bold"], "give --platform"),
            (["--force-variant", "onboarding=nope"] + ios, "onboarding has no variant 'nope'; its variants are control, streamlined, bold"),
        ]
        for (arguments, expected) in cases {
            let result = try Binary.run(["bucket", "--bundle", Self.bundle] + arguments)
            XCTAssertEqual(result.status, 64, "\(arguments)")
            XCTAssertTrue(result.stderr.contains(expected), "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.text.isEmpty)
        }
        // Several obstacles: each is named.
        let several = try Binary.run(["bucket", "--bundle", Self.bundle, "--force-variant", "zero=b", "--force-variant", "paused_test=a"] + ios)
        XCTAssertEqual(several.status, 64)
        XCTAssertTrue(several.stderr.contains("zero") && several.stderr.contains("paused_test"), several.stderr)
        // --force-variant reads its experiments from a bundle.
        let noBundle = try Binary.run(["bucket", "--force-variant", "a=b", "--platform", "ios"])
        XCTAssertEqual(noBundle.status, 64, noBundle.stderr)
    }

    func testLocalModeRefusesBootstrapWritesTheBundledFileAndFindsIDs() throws {
        let app = scratch.path + "/MyApp/appdna-config.json"
        try FileManager.default.createDirectory(atPath: scratch.path + "/MyApp", withIntermediateDirectories: true)
        let server = try InspectedProcess(["api", "serve", "--bundle", Self.bundle, "--state", scratch.path + "/state.json",
                                           "--write-bundled", app], in: scratch.url)
        defer { server.stop() }
        // The start lines name the address it listens on, for each platform (§7).
        XCTAssertTrue(server.stderr.contains("<key>AppDNABaseURLOverride</key><string>\(server.listener)</string>"), server.stderr)
        XCTAssertTrue(server.stderr.contains("android:name=\"ai.appdna.sdk.BASE_URL_OVERRIDE\" android:value=\"\(server.listener)\""), server.stderr)
        XCTAssertTrue(server.stderr.contains("http:/$()/127.0.0.1:\(server.listenerPort)"), server.stderr)
        XCTAssertTrue(server.stderr.contains("bootstrap: local"), server.stderr)

        let bootstrap = try curl(server.listener + "/api/v1/sdk/bootstrap", ["-H", "x-api-key: k"], in: scratch.url)
        XCTAssertEqual(bootstrap.status, 403, "403 stops the SDK's retries (§7)")
        let identify = try curl(server.listener + "/api/v1/sdk/identify", ["-H", "x-api-key: k", "--data-binary", #"{"userId":"u1"}"#], in: scratch.url)
        XCTAssertEqual(identify.status, 200)
        let billing = try curl(server.listener + "/api/v1/billing/verify", ["-H", "x-api-key: k", "--data-binary", "{}"], in: scratch.url)
        XCTAssertEqual(billing.status, 404)
        let options = try curl(server.listener + "/api/v1/sdk/option-sets/os_1", ["-H", "x-api-key: k"], in: scratch.url)
        XCTAssertEqual(options.status, 404)
        let page = try curl(server.inspector + "/api/requests", in: scratch.url).json
        XCTAssertEqual((page["listener"] as? [String: Any])?["bootstrap"] as? String, "local", "the page shows the mode")
        for name in ["bootstrap", "sdk/identify", "billing/verify", "option-sets"] {
            XCTAssertTrue(server.stdout.contains(name), "logged by name: \(name)\n\(server.stdout)")
        }

        // The bundled file: written at start, valid, the source's version.
        var written = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: app))) as? [String: Any])
        XCTAssertEqual(written["bundle_version"] as? Int, 7)
        // An override rewrites it: valid, version + 1, and every user gets the forced variant.
        let set = try Binary.run(["api", "override", "set", "experiment:onboarding=bold", "--server", server.inspector])
        XCTAssertEqual(set.status, 0, set.stderr)
        written = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: app))) as? [String: Any])
        XCTAssertEqual(written["bundle_version"] as? Int, 8)
        XCTAssertEqual(try Binary.run(["bundle", "validate", app]).status, 0)
        let users = Data((1...2_000).map { "user-\($0)\n" }.joined().utf8)
        for (_, flags) in Self.contexts {
            let rows = try Binary.run(["bucket", "-", "onboarding", "--bundle", app, "--format", "ndjson"] + flags, stdin: users)
            XCTAssertEqual(rows.status, 0, rows.stderr)
            let variants = Set(rows.text.split(separator: "\n").map { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["variant"] as? String
            })
            XCTAssertEqual(variants, ["bold"])
        }

        // POST /api/identity searches the source bundle (not the overridden one).
        let body = #"{"force": {"onboarding": "streamlined", "paywall": "annual_first"}, "context": {"platform": "ios", "country": "US", "app_version": "2.4", "traits": {"plan": "pro"}}}"#
        // It takes the page's token: a search costs the server CPU (another web page cannot start one).
        let token = try inspectorToken(server.inspector, in: scratch.url)
        XCTAssertEqual(try curl(server.inspector + "/api/identity", ["-H", "Content-Type: application/json", "--data-binary", body], in: scratch.url).status, 403)
        let found = try curl(server.inspector + "/api/identity", ["-H", "Content-Type: application/json", "-H", "X-AppDNA-Inspector-Token: \(token)",
                                                                  "--data-binary", body], in: scratch.url)
        XCTAssertEqual(found.status, 200, found.text)
        let user = try XCTUnwrap(found.json["user_id"] as? String)
        XCTAssertEqual(try bucketSays(user, "onboarding", Self.contexts[0].flags).variant, "streamlined")
        XCTAssertEqual(try bucketSays(user, "paywall", Self.contexts[0].flags).variant, "annual_first")
        // The same from the command line: api override identity.
        let cli = try Binary.run(["api", "override", "identity", "experiment:onboarding=bold", "--server", server.inspector] + Self.contexts[0].flags)
        XCTAssertEqual(cli.status, 0, cli.stderr)
        let cliUser = try XCTUnwrap(cli.text.firstMatch(of: /user id  (\S+)/).map { String($0.1) }, cli.text)
        XCTAssertEqual(try bucketSays(cliUser, "onboarding", Self.contexts[0].flags).variant, "bold")
        XCTAssertTrue(cli.text.contains("Flutter: await AppDNA.identify('\(cliUser)');"), cli.text)
        let cliRefused = try Binary.run(["api", "override", "identity", "experiment:zero=b", "--server", server.inspector, "--platform", "ios"])
        XCTAssertEqual(cliRefused.status, 64, cliRefused.stderr)
        XCTAssertTrue(cliRefused.stderr.contains("owns no bucket"), cliRefused.stderr)
        let refused = try curl(server.inspector + "/api/identity",
                               ["-H", "X-AppDNA-Inspector-Token: \(token)", "--data-binary", #"{"force": {"zero": "b"}, "context": {"platform": "ios"}}"#], in: scratch.url)
        XCTAssertEqual(refused.status, 409, refused.text)
        XCTAssertEqual((refused.json["obstacles"] as? [[String: Any]])?.first?["requirement"] as? String, "variant-weight")
        let bad = try curl(server.inspector + "/api/identity", ["-H", "X-AppDNA-Inspector-Token: \(token)", "--data-binary", #"{"force": {"onboarding": 3}}"#], in: scratch.url)
        XCTAssertEqual(bad.status, 400, bad.text)
    }

    static let liveBootstrap = #"{"orgId":"org_1","appId":"app_1","firestorePath":"orgs/org_1/apps/app_1","settings":{"flushInterval":30,"batchSize":20,"configTTL":3600},"geo":{"country":"US","region":"CA","city":"San Francisco","timezone":"America/Los_Angeles","latitude":37.77,"longitude":-122.42}}"#

    func testLiveModePassesOnABootstrapBothDecodersAcceptAndRefusesOneThatWouldNotDecode() throws {
        let python = try JSONSchemaEndToEndTests.requireValidator()
        let answers = SharedValue(Self.liveBootstrap)
        let keys = SharedValue([String]())
        let upstream = try LoopbackHTTPServer { request, _ in
            keys.withLock { $0.append(request.header("x-api-key") ?? "") }
            guard request.path == "/api/v1/sdk/bootstrap" else { return .init(status: 404) }
            return .init(json: answers.withLock { $0 })
        }
        defer { upstream.stop() }
        let key = "adn_test_live0000000000000000001"
        let server = try InspectedProcess(["api", "serve", "--bundle", Self.bundle, "--bootstrap", "live", "--state", scratch.path + "/state.json"],
                                          in: scratch.url, environment: ["APPDNA_SDK_KEY": key, "APPDNA_API_URL": upstream.baseURL])
        defer { server.stop() }
        XCTAssertTrue(server.stderr.contains("bootstrap: live"), server.stderr)
        let good = try curl(server.listener + "/api/v1/sdk/bootstrap", ["-H", "x-api-key: device-key"], in: scratch.url)
        XCTAssertEqual(good.status, 200, good.text)
        XCTAssertEqual(keys.withLock { $0.last }, key, "fetched with the SDK key, not the device's")
        let file = try scratch.file("bootstrap.json", Array(good.body))
        let valid = try ProcessRunner.run(python, ["-c", Self.validate, repositoryRoot.appendingPathComponent("docs/schemas/sdk-bootstrap.schema.json").path, file],
                                          environment: nil)
        XCTAssertEqual(valid.status, 0, valid.stdout + valid.stderr)

        // Each answer a decoder would refuse is refused (502) and fails the schema too.
        for broken in [#"{"orgId":"o","appId":"a","firestorePath":"","settings":{"flushInterval":30,"batchSize":20,"configTTL":3600}}"#,
                       #"{"orgId":"o","appId":"a","firestorePath":"orgs/o/apps/a","settings":{"flushInterval":"30","batchSize":20,"configTTL":3600}}"#,
                       #"{"orgId":"o","appId":"a","firestorePath":"orgs/o/apps/a"}"#,
                       #"{"orgId":"o","appId":"a","firestorePath":"orgs/o/apps/a","settings":{"flushInterval":30,"batchSize":20,"configTTL":3600},"geo":{"latitude":"north"}}"#] {
            answers.withLock { $0 = broken }
            let refused = try curl(server.listener + "/api/v1/sdk/bootstrap", ["-H", "x-api-key: device-key"], in: scratch.url)
            XCTAssertEqual(refused.status, 502, broken)
            let brokenFile = try scratch.file("broken-\(UUID().uuidString).json", Array(broken.utf8))
            let schema = try ProcessRunner.run(python, ["-c", Self.validate, repositoryRoot.appendingPathComponent("docs/schemas/sdk-bootstrap.schema.json").path, brokenFile],
                                               environment: nil)
            XCTAssertEqual(schema.status, 1, "the schema must refuse \(broken) too")
        }
    }

    static let validate = #"""
import json, sys
from jsonschema import Draft202012Validator
errors = list(Draft202012Validator(json.load(open(sys.argv[1]))).iter_errors(json.load(open(sys.argv[2]))))
for error in errors: print(error.message)
sys.exit(1 if errors else 0)
"""#
}

/// A value shared with a server's handler thread.
final class SharedValue<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T { lock.lock(); defer { lock.unlock() }; return body(&value) }
}

/// Issue 51.4: each exposure is judged against the config its device used, found by the
/// event's bundle_version; a version the server never served or wrote is reported as unknown.
final class DeviceVariantsAuditEndToEndTests: XCTestCase {
    func testExposuresAreJudgedAgainstTheBundleOfTheirVersionAndAnUnknownVersionIsNotAWrongVariant() throws {
        let scratch = try ScratchDirectory("device-variants-audit")
        defer { scratch.remove() }
        _ = try requireTool("curl", because: "the batch is posted with curl")
        let source = try scratch.file("bundle.json", Array(DevServerEndToEndTests.source.utf8))
        // What bundle_version 7 (the source, before the override) gives user-2 and user-3.
        func v7(_ user: String) throws -> String {
            let result = try Binary.run(["bucket", user, "other", "--bundle", source, "--json"])
            return try XCTUnwrap((JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])?["variant"] as? String)
        }
        let right2 = try v7("user-2"), right3 = try v7("user-3")
        let wrong3 = right3 == "x" ? "y" : "x"
        let batch = #"{"batch":["# + [
            DevServerEndToEndTests.exposureEvent(1, [("other", "y")], version: 8),
            DevServerEndToEndTests.exposureEvent(2, [("other", right2)], version: 7),
            DevServerEndToEndTests.exposureEvent(3, [("other", wrong3)], version: 7),
            DevServerEndToEndTests.exposureEvent(4, [("other", "x")], version: 99),
        ].joined(separator: ",") + "]}"
        let body = try scratch.file("batch.json", Array(batch.utf8))
        let server = try InspectedProcess(["api", "serve", "--bundle", source, "--state", scratch.path + "/state.json",
                                           "--override", "experiment:other=y"], in: scratch.url)
        defer { server.stop() }
        // Version 7 is the source the server was given (a device runs it as its bundled file);
        // only 8 was served.
        let posted = try curl(server.listener + "/api/v1/ingest/events", ["-X", "POST", "-H", "x-api-key: k", "-H", "Content-Type: application/json",
                                                                         "--data-binary", "@" + body], in: scratch.url)
        XCTAssertEqual(posted.status, 200, posted.text)
        let entries = try curl(server.inspector + "/api/requests", in: scratch.url).json["requests"] as? [[String: Any]] ?? []
        let audit = try XCTUnwrap(entries.first { ($0["endpoint"] as? String) == "events" }?["audit"] as? [String: Any], "\(entries)")
        XCTAssertEqual(audit["bundle_version"] as? Int, 8)
        XCTAssertEqual(audit["checked"] as? Int, 3, "events 1-3; event 4's config is unknown")
        XCTAssertEqual(audit["agreeing"] as? Int, 2, "event 2 is right for bundle_version 7, which it ran")
        let mismatches = audit["mismatches"] as? [[String: Any]] ?? []
        XCTAssertEqual(mismatches.map { $0["event_index"] as? Int }, [3])
        XCTAssertEqual(mismatches.first?["cause"] as? String, "unexplained", "a wrong variant for its own bundle, not a bundle-version difference")
        let unknown = audit["unknown_versions"] as? [[String: Any]] ?? []
        XCTAssertEqual(unknown.map { $0["bundle_version"] as? Int }, [99])
        XCTAssertEqual(unknown.map { $0["exposures"] as? Int }, [1])
        XCTAssertEqual(server.stop(), 0)
        XCTAssertTrue(server.stdout.contains("1 from bundle_version 99, which this server never served or wrote: not judged"), server.stdout)
    }
}
