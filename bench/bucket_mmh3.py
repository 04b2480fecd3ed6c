#!/usr/bin/env python3
"""Reference for bench/bucket.sh: the same stdin -> stdout job as
`appdna bucket - EXP SALT [--variants a=0.5,b=0.5]`, using the `mmh3` package.

Usage: bucket_mmh3.py EXP SALT [--variants name=weight,...] < ids.txt

Per input line: user TAB hash TAB bucket [TAB variant] LF, where
hash = mmh3.hash("EXP.SALT.USER".encode(), 0, signed=False), bucket = hash % 10000, and the
variant is the first whose cumulative trunc(weight*10000) exceeds the bucket, else the last.
A trailing CR is dropped, like appdna. Needs: pip install mmh3
"""
import io
import sys

import mmh3


def variant_table(spec):
    """bucket -> variant name for all 10,000 buckets (the cumulative walk, done once)."""
    ranges = []
    cumulative = 0
    for item in spec.split(","):
        name, _, weight = item.partition("=")
        w = float(weight)
        if w > 0:
            cumulative += int(w * 10000)
        ranges.append((name, cumulative))
    table = []
    for bucket in range(10000):
        chosen = ranges[-1][0]
        for name, upper in ranges:
            if bucket < upper:
                chosen = name
                break
        table.append(chosen)
    return table


def main():
    args = sys.argv[1:]
    if len(args) not in (2, 4) or (len(args) == 4 and args[2] != "--variants"):
        sys.exit("usage: bucket_mmh3.py EXP SALT [--variants name=weight,...] < ids")
    prefix = "%s.%s." % (args[0], args[1])
    table = variant_table(args[3]) if len(args) == 4 else None
    stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", newline="\n")
    out = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", newline="\n", write_through=False)
    write = out.write
    hash32 = mmh3.hash
    for line in stdin:
        user = line[:-1] if line.endswith("\n") else line
        if user.endswith("\r"):
            user = user[:-1]
        h = hash32((prefix + user).encode(), 0, signed=False)
        b = h % 10000
        if table is None:
            write("%s\t%d\t%d\n" % (user, h, b))
        else:
            write("%s\t%d\t%d\t%s\n" % (user, h, b, table[b]))
    out.flush()


if __name__ == "__main__":
    main()
