import Foundation
import XCTest
import TestSupport

/// Issue 26: the exposure audit that `warehouse audit` writes, run on the real engines
/// (`WarehouseEngineTests`), against `queue inspect --bundle --json` on the same exposures
/// written as device queues: the same (event_id, experiment, recorded, expected, cause) rows,
/// as multisets, with every cause planted (old-iOS blank salts, ids with white space or in NFD,
/// other bundle versions, missing and paused experiments, failing platform / country / app
/// version / traffic allocation with SDK versions old and new, NFC and NFD variant ids, quotes
/// and backslashes, blank user ids that fall back to the anonymous id, events without ids, an
/// experiment whose salt is `'); DROP TABLE exposures; --` and whose id and variant hold bidi
/// and C1 controls). The queue's counts of exposures
/// repeated within a session equal those of `warehouse duplicates`.
enum ExposureAuditCases {
    static let events = 3_000  // about 6,000 exposures, 4,500 of them disagreeing

    static func cases(bundle: String, engine: String) -> [EngineCase] {
        [EngineCase(name: "audit", python: script, function: "audit_case", arguments: [Binary.url.path, bundle, engine, String(events)]) { output, file, line in
            let lines = output.split(separator: "\n").map(String.init)
            guard let summary = lines.first(where: { $0.hasPrefix("device ") }) else {
                return XCTFail("\(engine): no summary: \(output)", file: file, line: line)
            }
            let parts = summary.split(separator: " ")
            XCTAssertEqual(parts[1], parts[3], "\(engine): as many rows from the SQL as mismatches in the queues: \(output)", file: file, line: line)
            XCTAssertTrue(summary.hasSuffix("only-device 0 only-sql 0"), "\(engine): \(output)", file: file, line: line)
            XCTAssertTrue(lines.contains("causes-missing "), "\(engine): every cause is planted: \(output)", file: file, line: line)
            // `queue inspect --bundle` counts exposures repeated within a session as `warehouse duplicates` does.
            let repeated = lines.first { $0.hasPrefix("repeated ") }?.split(separator: " ") ?? []
            XCTAssertEqual(repeated.dropFirst().first, "same", "\(engine): \(output)", file: file, line: line)
            XCTAssertGreaterThan(repeated.count > 2 ? Int(repeated[2]) ?? 0 : 0, 100, "\(engine): duplicates are planted", file: file, line: line)
        }]
    }

