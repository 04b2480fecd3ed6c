import Foundation
import XCTest
import TestSupport

/// Issue 26: the assignment SQL that `warehouse assignment` writes, run on the real engines
/// (`WarehouseEngineTests`) over 10,000 users (370,000 rows per scheme; bench/sql.sh runs
/// the large sizes) with hostile ids — quotes, backslashes, NFC and NFD, emoji, and ids of
/// 30 KB — in ten context groups (every context given, none, some; failing, passing,
/// malformed), against `bucket - --bundle` given the same context as flags: row for row (both
/// sides as sorted lines), 0 disagreements, both schemes, on a bundle built to be hostile
/// (weights that truncate, sum under and over 1, negative, as strings, absent; no variants;
/// blank and whitespace salts; quotes, backslashes and an injection attempt in ids and salts;
/// non-ASCII; C1 and bidi controls in an experiment id, its salt and its variants (escaped in
/// each engine's literals); traffic allocation 0 / 0.333 / 1 / text; paused and completed;
/// every targeting rule well-formed and malformed, lists with an element of the wrong type).
///
/// Issue 44.1: the context columns as text and as integers alike. The sdk scheme reads a table
/// whose every column is text (as `examples/warehouse/run-on-chdb.py` loads a CSV), the install
/// time spelled as `--installed-at` takes it (`+1700000000001`, leading zeros) and in forms
/// no integer reads (` 1700000000000`, `1.7e12`, an ISO date, `abc`: such a row fails every
/// `new_users_only` rule, as `--installed-at 0` does); the docs scheme reads the install time as
/// BIGINT; the `integers` case reads a table whose id, country, app version, install time
/// and traits are all BIGINT (the id hashed as its digits, an app version 3 as "3").
enum WarehouseAssignmentCases {
    static let users = 10_000
    static let integerUsers = 1_000
    static let experiments = 41

    static func cases(bundle: String, engine: String) -> [EngineCase] {
        [("sdk", "text", users), ("docs", "int-installed", users), ("sdk", "integers", integerUsers)].map { scheme, columns, count in
            EngineCase(name: columns == "integers" ? "assignment-integer-columns" : "assignment-\(scheme)", python: script, function: "assignment_case",
                       arguments: [Binary.url.path, bundle, engine, scheme, String(count), columns]) { output, file, line in
                let rows = experiments * count
                XCTAssertEqual(output.split(separator: "\n").first.map(String.init),  // the ONLY- lines below it say which
                               "rows \(rows) expected \(rows) same", "\(engine) \(scheme) \(columns): \(output.prefix(3000))", file: file, line: line)
            }
        }
    }

