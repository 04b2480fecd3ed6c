#!/usr/bin/env python3
"""Writes a large, deterministic config-bundle-like JSON file for benchmarks.

Usage: make_big_bundle.py OUTPUT_PATH SIZE_MB

The shape is the SDK file shape `appdna` reads: a bundle of many experiments, each with variants,
allocations, targeting rules and nested configuration objects; strings include some escapes
and non-ASCII text; numbers are integers, decimals and exponents. The seed is fixed, so the
same arguments always give the same bytes (benchmarks stay comparable across runs).
"""
import json
import os
import random
import sys

# The value generators are shared with the shape generator (one set of words, strings, numbers).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_bundle_shapes import WORDS, config, number, text  # noqa: E402


SPLITS = [[0.5, 0.5], [0.34, 0.33, 0.33], [0.25, 0.25, 0.25, 0.25], [0.7, 0.3], [0.57, 0.43]]


def trait_rule(rng):
    """A well-formed rule: each operator with the value type devices can pass (issue 23: a rule
    no value can pass is a validation error, and codegen refuses an invalid bundle)."""
    op = rng.choice(["eq", "in", "gt", "exists"])
    value = {"eq": lambda: text(rng), "in": lambda: [text(rng), text(rng)], "gt": lambda: rng.randint(0, 100),
             "exists": lambda: True}[op]()
    return {"trait": rng.choice(WORDS), "operator": op, "value": value}


def experiment(rng, n):
    """One experiment in the SDK file shape (platform-facts section 3)."""
    weights = rng.choice(SPLITS)
    variants = []
    for v, weight in enumerate(weights):
        variants.append({
            "id": "control" if v == 0 else "variant_%d" % v,
            "weight": weight,
            "is_control": v == 0,
            "payload": config(rng, 0),
            "variant_doc": text(rng),
        })
    exp = {
        "id": "exp_%06d" % n,
        "name": text(rng),
        "status": rng.choice(["running", "running", "paused", "completed"]),
        "type": rng.choice(["paywall", "onboarding", "config"]),
        "salt": "%016x" % rng.getrandbits(64),
        "platforms": rng.sample(["ios", "android"], rng.randint(1, 2)),
        "variants": variants,
        "started_at_ms": 1700000000000 + rng.randint(0, 10**10),
        "targeting": {
            "countries": rng.sample(["US", "DE", "FR", "JP", "BR", "IN"], rng.randint(1, 3)),
            "min_app_version": "%d.%d.%d" % (rng.randint(1, 3), rng.randint(0, 20), rng.randint(0, 9)),
            "user_traits": [trait_rule(rng) for _ in range(rng.randint(0, 2))],
        },
    }
    if rng.random() < 0.5:
        exp["traffic_allocation"] = round(rng.random(), 4)
    return exp


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: make_big_bundle.py OUTPUT_PATH SIZE_MB")
    path, size_mb = sys.argv[1], float(sys.argv[2])
    target = int(size_mb * 1024 * 1024)
    rng = random.Random(20240601)
    with open(path, "w", encoding="utf-8") as out:
        flags = {"flag_%03d" % i: config(rng, 1) if i % 7 == 0 else rng.random() < 0.5 for i in range(200)}
        out.write('{\n  "bundle_version": 42,\n  "remote_config": %s,\n  "experiments": {\n    "experiments": {\n'
                  % json.dumps(flags, ensure_ascii=False))
        written = 0
        n = 0
        while written < target:
            exp = experiment(rng, n)
            chunk = json.dumps(exp, ensure_ascii=False, indent=2)
            chunk = "      %s: %s" % (json.dumps(exp["id"]), chunk.replace("\n", "\n      "))
            if n > 0:
                chunk = ",\n" + chunk
            out.write(chunk)
            written += len(chunk.encode("utf-8"))
            n += 1
        out.write('\n    }\n  }\n}\n')


if __name__ == "__main__":
    main()
