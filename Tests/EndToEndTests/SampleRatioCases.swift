import Foundation
import XCTest
import TestSupport

/// `warehouse srm` on the real engines (`WarehouseEngineTests`): planted imbalances are
/// flagged, a fair sample is not, and every chi-square and p-value agrees with an independent
/// computation (scipy's `chi2.sf`) — the p-value within 5 % wherever it is under 0.05, and
/// within [0, 1] where the sample is exactly fair (the erfc fit overshoots 1 there).
/// `warehouse duplicates` against the same counts computed in Python. An experiment id and a
/// variant hold bidi and C1 controls (escaped in each engine's literals).
enum SampleRatioCases {
    static func cases(bundle: String, engine: String) -> [EngineCase] {
        [EngineCase(name: "srm", python: script, function: "srm_case", arguments: [Binary.url.path, bundle, engine]) { output, file, line in
            XCTAssertEqual(output, "flagged skewed\n", "\(engine): only the 52/48 split is a mismatch; no value differs from scipy", file: file, line: line)
         },
         EngineCase(name: "duplicates", python: duplicatesScript, function: "duplicates_case", arguments: [Binary.url.path, bundle, engine]) { output, file, line in
            XCTAssertEqual(output, "same\n", engine, file: file, line: line)
         }]
    }

