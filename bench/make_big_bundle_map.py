#!/usr/bin/env python3
"""make_big_bundle.py's bundle in the shape `appdna --bundle` looks experiments up in.

Usage: make_big_bundle_map.py OUTPUT_PATH SIZE_MB

make_big_bundle.py writes `"experiments": [ {...}, ... ]` (an array), but `appdna bucket
--bundle` finds an experiment by its key in an experiments *object* (`{"exp_000000": {...}}`)
and reports "the bundle has no experiments" for the array form. This writes the very same
experiment objects (same generator functions, same seed, same order) keyed by their "id",
so `appdna bucket USER exp_NNNNNN --bundle FILE` works. Deterministic like the original.
"""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_big_bundle  # noqa: E402  (same directory)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: make_big_bundle_map.py OUTPUT_PATH SIZE_MB")
    path, size_mb = sys.argv[1], float(sys.argv[2])
    target = int(size_mb * 1024 * 1024)
    rng = random.Random(20240601)
    with open(path, "w", encoding="utf-8") as out:
        out.write('{\n  "version": 3,\n  "generated": "benchmark bundle",\n  "experiments": {\n')
        written = 0
        n = 0
        while written < target:
            exp = make_big_bundle.experiment(rng, n)
            chunk = json.dumps(exp, ensure_ascii=False, indent=2)
            chunk = "    %s: %s" % (json.dumps(exp["id"]), chunk.replace("\n", "\n    "))
            if n > 0:
                chunk = ",\n" + chunk
            out.write(chunk)
            written += len(chunk.encode("utf-8"))
            n += 1
        out.write('\n  }\n}\n')


if __name__ == "__main__":
    main()
