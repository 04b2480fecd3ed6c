import Foundation
import XCTest
import TestSupport

/// Issue 44.2: an id that is not valid UTF-8 hashes as its raw bytes on every engine whose
/// text can hold it, as ClickHouse's `murmurHash3_32` does. Spark read such an id through
/// `encode(user_id, 'UTF-8')` (each invalid byte became EF BF BD) while counting the raw
/// length, so it hashed neither form. The ids (invalid bytes alone, inside, at every
/// position mod 4, truncated sequences, surrogates, overlong forms, 30 KB of them; valid ids
/// beside them) are loaded from their hex: as text holding those bytes on ClickHouse and Spark
/// (as Parquet BINARY read as a string carries them) and as Spark's BINARY; every bucket,
/// variant and traffic-allocation verdict of both schemes is compared with mmh3 over the bytes
/// (`bucket` refuses such ids: it takes ids as the app has them, UTF-8). DuckDB's text cannot
/// hold such bytes: a BLOB id column is refused with an error there, not hashed as the `\xFF`
/// text DuckDB would cast it to. The exposure audit over the same ids: a recorded variant is
/// judged against the raw bytes' variant, and such an id is never called not normalised (it
/// has no normal form; ClickHouse's normalizeUTF8NFC failed the whole query on it).
enum WarehouseRawByteIDCases {
    static let bundle = #"""
    {"experiments": {
     "e": {"salt": "s", "status": "running", "variants": [{"id": "a", "weight": 0.5}, {"id": "b", "weight": 0.5}]},
     "ab": {"salt": "s", "status": "running", "variants": [{"id": "a", "weight": 0.5}, {"id": "b", "weight": 0.5}]},
     "abc": {"salt": "s", "status": "running", "variants": [{"id": "a", "weight": 0.5}, {"id": "b", "weight": 0.5}]},
     "abcd": {"salt": "s\u00e9", "status": "running", "variants": [{"id": "a", "weight": 0.5}, {"id": "b", "weight": 0.5}]},
     "ta": {"salt": "t", "status": "running", "traffic_allocation": 0.5, "variants": [{"id": "a", "weight": 0.5}, {"id": "b", "weight": 0.5}]}
    }}
    """#

    static func cases(engine: String, scratch: ScratchDirectory) throws -> [EngineCase] {
        let bundle = try scratch.file("raw-bytes.json", Array(bundle.utf8))
        guard engine != "duckdb" else {
            return [EngineCase(name: "raw-bytes-blob-refused", python: script, function: "blob_refused_case",
                               arguments: [Binary.url.path, bundle, engine]) { output, file, line in
                XCTAssertEqual(output, "refused: a BLOB column is read as text\n", engine, file: file, line: line)
            }]
        }
        let kinds = engine == "spark" ? ["bytes", "binary"] : ["bytes"]
        let audit = EngineCase(name: "raw-bytes-audit", python: script, function: "raw_bytes_audit_case",
                               arguments: [Binary.url.path, bundle, engine]) { output, file, line in
            XCTAssertEqual(output.split(separator: "\n").first.map(String.init), "exposures 344 disagreeing 172 same",
                           "\(engine) audit: \(output.prefix(3000))", file: file, line: line)
        }
        return [audit] + kinds.flatMap { kind in
            ["sdk", "docs"].map { scheme in
                EngineCase(name: "raw-bytes-\(kind)-\(scheme)", python: script, function: "raw_bytes_case",
                           arguments: [Binary.url.path, bundle, engine, kind, scheme]) { output, file, line in
                    XCTAssertEqual(output.split(separator: "\n").first.map(String.init), "ids 172 invalid 160 rows 860 same",
                                   "\(engine) \(kind) \(scheme): \(output.prefix(3000))", file: file, line: line)
                }
            }
        }
    }

    static let script = #"""
    def raw_bytes_ids():
        import random
        rng = random.Random(44)
        fixed = [b"\xff", b"\xfe\xff", b"a\xffb", b"ab\xff", b"abc\xff", b"abcd\xff", b"\xc3", b"\xc3(", b"\xe2\x82", b"\xe2\x82x",
                 b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xc0\xaf", b"\xe0\x80\xaf", b"\xf4\x90\x80\x80", b"\xf8\x88\x80\x80\x80", b"\x80",
                 b"caf\xe9", b"'\xff\\", b"\xff" * 30000, b"x" * 29999 + b"\x80"]
        ids = list(fixed)
        while len(ids) < 160:  # random bytes, each id with some that are not UTF-8
            raw = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))
            try: raw.decode("utf-8")
            except UnicodeDecodeError: ids.append(raw)
        valid = [b"plain", b"caf\xc3\xa9", b"\xf0\x9f\x9a\x80", b"u1", b"", b"a", b"ab", b"abc", b"abcd", b"'\\", "é🚀x".encode() * 100, b"z"]
        return ids + valid, len(ids)

    def expected_rows(bundle, ids, scheme):
        import mmh3
        experiments = json.load(open(bundle, encoding="utf-8"))["experiments"]
        rows = []
        for raw in ids:
            for exp, e in experiments.items():
                salt = e["salt"]
                if scheme == "sdk":
                    bucket = mmh3.hash(f"{exp}.{salt}.".encode() + raw, 0, signed=False) % 10000
                    variant = "a" if bucket < 5000 else "b"
                else:
                    bucket = mmh3.hash(raw + (exp + salt).encode(), 0, signed=False) % 100
                    variant = "a" if bucket < 50 else "b"
                eligible = "yes"
                if "traffic_allocation" in e:  # every row is iOS: allocation applies
                    inside = mmh3.hash(f"{exp}.{salt}.".encode() + raw + b".allocation", 0, signed=False) % 10000 < 5000
                    eligible = "yes" if inside else "no"
                    if not inside: variant = "-"
                rows.append("\x1f".join((raw.hex().upper(), exp, str(bucket), variant, eligible)))
        return rows

    def raw_bytes_case(engine, tmp, appdna, bundle, dialect, kind, scheme):
        import subprocess
        ids, invalid = raw_bytes_ids()
        data = os.path.join(tmp, "raw-bytes.ndjson")
        with open(data, "w") as f:
            for raw in ids: f.write(json.dumps({"user_id": raw.hex(), "platform": "ios"}) + "\n")
        engine.load("raw_users", [("user_id", kind), ("platform", "text")], data)
        query = subprocess.run([appdna, "warehouse", "assignment", bundle, "--dialect", dialect, "--scheme", scheme, "--table", "raw_users",
                                "--platform-column", "platform"], capture_output=True, check=True).stdout.decode()
        separator = "char(31)" if dialect == "clickhouse" else "chr(31)"
        text_type = {"clickhouse": "String", "spark": "STRING"}[dialect]
        got = engine.lines(f"SELECT concat_ws({separator}, upper(hex(user_id)), experiment, CAST(bucket AS {text_type}), "
                           f"coalesce(variant, '-'), eligible) FROM ({query}) AS generated")
        expected = expected_rows(bundle, ids, scheme)
        got.sort(); expected.sort()
        print(f"ids {len(ids)} invalid {invalid} rows {len(got)} " + ("same" if got == expected else "DIFFERENT"))
        if got != expected:
            for x in sorted(set(expected) - set(got))[:10]: print("ONLY-MMH3", x[:120])
            for x in sorted(set(got) - set(expected))[:10]: print("ONLY-SQL", x[:120])

    def raw_bytes_audit_case(engine, tmp, appdna, bundle, dialect):
        # Each id records, in experiment "e", the variant its bytes give and the other one:
        # only the other is a disagreement, expected the bytes' variant, cause unexplained.
        import subprocess, mmh3
        ids, _ = raw_bytes_ids()
        data, expected = os.path.join(tmp, "raw-exposures.ndjson"), []
        with open(data, "w") as f:
            for n, raw in enumerate(ids):
                right = "a" if mmh3.hash(b"e.s." + raw, 0, signed=False) % 10000 < 5000 else "b"
                wrong = "b" if right == "a" else "a"
                for k, variant in enumerate([right, wrong]):
                    f.write(json.dumps({"event_id": f"x{n:04d}-{k}", "user_id": raw.hex(), "experiment": "e", "variant": variant,
                                        "session_id": f"s{n}"}) + "\n")
                expected.append((f"x{n:04d}-1", "e", wrong, right, "unexplained"))
        engine.load("raw_exposures", [("event_id", "text"), ("user_id", "bytes"), ("experiment", "text"), ("variant", "text"),
                                      ("session_id", "text")], data)
        query = subprocess.run([appdna, "warehouse", "audit", bundle, "--dialect", dialect, "--exposures", "raw_exposures"],
                               capture_output=True, check=True).stdout.decode()
        got = sorted(tuple(r) for r in engine.rows(query))
        print(f"exposures {2 * len(ids)} disagreeing {len(got)} " + ("same" if got == sorted(expected) else "DIFFERENT"))
        if got != sorted(expected):
            for x in sorted(set(expected) - set(got))[:10]: print("ONLY-MMH3", x)
            for x in sorted(set(got) - set(expected))[:10]: print("ONLY-SQL", x)

    def blob_refused_case(engine, tmp, appdna, bundle, dialect):
        import subprocess
        data = os.path.join(tmp, "blob-users.ndjson")
        with open(data, "w") as f: f.write(json.dumps({"user_id": b"a\xffb".hex(), "platform": "ios"}) + "\n")
        engine.load("blob_users", [("user_id", "binary"), ("platform", "text")], data)
        query = subprocess.run([appdna, "warehouse", "assignment", bundle, "--dialect", dialect, "--table", "blob_users"],
                               capture_output=True, check=True).stdout.decode()
        try:
            print("ran", engine.rows(query)[:3])
        except Exception as error:
            print("refused: a BLOB column is read as text" if "a BLOB column is read as text" in str(error) else f"other error: {error}")
    """#
}
