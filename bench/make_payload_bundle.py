#!/usr/bin/env python3
"""Writes one deterministic bundle of 20,000 experiments whose variants carry payload objects
and arrays of small integers, in one of three layouts, for `bench/json.sh`: the document the
issue-12 and issue-36 reports measured `bundle validate` on (26 MB 2-space, 11 MB compact,
39 MB 4-space). Every layout holds the same values; only the whitespace differs.

Usage: make_payload_bundle.py LAYOUT OUTPUT_PATH [EXPERIMENTS]
LAYOUT: compact | indent2 | indent4 (EXPERIMENTS: 20000 unless given)

The bundle is valid (validate exits 0): the time measured is reading and checking, not
reporting findings. The seed is fixed: the same arguments always give the same bytes.
"""
import json
import random
import sys

LAYOUTS = {"compact": (None, (",", ":")), "indent2": (2, None), "indent4": (4, None)}
SPLITS = [[0.5, 0.5], [0.34, 0.33, 0.33], [0.7, 0.3]]
WORDS = ["alpha", "beta", "gamma", "delta", "checkout", "onboarding", "pricing", "search",
         "ranking", "banner", "colour", "dark_mode", "limit", "timeout", "retry", "cache"]


def payload(rng):
    """A variant's payload: a few settings, a nested object, and arrays of small integers."""
    return {"title": " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 6))),
            "%s_limit" % rng.choice(WORDS): rng.randint(0, 1000),
            "levels": [rng.randint(0, 99) for _ in range(rng.randint(2, 3))],
            "layout": {"columns": rng.randint(1, 4)}}


def experiment(rng, n):
    weights = rng.choice(SPLITS)
    return {
        "id": "exp_%06d" % n,
        "name": " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 6))),
        "status": rng.choice(["running", "running", "paused", "completed"]),
        "salt": "%016x" % rng.getrandbits(64),
        "platforms": rng.sample(["ios", "android"], rng.randint(1, 2)),
        "variants": [{"id": "control" if v == 0 else "variant_%d" % v, "weight": w,
                      "is_control": v == 0, "payload": payload(rng)} for v, w in enumerate(weights)],
        "targeting": {"countries": rng.sample(["US", "DE", "FR", "JP", "BR", "IN"], rng.randint(1, 3)),
                      "min_app_version": "%d.%d.%d" % (rng.randint(1, 3), rng.randint(0, 20), rng.randint(0, 9))},
    }


def main():
    if len(sys.argv) not in (3, 4) or sys.argv[1] not in LAYOUTS:
        sys.exit("usage: make_payload_bundle.py compact|indent2|indent4 OUTPUT_PATH [EXPERIMENTS]")
    indent, separators = LAYOUTS[sys.argv[1]]
    count = int(sys.argv[3]) if len(sys.argv) == 4 else 20000
    rng = random.Random(20261125)
    experiments = {}
    for n in range(count):
        exp = experiment(rng, n)
        experiments[exp["id"]] = exp
    bundle = {"bundle_version": 7, "remote_config": {"flag_%03d" % i: rng.random() < 0.5 for i in range(50)},
              "experiments": {"experiments": experiments}}
    with open(sys.argv[2], "w", encoding="utf-8") as out:
        json.dump(bundle, out, ensure_ascii=False, indent=indent, separators=separators)
        out.write("\n")


if __name__ == "__main__":
    main()
