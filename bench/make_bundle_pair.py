#!/usr/bin/env python3
"""Writes two large, valid SDK-shape config bundles, OLD and NEW, for `bench/bundle.sh`.

Usage: make_bundle_pair.py OLD_PATH NEW_PATH SIZE_MB

OLD is a bundle `appdna bundle validate` accepts without errors: experiments keyed by id with
`status`, `salt`, `variants` (ids, weights summing to 1), `traffic_allocation`, `targeting` and
payloads built by make_big_bundle.py's generators, plus a large `remote_config`. NEW is OLD
with about 1% of experiments edited (weights, salt, status, traffic allocation), some removed and
added, some flags changed, and bundle_version + 1. Deterministic: same arguments, same bytes.
"""
import copy
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_big_bundle as gen  # noqa: E402  (same directory)

SPLITS = [[0.5, 0.5], [0.25, 0.25, 0.5], [0.1, 0.2, 0.7], [0.25, 0.25, 0.25, 0.25], [1.0]]


def experiment(rng, n):
    split = rng.choice(SPLITS)
    return {
        "id": "exp_%06d" % n,
        "name": gen.text(rng),
        "status": rng.choice(["running", "running", "paused", "completed"]),
        "type": "ab",
        "salt": "%016x" % rng.getrandbits(64),
        "platforms": rng.sample(["ios", "android"], rng.randint(1, 2)),
        "traffic_allocation": rng.choice([1.0, 0.5, 0.25, 0.8]),
        "started_at_ms": 1708344000000 + rng.randint(0, 10**9),
        "targeting": {"countries": rng.sample(["US", "GB", "DE", "FR", "JP", "BR"], rng.randint(0, 3)),
                      "min_app_version": "1.%d.0" % rng.randint(0, 9)},
        "variants": [{"id": "variant_%d" % i, "weight": w, "is_control": i == 0, "payload": gen.config(rng, 0)}
                     for i, w in enumerate(split)],
    }


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: make_bundle_pair.py OLD_PATH NEW_PATH SIZE_MB")
    old_path, new_path, size_mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
    target = int(size_mb * 1024 * 1024)
    rng = random.Random(20261121)
    flags = {"flag_%05d" % i: gen.number(rng) if i % 3 else rng.random() < 0.5 for i in range(2000)}
    experiments = {}
    written = 0
    n = 0
    while written < target:
        e = experiment(rng, n)
        experiments[e["id"]] = e
        text = json.dumps(e, ensure_ascii=False, indent=2)
        written += len(text.encode("utf-8")) + 6 * (text.count("\n") + 1) + 20  # nested 3 levels deeper
        n += 1
    old = {"bundle_version": 41, "experiments": {"experiments": experiments}, "remote_config": flags,
           "onboarding": {"active_flow_id": "f1", "flows": {"f1": {"steps": []}}}}
    new = copy.deepcopy(old)
    new["bundle_version"] = 42
    ids = list(experiments)
    exps = new["experiments"]["experiments"]
    for eid in rng.sample(ids, max(1, len(ids) // 100)):
        e = exps[eid]
        r = rng.random()
        if r < 0.3 and len(e["variants"]) == 2:
            e["variants"][0]["weight"], e["variants"][1]["weight"] = 0.4, 0.6
        elif r < 0.45:
            e["salt"] = "%016x" % rng.getrandbits(64)
        elif r < 0.6:
            e["status"] = "completed"
        elif r < 0.75:
            e["traffic_allocation"] = 0.9
        elif r < 0.85:
            del exps[eid]
        else:
            e["variants"].reverse()
    for i in range(len(ids) // 200):
        e = experiment(rng, n + i)
        exps[e["id"]] = e
    for key in rng.sample(list(flags), 50):
        new["remote_config"][key] = "changed"
    for path, bundle in ((old_path, old), (new_path, new)):
        with open(path, "w", encoding="utf-8") as out:
            json.dump(bundle, out, ensure_ascii=False, indent=2)
            out.write("\n")


if __name__ == "__main__":
    main()