    static let bundle = #"""
{"bundle_version": 12, "experiments": {
 "checkout": {"salt": "s'\\", "status": "running", "platforms": ["ios", "android"], "traffic_allocation": 0.5,
   "targeting": {"countries": ["US", "de"], "min_app_version": "2.0"}, "variants": [{"id": "a", "weight": 0.5}, {"id": "b", "weight": 0.5}]},
 "blank": {"salt": "", "status": "running", "variants": [{"id": "a", "weight": 0.5}, {"id": "b", "weight": 0.5}]},
 "spaces": {"salt": " \t", "status": "running", "variants": [{"id": "a", "weight": 0.57}, {"id": "b", "weight": 0.33}, {"id": "c", "weight": 0.1}]},
 "ta-ios": {"salt": "t", "status": "running", "traffic_allocation": 0.3, "variants": [{"id": "a", "weight": 0.5}, {"id": "b", "weight": 0.5}]},
 "ünï🚀": {"salt": "sälz", "status": "running", "variants": [{"id": "ä", "weight": 0.5}, {"id": "b", "weight": 0.5}]},
 "paused": {"salt": "p", "status": "paused", "variants": [{"id": "a", "weight": 1}]},
 "no-variants": {"salt": "n", "status": "running", "variants": []},
 "traits": {"salt": "tr", "status": "running", "variants": [{"id": "a", "weight": 0.5}, {"id": "b", "weight": 0.5}],
   "targeting": {"user_traits": [{"trait": "plan", "operator": "eq", "value": "pro"}], "new_users_only": true}, "started_at_ms": 1700000000000},
 "bad-targeting": {"salt": "x", "status": "running", "targeting": {"countries": "US"}, "variants": [{"id": "a", "weight": 1}]},
 "inj'\\\u202e\u009b": {"salt": "'); DROP TABLE exposures; --", "status": "running", "variants": [{"id": "a", "weight": 0.5}, {"id": "b'\\\u2066", "weight": 0.5}]}
}}
"""#

    /// Builds events, asks `queue inspect --bundle --json` per queue file, loads the same
    /// exposures (one row each) into the engine, runs the generated audit and compares.
    static let script = #"""
def audit_case(engine, tmp, appdna, bundle, dialect, events_count):
    import random, subprocess, unicodedata
    from collections import Counter
    import mmh3
    events_count = int(events_count)
    ALL_CAUSES = ["blank-salt-old-ios", "user-id-not-normalised", "bundle-version", "experiment-missing", "experiment-not-running", "not-eligible", "unexplained"]
    rng = random.Random(26)
    experiments = ["checkout", "blank", "spaces", "ta-ios", "ünï🚀", "paused", "no-variants", "traits", "bad-targeting", "missing'exp\\", "cafe\u0301",
                   "inj'\\\u202e\u009b"]
    def plain_variant(exp, salt, user, weights):  # the SDK formula, eligibility aside (for planting)
        bucket = mmh3.hash(f"{exp}.{salt}.{user}".encode(), 0, signed=False) % 10000
        upper = 0
        for vid, w in weights:
            upper += int(w * 10000)
            if bucket < upper: return vid
        return weights[-1][0]
    halves = [("a", 0.5), ("b", 0.5)]
    bases = ["alice", "bob", "Zoë", "o'brien\\", "日本", "🚀", "x" * 40, "u"]
    def user_id(i):
        base = bases[i % len(bases)] + str(i)
        kind = i % 9
        if kind == 0: return " " + base  # white space around
        if kind == 1: return base + "\u3000"
        if kind == 2: return unicodedata.normalize("NFD", "é" + base)  # not NFC
        return base
    platforms = ["ios", "android", "web", None, "iOS"]
    countries = ["US", "de", "FR", None]
    versions = ["2.0", "1.9.9", "10", "abc", None, "2.0.0.1"]
    sdks = ["1.0.60", "1.0.69", "1.0.70", "1.0.78", "1.0.77", "bad", None]
    bundle_versions = [12, 12, 12, 11, None]
    events, rows = [], []
    for i in range(events_count):
        uid = user_id(i // 3)  # a user's events come in threes, sessions in fives: exposures repeat within sessions
        user = {"anon_id": f"anon-{i}"}
        if i % 23 == 0: user["user_id"] = "  "  # blank: the anonymous id is hashed
        elif i % 29 == 0: user = {}  # no id at all: skipped
        else: user["user_id"] = uid
        hashed = (user.get("user_id") if user.get("user_id", "").strip() else user.get("anon_id"))
        device = {"platform": rng.choice(platforms), "country": rng.choice(countries), "app_version": rng.choice(versions),
                  "sdk_version": rng.choice(sdks), "bundle_version": rng.choice(bundle_versions)}
        device = {k: v for k, v in device.items() if v is not None}
        exposures = []
        for _ in range(rng.randint(1, 3)):
            exp = rng.choice(experiments)
            choice = rng.random()
            if choice < 0.45 and hashed is not None and exp in ("blank", "spaces", "ünï🚀", "ta-ios", "checkout"):
                salt = {"blank": "blank", "spaces": "spaces", "ünï🚀": "sälz", "ta-ios": "t", "checkout": "s'\\"}[exp]
                weights = {"spaces": [("a", 0.57), ("b", 0.33), ("c", 0.1)], "ünï🚀": [("ä", 0.5), ("b", 0.5)]}.get(exp, halves)
                if choice < 0.15 and exp == "blank": variant = plain_variant("blank", "", hashed, halves)  # the old iOS SDK's literal blank salt
                elif choice < 0.15 and exp == "spaces": variant = plain_variant("spaces", " \t", hashed, weights)
                elif choice < 0.3: variant = plain_variant(exp, salt, unicodedata.normalize("NFC", hashed.strip()), weights)  # the normalised id
                else: variant = plain_variant(exp, salt, hashed, weights)  # usually what devices assign
            else:
                variant = rng.choice(["a", "b", "c", "ä", "a\u0308", "x'\\", "b'\\\u2066", None])
            exposure = {"exp": exp}
            if variant is not None: exposure["variant"] = variant
            exposures.append(exposure)
            rows.append({"event_id": f"e{i:06d}", "experiment": exp, "variant": variant, "user_id": hashed, "session_id": f"s{i // 5}",
                         "platform": device.get("platform"), "country": device.get("country"), "app_version": device.get("app_version"),
                         "sdk_version": device.get("sdk_version"), "bundle_version": device.get("bundle_version")})
        events.append({"schema_version": 1, "event_id": f"e{i:06d}", "event_name": "screen_viewed", "ts_ms": 1767312000000 + i,
                       "user": user, "device": device, "context": {"session_id": f"s{i // 5}", "experiment_exposures": exposures},
                       "properties": {}})
    # The device side: queue inspect --bundle, a queue file per 240 events (the report lists 1000
    # mismatches; no user's session spans two files).
    device, causes, repeated = Counter(), Counter(), {}
    for start in range(0, len(events), 240):
        path = os.path.join(tmp, f"pending_events-{start}.json")
        with open(path, "w", encoding="utf-8") as f:
            for e in events[start:start + 240]: f.write(json.dumps(e, ensure_ascii=False) + "\n")
        report = json.loads(subprocess.run([appdna, "queue", "inspect", path, "--bundle", bundle, "--json"], capture_output=True, check=True).stdout)
        audit = report["exposure_audit"]
        assert audit["mismatches_not_listed"] == 0
        for m in audit["mismatches"]:
            device[(m["event_id"], m["experiment"], m["recorded"], m["expected"], m["cause"])] += 1
            causes[m["cause"]] += 1
        for r in audit["repeated_in_session"]:
            counts = repeated.setdefault(r["experiment"], [0, 0, 0, 0])
            for k, key in enumerate(["sessions", "exposures", "duplicate_exposures", "users_with_duplicates"]): counts[k] += r[key]
    data = os.path.join(tmp, "exposures.ndjson")
    with open(data, "w", encoding="utf-8") as f:
        for r in rows: f.write(json.dumps(r) + "\n")
    columns = ["--platform-column", "platform", "--country-column", "country", "--app-version-column", "app_version",
               "--sdk-version-column", "sdk_version", "--bundle-version-column", "bundle_version"]
    query = subprocess.run([appdna, "warehouse", "audit", bundle, "--dialect", dialect, "--exposures", "exposures"] + columns,
                           capture_output=True, check=True).stdout.decode()
    schema = [(c, "int" if c == "bundle_version" else "text") for c in rows[0]]
    engine.load("exposures", schema, data)
    got = engine.rows(query)
    duplicates_query = subprocess.run([appdna, "warehouse", "duplicates", bundle, "--dialect", dialect, "--exposures", "exposures"],
                                      capture_output=True, check=True).stdout.decode()
    sql_repeated = {r[0]: [int(x) for x in r[1:]] for r in engine.rows(duplicates_query)}
    warehouse = Counter(tuple(r) for r in got)
    only_device = device - warehouse
    only_sql = warehouse - device
    print(f"device {sum(device.values())} sql {len(got)} only-device {sum(only_device.values())} only-sql {sum(only_sql.values())}")
    print("repeated " + ("same" if repeated == sql_repeated else f"DIFFERENT queue {repeated} sql {sql_repeated}"),
          sum(c[2] for c in repeated.values()))
    print("causes " + " ".join(f"{c}={n}" for c, n in sorted(causes.items())))
    print("causes-missing " + " ".join(sorted(set(ALL_CAUSES) - set(causes))))
    for x in sorted(only_device, key=str)[:8]: print("DEVICE-ONLY", x)
    for x in sorted(only_sql, key=str)[:8]: print("SQL-ONLY", x)
"""#
}