    static let bundle = #"""
    {"bundle_version": 5, "experiments": {
      "fair": {"status": "running", "salt": "f", "variants": [{"id": "control", "weight": 0.5}, {"id": "b", "weight": 0.5}]},
      "skewed": {"status": "running", "salt": "s", "variants": [{"id": "control", "weight": 0.5}, {"id": "b", "weight": 0.5}]},
      "three": {"status": "running", "salt": "t", "variants": [{"id": "a", "weight": 0.57}, {"id": "b", "weight": 0.33}, {"id": "c", "weight": 0.1}]},
      "four": {"status": "running", "salt": "q", "variants": [{"id": "a", "weight": 0.25}, {"id": "b", "weight": 0.25}, {"id": "c", "weight": 0.25}, {"id": "d", "weight": 0.25}]},
      "quote'exp\\\u202e\u009b": {"status": "running", "salt": "x", "variants": [{"id": "v'1\u2066", "weight": 0.5}, {"id": "v\\2", "weight": 0.5}]},
      "paused": {"status": "paused", "salt": "p", "variants": [{"id": "a", "weight": 0.5}, {"id": "b", "weight": 0.5}]},
      "exact": {"status": "running", "salt": "e", "variants": [{"id": "a", "weight": 0.5}, {"id": "b", "weight": 0.5}]}
    }}
    """#

    /// Exposures (user, experiment, variant), each user exposed a few times; planted counts.
    static let script = #"""
    def srm_case(engine, tmp, appdna, bundle, dialect):
      import random, subprocess
      from scipy.stats import chi2
      rng = random.Random(7)
      plan = {  # experiment: {variant: distinct users}
          "fair": {"control": 20000 + rng.randint(-150, 150), "b": 0}, "skewed": {"control": 20800, "b": 19200},
          "three": {"a": 5640, "b": 3350, "c": 1010}, "four": {"a": 2500, "b": 2550, "c": 2450, "d": 2600},
          "quote'exp\\\u202e\u009b": {"v'1\u2066": 1000, "v\\2": 1000}, "paused": {"a": 10, "b": 90}, "exact": {"a": 500, "b": 500},
      }
      plan["fair"]["b"] = 40000 - plan["fair"]["control"]
      shares = {"fair": [0.5, 0.5], "skewed": [0.5, 0.5], "three": [0.5699, 0.33, 0.1001], "four": [0.25] * 4, "quote'exp\\\u202e\u009b": [0.5, 0.5],
                "exact": [0.5, 0.5]}
      rows, n = [], 0
      for exp, variants in plan.items():
          for variant, users in variants.items():
              for _ in range(users):
                  n += 1
                  for _ in range(1 + n % 3):  # repeated exposures of one user count once
                      rows.append({"user_id": f"u{n}", "experiment": exp, "variant": variant})
      query = subprocess.run([appdna, "warehouse", "srm", bundle, "--dialect", dialect, "--exposures", "exposures"],
                             capture_output=True, check=True).stdout.decode()
      data = os.path.join(tmp, "srm-exposures.ndjson")
      with open(data, "w") as f:
          for r in rows: f.write(json.dumps(r) + "\n")
      engine.load("exposures", [("user_id", "text"), ("experiment", "text"), ("variant", "text")], data)
      got = engine.rows(query)
      problems, flagged = [], {}
      by_exp = {}
      for e, v, users, share, chi, df, p, srm in got:
          by_exp.setdefault(e, []).append((v, float(users), float(share), float(chi), int(df), float(p), int(srm)))
      if set(by_exp) != set(shares): problems.append(f"experiments {sorted(by_exp)}")
      for e, rs in by_exp.items():
          total = sum(r[1] for r in rs)
          want_users = plan[e]
          exp_shares = dict(zip(want_users, shares[e]))
          chi_ref = sum((want_users[v] - total * exp_shares[v]) ** 2 / (total * exp_shares[v]) for v in want_users)
          p_ref = chi2.sf(chi_ref, len(want_users) - 1)
          for v, users, share, chi, df, p, srm in rs:
              if users != want_users[v]: problems.append(f"{e}/{v} users {users} != {want_users[v]}")
              if abs(share - exp_shares[v]) > 1e-12: problems.append(f"{e}/{v} share {share}")
              if abs(chi - chi_ref) > 1e-6 * max(1, chi_ref): problems.append(f"{e} chi {chi} != {chi_ref}")
              if df != len(want_users) - 1: problems.append(f"{e} df {df}")
              if (p_ref < 0.05 and abs(p - p_ref) > 0.05 * p_ref) or abs(p - p_ref) > 1e-6: problems.append(f"{e} p {p} != {p_ref}")
              if not 0 <= p <= 1: problems.append(f"{e} p {p} outside [0, 1]")
              flagged[e] = srm
      print("flagged", ",".join(sorted(e for e, f in flagged.items() if f)))
      for x in problems[:10]: print("PROBLEM", x)
    """#

    /// `warehouse duplicates`: exposures after the first per (experiment, session, user), against the
    /// same counts computed here in Python.
    static let duplicatesScript = #"""
    def duplicates_case(engine, tmp, appdna, bundle, dialect):
      import random, subprocess, collections
      rng = random.Random(11)
      rows = []
      for i in range(3000):
          exp = rng.choice(["fair", "skewed", "three", "quote'exp\\\u202e\u009b", "not-in-bundle"])
          user, session = f"u{rng.randint(0, 400)}", f"s{rng.randint(0, 900)}"
          for _ in range(rng.choice([1, 1, 1, 2, 5])):
              rows.append({"user_id": user, "session_id": session, "experiment": exp, "variant": "x"})
      per = collections.Counter((r["experiment"], r["session_id"], r["user_id"]) for r in rows if r["experiment"] != "not-in-bundle")
      want = {}
      for (e, s, u), n in per.items():
          w = want.setdefault(e, [0, 0, 0, set()]); w[0] += 1; w[1] += n; w[2] += n - 1
          if n > 1: w[3].add(u)
      want = {e: (w[0], w[1], w[2], len(w[3])) for e, w in want.items()}
      query = subprocess.run([appdna, "warehouse", "duplicates", bundle, "--dialect", dialect, "--exposures", "exposures"],
                             capture_output=True, check=True).stdout.decode()
      data = os.path.join(tmp, "duplicate-exposures.ndjson")
      with open(data, "w") as f:
          for r in rows: f.write(json.dumps(r) + "\n")
      engine.load("exposures", [("user_id", "text"), ("session_id", "text"), ("experiment", "text"), ("variant", "text")], data)
      got = {r[0]: tuple(int(x) for x in r[1:]) for r in engine.rows(query)}
      print("same" if got == want else f"DIFF got {got} want {want}")
    """#
}