    static let bundle = #"""
{"experiments": {"experiments": {
 "w57": {"salt": "s1", "status": "running", "variants": [{"id":"c","weight":0.57},{"id":"t","weight":0.33},{"id":"x","weight":0.1}]},
 "w0102": {"salt": "s2", "status": "running", "variants": [{"id":"a","weight":0.1},{"id":"b","weight":0.2},{"id":"c","weight":0.7}]},
 "under": {"salt": "s3", "status": "running", "variants": [{"id":"a","weight":0.3},{"id":"b","weight":0.3}]},
 "over": {"salt": "s4", "status": "running", "variants": [{"id":"a","weight":0.8},{"id":"b","weight":0.7},{"id":"c","weight":0.2}]},
 "neg": {"salt": "s5", "status": "running", "variants": [{"id":"a","weight":-0.5},{"id":"b","weight":"0.5"},{"id":"c"},{"id":"d","weight":0.25}]},
 "zero-variants": {"salt": "z", "status": "running", "variants": []},
 "no-variants-key": {"salt": "z", "status": "running"},
 "blank": {"salt": "", "status": "running", "variants": [{"id":"a","weight":0.5},{"id":"b","weight":0.5}]},
 "spaces": {"salt": " \t\u3000", "status": "running", "variants": [{"id":"a","weight":0.5},{"id":"b","weight":0.5}]},
 "exp'quote\\": {"salt": "'); DROP TABLE users; --", "status": "running", "variants": [{"id":"c'\\","weight":0.5},{"id":"t\"","weight":0.5}]},
 "ünï🚀\u009b\u202e": {"salt": "sälz\\x41\\u0041\u2066\u0085\u2028", "status": "running", "variants": [{"id":"ä\u202a","weight":0.5},{"id":"b\u009b","weight":0.5}]},
 "ta0": {"salt": "a0", "status": "running", "traffic_allocation": 0, "variants": [{"id":"a","weight":0.5},{"id":"b","weight":0.5}]},
 "ta333": {"salt": "a3", "status": "running", "traffic_allocation": 0.333, "variants": [{"id":"a","weight":0.5},{"id":"b","weight":0.5}]},
 "ta1": {"salt": "a1", "status": "running", "traffic_allocation": 1, "variants": [{"id":"a","weight":0.5},{"id":"b","weight":0.5}]},
 "ta-text": {"salt": "a1", "status": "running", "traffic_allocation": "half", "variants": [{"id":"a","weight":0.5},{"id":"b","weight":0.5}]},
 "paused": {"salt": "p", "status": "paused", "variants": [{"id":"a","weight":1}]},
 "completed": {"salt": "p", "status": "completed", "variants": [{"id":"a","weight":1}]},
 "no-status": {"salt": "p", "variants": [{"id":"a","weight":1}]},
 "platforms": {"salt": "pl", "status": "running", "platforms": ["ios", "android"], "variants": [{"id":"a","weight":0.5},{"id":"b","weight":0.5}]},
 "platforms-empty": {"salt": "pl", "status": "running", "platforms": [], "variants": [{"id":"a","weight":1}]},
 "platforms-string": {"salt": "pl", "status": "running", "platforms": "ios", "variants": [{"id":"a","weight":1}]},
 "platforms-cased": {"salt": "pl", "status": "running", "platforms": ["iOS", "Android"], "variants": [{"id":"a","weight":0.5},{"id":"b","weight":0.5}]},
 "new-users-text": {"salt": "n", "status": "running", "started_at_ms": 1, "targeting": {"new_users_only": "true"}, "variants": [{"id":"a","weight":1}]},
 "traits-numeric": {"salt": "tn", "status": "running", "variants": [{"id":"a","weight":0.5},{"id":"b","weight":0.5}],
   "targeting": {"user_traits": [{"trait":"age","operator":"eq","value":18},{"trait":"tier","operator":"in","value":[1.5, "a", "b", true]}]}},
 "traits-numeric-neq": {"salt": "tn2", "status": "running", "variants": [{"id":"a","weight":1}],
   "targeting": {"user_traits": [{"trait":"age","operator":"neq","value":1E3}]}},
 "countries": {"salt": "c", "status": "running", "targeting": {"countries": ["us", "De"]}, "variants": [{"id":"a","weight":0.5},{"id":"b","weight":0.5}]},
 "countries-bad": {"salt": "c", "status": "running", "targeting": {"countries": "US"}, "variants": [{"id":"a","weight":1}]},
 "countries-mixed": {"salt": "c", "status": "running", "targeting": {"countries": ["US", 5]}, "variants": [{"id":"a","weight":0.5},{"id":"b","weight":0.5}]},
 "traits-in-mixed": {"salt": "tm", "status": "running", "variants": [{"id":"a","weight":0.5},{"id":"b","weight":0.5}],
   "targeting": {"user_traits": [{"trait":"tier","operator":"in","value":["a", "b", null]}]}},
 "traits-text": {"salt": "tt", "status": "running", "variants": [{"id":"a","weight":0.5},{"id":"b","weight":0.5}],
   "targeting": {"user_traits": [{"trait":"plan","operator":"gt","value":"pro"},{"trait":"age","operator":"lte","value":"2"},{"trait":"tier","operator":"gte","value":"é"}]}},
 "traits-nfd": {"salt": "tn3", "status": "running", "variants": [{"id":"a","weight":0.5},{"id":"b","weight":0.5}],
   "targeting": {"user_traits": [{"trait":"cafe\u0301","operator":"eq","value":"x"},{"trait":"caf\u00e9","operator":"exists","value":false}]}},
 "version": {"salt": "v", "status": "running", "targeting": {"min_app_version": "2.10.1"}, "variants": [{"id":"a","weight":0.5},{"id":"b","weight":0.5}]},
 "version-bad": {"salt": "v", "status": "running", "targeting": {"min_app_version": "2.x"}, "variants": [{"id":"a","weight":1}]},
 "new-users": {"salt": "n", "status": "running", "started_at_ms": 1700000000000, "targeting": {"new_users_only": true}, "variants": [{"id":"a","weight":0.5},{"id":"b","weight":0.5}]},
 "new-users-no-start": {"salt": "n", "status": "running", "targeting": {"new_users_only": true}, "variants": [{"id":"a","weight":1}]},
 "targeting-bad": {"salt": "n", "status": "running", "targeting": [1], "variants": [{"id":"a","weight":1}]},
 "traits": {"salt": "tr", "status": "running", "variants": [{"id":"a","weight":0.5},{"id":"b","weight":0.5}],
   "targeting": {"user_traits": [{"trait":"plan","operator":"eq","value":"pro"},{"trait":"age","operator":"gte","value":18},{"trait":"tier","operator":"in","value":["a","b"]},{"trait":"beta","operator":"exists","value":false}]}},
 "traits2": {"salt": "tr2", "status": "running", "variants": [{"id":"a","weight":0.5},{"id":"b","weight":0.5}],
   "targeting": {"user_traits": [{"trait":"plan","operator":"neq","value":"free"},{"trait":"age","operator":"lt","value":"100"},{"trait":"beta","operator":"exists","value":true}]}},
 "traits-bad": {"salt": "tr3", "status": "running", "variants": [{"id":"a","weight":1}],
   "targeting": {"user_traits": [{"trait":"plan","operator":"like","value":"p%"}, {"trait":"age","operator":"gt","value":"old"}]}},
 "traits-notlist": {"salt": "tr4", "status": "running", "variants": [{"id":"a","weight":1}], "targeting": {"user_traits": {"trait":"plan"}}},
 "everything": {"salt": "ev", "status": "running", "platforms": ["ios","android","web"], "traffic_allocation": 0.5, "started_at_ms": 1700000000000,
   "variants": [{"id":"a","weight":0.34},{"id":"b","weight":0.33},{"id":"c","weight":0.33}],
   "targeting": {"countries": ["US","DE","FR"], "min_app_version": "2.9", "new_users_only": true, "user_traits": [{"trait":"plan","operator":"in","value":["pro","free"]}]}}
}}}
"""#

    /// Builds the users, asks `bucket -` per context group, loads the same users into the
    /// engine, runs `warehouse assignment` there and compares.
    static let script = #"""
def assignment_case(engine, tmp, appdna, bundle, dialect, scheme, count, columns):
    import re, subprocess
    count = int(count)
    # Context groups: (platform, country, app_version, installed_at, {trait: value}); None = not given.
    # Platforms are what devices report (bucket refuses others); the bundle's names vary in case.
    # An install time given as a pair is (what the table holds, what --installed-at is given).
    groups = [
        (None, None, None, None, {}),
        ("ios", "US", "2.10.1", 1700000000000, {"plan": "pro", "age": "18", "tier": "a", "cafe\u0301": "x"}),
        ("android", "de", "2.9.99", 1600000000000, {"plan": "free", "age": "17", "tier": "c", "beta": "1", "caf\u00e9": "x"}),
        ("android", "FR", "10.0", 1800000000000, {"plan": "pro", "age": "abc", "tier": "b", "cafe\u0301": "x", "caf\u00e9": "y"}),
        ("ios", "us", "2.10.1.0.5", 1700000000001, {"plan": "pro", "age": "18.5", "tier": "b", "cafe\u0301": "y"}),
        ("android", None, "+3.0", None, {"age": "1e3"}),
        (None, "US", "2.x", 1700000000000, {"plan": "pro"}),
        ("android", "De", "-0.11", 1699999999999, {"tier": "é", "plan": "pro\u00e9"}),
        ("ios", "US", "3", 1700000000000, {"age": "18.0", "tier": "1.50", "plan": "pro"}),
        ("android", "US", "3", 1700000000000, {"age": "+18", "tier": "0x1", "plan": "pro"}),
    ]
    if columns == "text":  # the install time as text, spelled as --installed-at reads it, or unreadable (fails as 0 does)
        spelled = [("+1700000000001", "+1700000000001"), ("01700000000000", "01700000000000"), ("-1", "-1"),
                   (" 1700000000000", "0"), ("1.7e12", "0"), ("2026-01-01", "0"), ("abc", "0"), ("", "0"), ("99999999999999999999", "0")]
        base = groups[1]  # a context every other rule of `everything` and `new-users` passes
        groups += [(base[0], base[1], base[2], pair, base[4]) for pair in spelled]
    if columns == "integers":  # every context column an integer but the platform (devices report names)
        groups = [
            ("ios", 5, 3, 1700000000000, {"age": 18, "tier": 1, "plan": 0, "beta": 1}),
            ("android", 0, 2, 1699999999999, {"age": 17, "tier": 0, "caf\u00e9": 7}),
            (None, 44, 10, 1800000000000, {"age": 1000, "plan": 5, "cafe\u0301": 0}),
            ("ios", None, None, None, {"age": -3}),
            ("android", 1, 0, 0, {"age": 100, "tier": 1, "beta": 0}),
            ("ios", 840, 2, 1700000000000, {"age": 18}),
        ]
    # Trait name -> column; café in NFC and in NFD are two traits (names are bytes).
    traits = {"plan": "t_plan", "age": "t_age", "tier": "t_tier", "beta": "t_beta", "caf\u00e9": "t_cafe_nfc", "cafe\u0301": "t_cafe_nfd"}
    alphabet = ["a", "Z", "0", "-", "_", "'", "\\", "é", "e\u0301", "🚀", "日", " ", "\"", ";", "%"]
    def user(i):
        if columns == "integers": return (i * 7919 - 3000) * (-1 if i % 5 == 0 else 1)  # an integer id: hashed as its digits
        s, n = "", i
        while True:
            s += alphabet[n % len(alphabet)]; n //= len(alphabet)
            if n == 0: break
        if i % 1000 == 7: return "é🚀x" * 4300 + s + str(i % 4)  # 30 KB: the hash reads it in time linear in its length
        return "u" + s + str(i % 7)
    def unescape(field):  # appdna's TSV: \\ \t \r \n, \xHH (C0, DEL), \uXXXX (C1, bidi), \UXXXXXXXX
        if "\\" not in field: return field
        named = {"\\": "\\", "t": "\t", "r": "\r", "n": "\n"}
        return re.sub(r"\\(\\|t|r|n|x[0-9A-F]{2}|u[0-9A-F]{4}|U[0-9A-F]{8})", lambda m: named.get(m[1]) or chr(int(m[1][1:], 16)), field)
    # Both sides become lines "user US experiment US bucket US variant US eligible" (US = \x1f), '-' for no variant.
    expected, rows = [], []
    for g, ctx in enumerate(groups):
        ids = [user(i) for i in range(g, count, len(groups))]
        platform, country, version, installed, tr = ctx
        installed, installed_flag = installed if isinstance(installed, tuple) else (installed, installed)
        if columns == "text" and isinstance(installed, int): installed = str(installed)
        args = [appdna, "bucket", "-", "--bundle", bundle, "--format", "tsv", "--scheme", scheme]
        if platform is not None: args += ["--platform", platform]
        if country is not None: args += ["--country", str(country)]
        if version is not None: args += ["--app-version", str(version)]
        if installed_flag is not None: args += ["--installed-at", str(installed_flag)]
        for k, v in tr.items(): args += ["--trait", f"{k}={v}"]
        out = subprocess.run(args, input="\n".join(map(str, ids)).encode() + b"\n", capture_output=True, check=True).stdout.decode()
        for line in out.split("\n")[:-1]:
            u, e, _hash, b, v, el = line.split("\t")
            expected.append("\x1f".join((unescape(u), unescape(e), b, unescape(v), el)))
        for u in ids:
            rows.append({"user_id": u, "platform": platform, "country": country, "app_version": version, "installed_at": installed,
                         **{column: tr.get(t) for t, column in traits.items()}})
    data = os.path.join(tmp, "users.ndjson")
    with open(data, "w", encoding="utf-8") as f:
        for r in rows: f.write(json.dumps(r) + "\n")
    cols = ["--platform-column", "platform", "--country-column", "country", "--app-version-column", "app_version",
            "--installed-at-column", "installed_at"] + sum((["--trait-column", f"{t}={column}"] for t, column in traits.items()), [])
    query = subprocess.run([appdna, "warehouse", "assignment", bundle, "--dialect", dialect, "--scheme", scheme] + cols,
                           capture_output=True, check=True).stdout.decode()
    number = "int" if columns == "integers" else "text"
    schema = [("user_id", number), ("platform", "text"), ("country", number), ("app_version", number),
              ("installed_at", "text" if columns == "text" else "int")] + [(column, number) for column in traits.values()]
    separator = "char(31)" if dialect == "clickhouse" else "chr(31)"
    text_type = {"clickhouse": "String", "spark": "STRING", "duckdb": "VARCHAR"}[dialect]
    lines_query = (f"SELECT concat_ws({separator}, user_id, experiment, CAST(bucket AS {text_type}), "
                   f"coalesce(variant, '-'), eligible) FROM ({query}) AS generated")
    engine.load("users", schema, data)
    got = engine.lines(lines_query)
    expected.sort(); got.sort()
    print(f"rows {len(got)} expected {len(expected)} " + ("same" if got == expected else "DIFFERENT"))
    if got != expected:
        e, g = set(expected), set(got)
        for x in sorted(e - g)[:10]: print("ONLY-APPDNA", [f[:80] for f in x.split("\x1f")])
        for x in sorted(g - e)[:10]: print("ONLY-SQL", [f[:80] for f in x.split("\x1f")])
"""#
}
