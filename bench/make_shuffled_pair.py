#!/usr/bin/env python3
"""Writes two SDK-shape bundles, OLD and NEW, whose big arrays are reordered, for `bench/diff.sh`.

Usage: make_shuffled_pair.py OLD_PATH NEW_PATH SIZE_MB [shuffled|reversed]

OLD holds a few experiments and, under `remote_config`, large arrays: three without an identity
field (no `id`, `key` or `name`: numbers, strings and small objects) and one of objects with an
`id`, filling about SIZE_MB MB. NEW is OLD with every one of those arrays shuffled (the default)
or reversed, and bundle_version + 1: the worst cases for a sequence diff (almost nothing stays
in order; reversed is the one Myers' algorithm alone never finished) and for the moves of a
keyed array. Deterministic: same arguments, same bytes.
"""
import json
import random
import sys


def main():
    old_path, new_path, size_mb = sys.argv[1], sys.argv[2], int(sys.argv[3])
    order = sys.argv[4] if len(sys.argv) > 4 else "shuffled"
    if order not in ("shuffled", "reversed"):
        sys.exit("usage: make_shuffled_pair.py OLD_PATH NEW_PATH SIZE_MB [shuffled|reversed]")
    rng = random.Random(20260219 + size_mb)
    target = size_mb * 1024 * 1024
    # Four kinds of arrays, a quarter of the bytes each (sizes measured per element below).
    numbers, strings, objects, plans = [], [], [], []
    per_kind = target // 4
    used = 0
    while used < per_kind:
        value = rng.randint(0, 10**9)
        numbers.append(value)
        used += len(str(value)) + 2
    used = 0
    while used < per_kind:
        value = "sku-%08x" % rng.getrandbits(32)
        strings.append(value)
        used += len(value) + 4
    used = 0
    while used < per_kind:
        value = {"price": rng.randint(99, 9999), "currency": rng.choice(["EUR", "USD", "GBP"]), "tier": rng.randint(1, 5)}
        objects.append(value)
        used += 50
    used = 0
    while used < per_kind:
        value = {"id": "plan-%d" % len(plans), "price": rng.randint(99, 9999)}
        plans.append(value)
        used += len(value["id"]) + 30
    old = {
        "bundle_version": 1,
        "experiments": {
            "exp_checkout": {"status": "running", "salt": "s1", "traffic_allocation": 1.0,
                             "variants": [{"id": "control", "weight": 0.5}, {"id": "b", "weight": 0.5}]},
        },
        "remote_config": {"numbers": numbers, "skus": strings, "prices": objects, "plans": plans},
        "feature_flags": {"new_checkout": True},
    }
    new = json.loads(json.dumps(old))
    new["bundle_version"] = 2
    for name in ("numbers", "skus", "prices", "plans"):
        if order == "reversed":
            new["remote_config"][name].reverse()
        else:
            rng.shuffle(new["remote_config"][name])
    for path, bundle in ((old_path, old), (new_path, new)):
        with open(path, "w") as f:
            json.dump(bundle, f, separators=(", ", ": "))
            f.write("\n")


if __name__ == "__main__":
    main()
