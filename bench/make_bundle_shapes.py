#!/usr/bin/env python3
"""Writes one deterministic bundle of a given SHAPE and size, for `bench/bundle.sh` (25 MB) and
for the golden-findings test (Tests/AppDNACLITests/BundleShapeGoldenTests.swift, a few KB).

Usage: make_bundle_shapes.py SHAPE OUTPUT_PATH SIZE_KB
       make_bundle_shapes.py --list

Shapes (one per way a validator can be slow):
  compact      the usual experiments, no whitespace at all
  indent2      the same, 2-space indented
  indent4      the same, 4-space indented (more whitespace than content)
  numbers      payloads of many small integers and decimals (number scanning)
  strings      long strings with escapes and non-ASCII text (string scanning, UTF-8 checks)
  many-small   many tiny experiments (per-experiment rule work dominates)
  few-huge     a handful of experiments with multi-megabyte payloads (deep, wide values)

Every shape also carries the same few deliberate defects (a weight sum off by 0.1, a bad
status, a blank salt, a truncating split, an integer beyond 2^53), so each has findings to
compare, and the seed is fixed: the same arguments always give the same bytes.
"""
import json
import random
import sys

SHAPES = ["compact", "indent2", "indent4", "numbers", "strings", "many-small", "few-huge"]
WORDS = ["alpha", "beta", "gamma", "delta", "checkout", "onboarding", "pricing", "search",
         "ranking", "banner", "colour", "dark_mode", "limit", "timeout", "retry", "cache"]
UNICODE = ["caf\u00e9", "na\u00efve", "\u65e5\u672c\u8a9e", "\u0441\u043f\u0430\u0441\u0438\u0431\u043e",
           "emoji \U0001F680", "stra\u00dfe", "\u00bfqu\u00e9?"]
ESCAPED = ["line one\nline two", "tab\tseparated", "say \"hello\"", "C:\\path\\to\\file",
           "bell\u0007", "slash/ok"]
SPLITS = [[0.5, 0.5], [0.34, 0.33, 0.33], [0.25, 0.25, 0.25, 0.25], [0.7, 0.3]]


def text(rng):
    r = rng.random()
    if r < 0.08:
        return rng.choice(UNICODE)
    if r < 0.13:
        return rng.choice(ESCAPED)
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6)))


def long_text(rng):
    """A paragraph mixing plain words, escapes and non-ASCII (the `strings` shape)."""
    parts = []
    for _ in range(rng.randint(20, 60)):
        r = rng.random()
        parts.append(rng.choice(UNICODE) if r < 0.3 else rng.choice(ESCAPED) if r < 0.45 else rng.choice(WORDS))
    return " ".join(parts)


def number(rng):
    r = rng.random()
    if r < 0.5:
        return rng.randint(-1000, 100000)
    if r < 0.85:
        return round(rng.uniform(-100, 100), rng.randint(1, 6))
    return float("%.3e" % rng.uniform(1e-9, 1e12))


def config(rng, depth):
    obj = {}
    for i in range(rng.randint(2, 7)):
        key = "%s_%d" % (rng.choice(WORDS), i)
        r = rng.random()
        if depth < 3 and r < 0.2:
            obj[key] = config(rng, depth + 1)
        elif r < 0.35:
            obj[key] = [number(rng) for _ in range(rng.randint(0, 5))]
        elif r < 0.55:
            obj[key] = text(rng)
        elif r < 0.8:
            obj[key] = number(rng)
        elif r < 0.92:
            obj[key] = rng.random() < 0.5
        else:
            obj[key] = None
    return obj


def payload(rng, shape):
    if shape == "numbers":
        return {"table_%d" % i: [rng.randint(0, 255) for _ in range(rng.randint(20, 60))]
                for i in range(rng.randint(2, 4))} | {"scale": round(rng.uniform(0, 10), 3)}
    if shape == "strings":
        return {"copy_%d" % i: long_text(rng) for i in range(rng.randint(1, 3))}
    if shape == "many-small":
        return {"on": rng.random() < 0.5}
    return config(rng, 0)


def experiment(rng, n, shape):
    weights = rng.choice(SPLITS)
    variants = [{"id": "control" if v == 0 else "variant_%d" % v, "weight": weight,
                 "is_control": v == 0, "payload": payload(rng, shape)}
                for v, weight in enumerate(weights)]
    exp = {"id": "exp_%06d" % n, "name": text(rng),
           "status": rng.choice(["running", "running", "paused", "completed"]),
           "salt": "%016x" % rng.getrandbits(64),
           "platforms": rng.sample(["ios", "android"], rng.randint(1, 2)),
           "variants": variants}
    if shape != "many-small":
        exp["targeting"] = {"countries": rng.sample(["US", "DE", "FR", "JP", "BR", "IN"], rng.randint(1, 3)),
                            "min_app_version": "%d.%d.%d" % (rng.randint(1, 3), rng.randint(0, 20), rng.randint(0, 9))}
        if rng.random() < 0.5:
            exp["traffic_allocation"] = round(rng.random(), 4)
    # The deliberate defects, at fixed experiment numbers so every shape has the same findings.
    if n == 1:
        exp["variants"][0]["weight"] = round(exp["variants"][0]["weight"] - 0.1, 4)
    elif n == 2:
        exp["status"] = "archived"
    elif n == 3:
        exp["salt"] = "  "
    elif n == 4:
        exp["variants"] = [{"id": "control", "weight": 0.57}, {"id": "variant_1", "weight": 0.43}]
    elif n == 5:
        exp["started_at_ms"] = 9007199254740993
    return exp


def huge_payload(rng, target):
    """One payload of about `target` bytes: wide objects of nested configs."""
    out, size, i = {}, 0, 0
    while size < target:
        block = {"block_%d" % j: config(rng, 0) for j in range(10)}
        size += len(json.dumps(block))
        out["section_%05d" % i] = block
        i += 1
    return out


def main():
    if sys.argv[1:] == ["--list"]:
        print("\n".join(SHAPES))
        return
    if len(sys.argv) != 4 or sys.argv[1] not in SHAPES:
        sys.exit("usage: make_bundle_shapes.py SHAPE OUTPUT_PATH SIZE_KB (SHAPE: %s)" % ", ".join(SHAPES))
    shape, path, target = sys.argv[1], sys.argv[2], int(float(sys.argv[3]) * 1024)
    rng = random.Random(20241123)
    indent = {"indent2": 2, "indent4": 4}.get(shape)
    separators = (",", ":") if shape == "compact" else None
    experiments, size, n = {}, 0, 0
    if shape == "few-huge":
        for n in range(6):
            exp = experiment(rng, n, shape)
            exp["variants"][-1]["payload"] = huge_payload(rng, max(target // 6, 1024))
            experiments[exp["id"]] = exp
    else:
        while size < target or n < 6:
            exp = experiment(rng, n, shape)
            experiments[exp["id"]] = exp
            text = json.dumps(exp, ensure_ascii=False, indent=indent, separators=separators)
            # Each line of an experiment sits three levels deep in the bundle.
            size += len(text.encode("utf-8")) + text.count("\n") * 3 * (indent or 0)
            n += 1
    bundle = {"bundle_version": 42, "remote_config": {"flag_%03d" % i: rng.random() < 0.5 for i in range(20)},
              "experiments": {"experiments": experiments}}
    with open(path, "w", encoding="utf-8") as out:
        json.dump(bundle, out, ensure_ascii=False, indent=indent, separators=separators)
        out.write("\n")


if __name__ == "__main__":
    main()
