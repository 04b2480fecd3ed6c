import Foundation
import XCTest
import TestSupport

/// Issue 14 through the built binary: unknown context, every experiment for a user (checked
/// against Python's mmh3 and a plain re-implementation of the rules), golden vectors, the
/// `bundle diff` gate and the exposure audit on the shipped examples.
final class ExperimentDebuggingEndToEndTests: XCTestCase {
    var scratch: ScratchDirectory!
    var directory: URL { scratch.url }

    override func setUpWithError() throws {
        scratch = try ScratchDirectory("x14")
    }

    override func tearDownWithError() throws {
        scratch.remove()
    }

    func file(_ name: String, _ contents: String) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(contents.utf8).write(to: url)
        return url.path
    }

    /// Runs a Python script with mmh3 (skips when it is missing, fails on CI).
    func python(_ script: String, arguments: [String] = [], stdin: Data = Data()) throws -> String {
        let python = try requirePythonModules(["mmh3"], because: "the independent MurmurHash3")
        let result = try ProcessRunner.run(python, ["-c", script] + arguments, environment: nil, stdin: stdin)
        XCTAssertEqual(result.status, 0, "python failed: \(result.stderr)")
        return result.stdout
    }

    static let bundle = """
    {"bundle_version": 7, "experiments": {"experiments": {
      "onboarding-v2": {"status": "running", "salt": "ob2", "platforms": ["ios", "android"],
                        "variants": [{"id": "control", "weight": 0.5}, {"id": "streamlined", "weight": 0.5}]},
      "paywall-price": {"status": "running", "salt": " ", "targeting": {"countries": ["US", "CA"]},
                        "variants": [{"id": "control", "weight": 0.43}, {"id": "higher", "weight": 0.57}]},
      "holdout": {"status": "running", "salt": "h1", "traffic_allocation": 0.25,
                  "variants": [{"id": "a", "weight": 0.3333333333333333}, {"id": "b", "weight": 0.3333333333333333}, {"id": "c", "weight": 0.3333333333333334}]},
      "dark-mode": {"status": "completed", "salt": "dm", "variants": [{"id": "off", "weight": 0.5}, {"id": "on", "weight": 0.5}]}
    }}}
    """

    /// The assignment and verdict per user and experiment, computed without the tool.
    static let reference = """
    import sys, json, mmh3
    bundle = json.load(open(sys.argv[1])); ctx = json.loads(sys.argv[2])
    exps = bundle["experiments"]["experiments"]
    for u in sys.stdin.read().split("\\n")[:-1]:
        for eid, e in exps.items():
            salt = e.get("salt", ""); eff = eid if salt.strip() == "" else salt
            h = mmh3.hash(f"{eid}.{eff}.{u}".encode(), 0, signed=False); b = h % 10000
            cum = 0; v = e["variants"][-1]["id"]
            for var in e["variants"]:
                cum += int(var["weight"] * 10000)
                if b < cum: v = var["id"]; break
            state = True; unknown = False
            if e["status"] != "running": state = False
            if state and "platforms" in e:
                if "platform" not in ctx: unknown = True
                elif ctx["platform"] not in e["platforms"]: state = False
            t = e.get("targeting", {})
            if state and "countries" in t:
                if "country" not in ctx: unknown = True
                elif ctx["country"] not in t["countries"]: state = False
            if state and "traffic_allocation" in e:
                ab = mmh3.hash(f"{eid}.{eff}.{u}.allocation".encode(), 0, signed=False) % 10000
                if ab >= int(e["traffic_allocation"] * 10000 + 0.5):
                    if "platform" not in ctx: unknown = True
                    elif ctx["platform"] == "ios": state = False
            if state and unknown: state = "unknown"
            print(json.dumps({"user": u, "experiment": eid, "hash": h, "bucket": b,
                              "variant": v if state is not False else None, "eligible": state}, sort_keys=True, ensure_ascii=False))
    """

    static func canonical(_ object: [String: Any]) throws -> String {
        let keys = ["user", "experiment", "hash", "bucket", "variant", "eligible"]
        var picked: [String: Any] = [:]
        for key in keys { picked[key] = object[key] ?? NSNull() }
        return String(decoding: try JSONSerialization.data(withJSONObject: picked, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
    }

    func testEveryExperimentForAUserAgreesWithAnIndependentComputation() throws {
        let bundle = try file("bundle.json", Self.bundle)
        let users = (0..<300).map { $0 % 10 == 0 ? "caf\u{E9}-\($0)" : $0 % 10 == 1 ? "\u{1F680}-\($0)" : "user-\($0)" }
        let contexts: [(flags: [String], json: String)] = [
            ([], "{}"),
            (["--platform", "ios", "--country", "US"], #"{"platform": "ios", "country": "US"}"#),
            (["--platform", "android", "--country", "FR"], #"{"platform": "android", "country": "FR"}"#),
        ]
        for context in contexts {
            let expected = try python(Self.reference, arguments: [bundle, context.json], stdin: Data((users.joined(separator: "\n") + "\n").utf8))
                .split(separator: "\n").map(String.init)
            XCTAssertEqual(expected.count, users.count * 4)
            // Batch form, NDJSON: one row per user and experiment, in bundle order.
            let batch = try Binary.run(["bucket", "-", "--bundle", bundle, "--format", "ndjson"] + context.flags,
                                       stdin: Data((users.joined(separator: "\n") + "\n").utf8))
            XCTAssertEqual(batch.status, 0, batch.stderr)
            let rows = try batch.text.split(separator: "\n").map { try Self.canonical(JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]) }
            let reference = try expected.map { try Self.canonical(JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]) }
            XCTAssertEqual(rows, reference, "context \(context.json)")
            // Single user, --json: an array of the single-experiment documents.
            for (index, user) in users.prefix(20).enumerated() {
                let single = try Binary.run(["bucket", user, "--bundle", bundle, "--json"] + context.flags)
                XCTAssertEqual(single.status, 0, single.stderr)
                let documents = try JSONSerialization.jsonObject(with: single.stdout) as! [[String: Any]]
                XCTAssertEqual(try documents.map(Self.canonical), Array(reference[(index * 4)..<(index * 4 + 4)]), user)
            }
        }
        // TSV: the same rows, tab-separated, "-" for no variant.
        let tsv = try Binary.run(["bucket", "-", "--bundle", bundle], stdin: Data("user-1\n".utf8))
        XCTAssertEqual(tsv.text.split(separator: "\n").last, "user-1\tdark-mode\t\(try darkModeHash("user-1"))\t\(try darkModeHash("user-1") % 10000)\t-\tno")
    }

    func darkModeHash(_ user: String) throws -> Int {
        Int(try python("import mmh3, sys; print(mmh3.hash(sys.argv[1].encode(), 0, signed=False))", arguments: ["dark-mode.dm.\(user)"])
            .trimmingCharacters(in: .whitespacesAndNewlines))!
    }

    func testTheTableIsAlignedInBundleOrderAndNamesTheFlagsThatSettleUnknownRules() throws {
        let bundle = try file("bundle.json", Self.bundle)
        let result = try Binary.run(["bucket", "user-123", "--bundle", bundle])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 5)
        XCTAssertEqual(lines[0].split(separator: " ").map(String.init), ["EXPERIMENT", "STATUS", "BUCKET", "VARIANT", "ELIGIBLE"])
        XCTAssertEqual(lines.dropFirst().map { String($0.split(separator: " ")[0]) }, ["onboarding-v2", "paywall-price", "holdout", "dark-mode"])
        // Aligned: every column starts at the same offset on every line.
        for heading in ["STATUS", "BUCKET", "VARIANT", "ELIGIBLE"] {
            let column = lines[0].range(of: heading)!.lowerBound.utf16Offset(in: lines[0])
            for line in lines {
                let characters = Array(line)
                XCTAssertEqual(characters[column - 2...column - 1], [" ", " "], "\(heading): \(line)")
                XCTAssertNotEqual(characters[column], " ", "\(heading): \(line)")
            }
        }
        XCTAssertTrue(lines[1].hasSuffix("unknown: platform (--platform)"), lines[1])
        XCTAssertTrue(lines[2].hasSuffix("unknown: countries (--country)"), lines[2])
        XCTAssertTrue(lines[4].contains("no: status"), lines[4])
    }

    func testUnknownContextIsAThirdStateAndGivenContextStillFailsClosed() throws {
        let bundle = try file("bundle.json", Self.bundle)
        var result = try Binary.run(["bucket", "user-123", "onboarding-v2", "--bundle", bundle, "--json"])
        var object = try JSONSerialization.jsonObject(with: result.stdout) as! [String: Any]
        XCTAssertEqual(object["eligible"] as? String, "unknown")
        XCTAssertNotNil(object["variant"] as? String, "the variant is computed and shown")
        XCTAssertEqual(object["unchecked_rules"] as? [String], ["platform"])
        let rule = (object["rules"] as! [[String: Any]]).first { $0["rule"] as? String == "platform" }!
        XCTAssertEqual(rule["state"] as? String, "unknown")
        XCTAssertEqual(rule["settled_by"] as? String, "--platform")

        result = try Binary.run(["bucket", "user-123", "onboarding-v2", "--bundle", bundle])
        XCTAssertTrue(result.text.contains("not checked: runs on [ios, android]; no platform given (settle with --platform)"), result.text)
        XCTAssertTrue(result.text.contains("eligible       unknown (not checked: platform)"), result.text)
        XCTAssertTrue(result.text.contains("(if the unchecked rules pass)"), result.text)

        // A platform no one counts users on is refused, not judged as if it were iOS; web is
        // judged as the warehouse SQL judges it: out of an experiment for [ios, android] (issue 52).
        result = try Binary.run(["bucket", "user-123", "onboarding-v2", "--bundle", bundle, "--platform", "iso", "--json"])
        XCTAssertEqual(result.status, 64, result.stderr)
        XCTAssertTrue(result.stderr.contains("--platform takes one of ios, android, web, not 'iso'"), result.stderr)
        result = try Binary.run(["bucket", "user-123", "onboarding-v2", "--bundle", bundle, "--platform", "web", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual((try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])?["eligible"] as? Bool, false, result.text)
        result = try Binary.run(["bucket", "user-123", "onboarding-v2", "--bundle", bundle, "--platform", "ios", "--json"])
        object = try JSONSerialization.jsonObject(with: result.stdout) as! [String: Any]
        XCTAssertEqual(object["eligible"] as? Bool, true)
    }

    /// Every case recomputed by Python's mmh3 from the inputs alone.
    func testVectorsAreReproducedByAnIndependentMurmurHash3AndAreDeterministic() throws {
        let result = try Binary.run(["bucket", "--vectors", "--count", "300", "--seed", "9"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let again = try Binary.run(["bucket", "--vectors", "--count", "300", "--seed", "9"])
        XCTAssertEqual(result.stdout, again.stdout, "same seed, same bytes")
        let other = try Binary.run(["bucket", "--vectors", "--count", "300", "--seed", "10"])
        XCTAssertNotEqual(result.stdout, other.stdout)
        let check = """
        import sys, json, mmh3
        doc = json.load(sys.stdin)
        def variant(b, weights, n):
            cum = 0
            for i, w in enumerate(weights):
                cum += int(w * n)
                if b < cum: return i
            return len(weights) - 1
        checked = 0
        for c in doc["cases"]:
            u, e, s = c["user"], c["experiment"], c["salt"]
            assert bytes.fromhex(c["user_utf8_hex"].replace(" ", "")) == u.encode(), c["name"]
            eff = e if s.strip() == "" and all(ch.isspace() for ch in s) else s
            for scheme, text, n in (("sdk", f"{e}.{eff}.{u}", 10000), ("docs", u + e + s, 100)):
                r = c[scheme]
                assert r["hashed_string"] == text, (c["name"], scheme, r["hashed_string"], text)
                h = mmh3.hash(text.encode(), 0, signed=False)
                assert r["hash"] == h and r["bucket"] == h % n, (c["name"], scheme)
                ids = [v["id"] for v in c["variants"]]; ws = [v["weight"] for v in c["variants"]]
                assert r["variant"] == ids[variant(h % n, ws, n)], (c["name"], scheme)
            if c["traffic_allocation"] is not None:
                a = mmh3.hash((f"{e}.{eff}.{u}" + ".allocation").encode(), 0, signed=False) % 10000
                inside = a < int(c["traffic_allocation"] * 10000 + 0.5)
                assert c["sdk"]["allocation_bucket"] == a and c["sdk"]["in_experiment"] == inside, c["name"]
            checked += 1
        names = " ".join(c["name"] for c in doc["cases"])
        for word in ["NFC", "NFD", "emoji", "white space", "blank salt", "whitespace-only salt", "truncating", "traffic allocation"]:
            assert word in names, word
        print(checked)
        """
        XCTAssertEqual(try python(check, stdin: result.stdout).trimmingCharacters(in: .whitespacesAndNewlines), "328", "28 fixed cases (13 hazards, 15 porting edges) and 300 generated")
    }

    /// 0.5/0.5 → 0.3/0.7 moves exactly 2000 of 10000 buckets (20 %).
    func testTheGateExitsOneOnlyAboveTheThreshold() throws {
        let old = try file("old.json", """
        {"bundle_version": 1, "remote_config": {"a": 1}, "experiments": {
          "onb": {"status": "running", "salt": "s", "variants": [{"id": "control", "weight": 0.5}, {"id": "new", "weight": 0.5}]},
          "off": {"status": "paused", "salt": "p", "variants": [{"id": "x", "weight": 0.5}, {"id": "y", "weight": 0.5}]}}}
        """)
        let new = try file("new.json", """
        {"bundle_version": 2, "remote_config": {"a": 2, "b": true}, "experiments": {
          "onb": {"status": "running", "salt": "s", "variants": [{"id": "control", "weight": 0.3}, {"id": "new", "weight": 0.7}]},
          "off": {"status": "paused", "salt": "p", "variants": [{"id": "x", "weight": 0.1}, {"id": "y", "weight": 0.9}]}}}
        """)
        for (threshold, status) in [("20", Int32(0)), ("20%", 0), ("19.99", 1), ("25", 0), ("0", 1), ("100", 0)] {
            let result = try Binary.run(["bundle", "diff", "--fail-on-switch", threshold, old, new])
            XCTAssertEqual(result.status, status, "threshold \(threshold): \(result.stderr)")
            if status == 1 {
                XCTAssertEqual(result.stderrLines, ["appdna: --fail-on-switch \(threshold.replacingOccurrences(of: "%", with: ""))%: \"onb\" moves 20% of its users to another variant"])
            } else {
                XCTAssertEqual(result.stderr, "", "the paused experiment (40 % switching) and other changes do not trip the gate")
            }
        }
        // A salt change re-randomises everyone: about 1 - Σw² = 50 % switch.
        let resalted = try file("resalted.json", try String(contentsOfFile: old, encoding: .utf8).replacingOccurrences(of: "\"salt\": \"s\"", with: "\"salt\": \"s2\""))
        XCTAssertEqual(try Binary.run(["bundle", "diff", "--fail-on-switch", "49", old, resalted]).status, 1)
        XCTAssertEqual(try Binary.run(["bundle", "diff", "--fail-on-switch", "50", old, resalted]).status, 0)
        XCTAssertEqual(try Binary.run(["bundle", "diff", "--fail-on-switch", "5%", old, old]).status, 0)
        let bad = try Binary.run(["bundle", "diff", "--fail-on-switch", "lots", old, new])
        XCTAssertEqual(bad.status, 64)
        XCTAssertTrue(bad.stderr.hasPrefix("appdna: --fail-on-switch takes a percentage"), bad.stderr)

        let json = try Binary.run(["bundle", "diff", "--format", "json", old, new])
        let notes = (try JSONSerialization.jsonObject(with: json.stdout) as! [String: Any])["notes"] as! [[String: Any]]
        let switching = notes.filter { $0["kind"] as? String == "assignment_changed" }
        XCTAssertEqual(switching.map { $0["experiment"] as? String }, ["onb", "off"])
        XCTAssertEqual(switching.map { $0["buckets"] as? Int }, [2000, 4000])

        let markdown = try Binary.run(["bundle", "diff", "--format", "markdown", "--fail-on-switch", "10", old, new])
        XCTAssertEqual(markdown.status, 1)
        let lines = markdown.text.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains("| `onb` | running | 20% | exact: 2000 of 10000 buckets | **over 10%** |"), markdown.text)
        XCTAssertTrue(lines.contains("| `off` | paused | 40% | exact: 4000 of 10000 buckets | not running |"), markdown.text)
        XCTAssertTrue(lines.contains("<details><summary>7 changes to the JSON</summary>"), markdown.text)
    }

    func testLongListsAreCollapsedInMarkdown() throws {
        var flagsOld: [String] = [], flagsNew: [String] = []
        for index in 0..<15 { flagsOld.append("\"f\(index)\": false"); flagsNew.append("\"f\(index)\": true") }
        let old = try file("o.json", "{\"bundle_version\": 1, \"remote_config\": {\(flagsOld.joined(separator: ","))}}")
        let new = try file("n.json", "{\"bundle_version\": 2, \"remote_config\": {\(flagsNew.joined(separator: ","))}}")
        let result = try Binary.run(["bundle", "diff", "--format", "markdown", old, new])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.text.contains("No experiment moves users to another variant."), result.text)
        XCTAssertTrue(result.text.contains("<details><summary>Other changes (15)</summary>"), result.text)
    }

    /// The README's example queue: one agreeing event and one planted mismatch per cause.
    func testTheExposureAuditOnTheShippedExample() throws {
        let root = repositoryRoot
        let examples = root.appendingPathComponent("examples/experiments")
        let result = try Binary.run(["queue", "inspect", examples.appendingPathComponent("pending_events.json").path,
                                     "--bundle", examples.appendingPathComponent("appdna-config.json").path, "--json", "--now", "2026-01-02T12:00:00Z"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try JSONSerialization.jsonObject(with: result.stdout) as! [String: Any]
        let audit = object["exposure_audit"] as! [String: Any]
        XCTAssertEqual(audit["bundle_version"] as? Int, 42, "an integer, as in the bundle")
        XCTAssertEqual(audit["checked"] as? Int, 8)
        XCTAssertEqual(audit["agreeing"] as? Int, 2)
        let mismatches = audit["mismatches"] as! [[String: Any]]
        XCTAssertEqual(mismatches.map { $0["cause"] as! String },
                       ["blank-salt-old-ios", "user-id-not-normalised", "bundle-version", "experiment-not-running", "experiment-missing", "not-eligible"])
        XCTAssertEqual(mismatches[0]["event_id"] as? String, "00000000-0000-4000-8000-000000000002")
        XCTAssertEqual(mismatches[0]["experiment"] as? String, "paywall-price")
        XCTAssertEqual(mismatches[0]["recorded"] as? String, "control")
        XCTAssertEqual(mismatches[0]["expected"] as? String, "higher")
        let misuse = try Binary.run(["queue", "inspect", examples.appendingPathComponent("pending_events.json").path,
                                     "--bundle", examples.appendingPathComponent("appdna-config.json").path, "--events"])
        XCTAssertEqual(misuse.status, 64)
    }
}
