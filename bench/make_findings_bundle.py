#!/usr/bin/env python3
"""Writes a deterministic SDK-shape bundle of EXPERIMENTS experiments (90,000 unless given)
where about two in three have a finding for `bench/json.sh`: repeated keys (E003), duplicate
variant ids (E011), weights that do not sum to 1 (E014), bad versions (E018), unknown statuses
(W002), blank salts (W003), upper-case platforms (W010), lower-case countries (W011), and a pair
of look-alike ids (W009) at the two ends. `bundle validate` once took half a minute on this
document (a JSON pointer per repeated key, found by walking from the root): the bench keeps the
time beside `jq empty`'s. With --one-line the whole document is one line, as a minified bundle
is: each finding's column was once counted from the start of that line (minutes for 60,000
findings on a 20 MB line).

Usage: make_findings_bundle.py OUTPUT_PATH [EXPERIMENTS] [--one-line]
"""
import random
import sys


def main():
    args = [a for a in sys.argv[1:] if a != "--one-line"]
    one_line = len(args) < len(sys.argv) - 1
    if len(args) not in (1, 2):
        sys.exit("usage: make_findings_bundle.py OUTPUT_PATH [EXPERIMENTS] [--one-line]")
    count = int(args[1]) if len(args) == 2 else 90000
    newline = "" if one_line else "\n"
    rng = random.Random(20261126)
    items = []
    for i in range(count):
        exp_id = "exp_%d" % i
        if i == 5:
            exp_id = "caf\u00e9"          # NFC
        if i == count - 3:
            exp_id = "cafe\u0301"         # the same text in NFD: W009
        p = rng.randrange(12)
        status = "stopped" if p == 0 else "running"
        salt = "" if p == 1 else "salt%d" % rng.randrange(1000000)
        w0, w1 = ("0.5", "0.4") if p == 2 else ("0.5", "0.5")
        second = "control" if p == 3 else "treatment"
        countries = '"us"' if p == 4 else '"US", "DE"'
        platforms = '"IOS"' if p == 5 else '"ios"'
        repeated = '"status": "paused", ' if p == 6 else ""
        version = "v2" if p == 7 else "2.1.0"
        items.append(
            '"%s": {%s"status": "%s", "salt": "%s", "platforms": [%s], '
            '"variants": [{"id": "control", "weight": %s, "payload": {"n": %d}}, {"id": "%s", "weight": %s}], '
            '"targeting": {"countries": [%s], "min_app_version": "%s"}}'
            % (exp_id, repeated, status, salt, platforms, w0, rng.randrange(100), second, w1, countries, version))
    with open(args[0], "w", encoding="utf-8") as out:
        out.write('{"bundle_version": 3, "experiments": {"experiments": {' + newline)
        out.write(("," + newline).join(items))
        out.write("}}}" + newline)


if __name__ == "__main__":
    main()
