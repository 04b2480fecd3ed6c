#!/usr/bin/env python3
"""Writes COUNT deterministic user ids, one per line, for bench/bucket.sh.

Usage: make_ids.py OUTPUT_PATH COUNT [SHAPE]
SHAPE: mixed (the default, below), user (`user-0001234-56789`) or uuid (lowercase UUID v4 text).

Mostly ASCII in the shapes ids take in practice (`user-123456`, 32-hex ids, e-mail-like ids),
plus about 5% non-ASCII ids (accented Latin, Cyrillic, CJK, emoji) so the UTF-8 paths are
exercised. The seed is fixed: the same arguments always give the same bytes.
"""
import random
import sys

NON_ASCII = ["jos\u00e9", "m\u00fcller", "fran\u00e7ois", "\u0438\u0432\u0430\u043d",
             "\u7530\u4e2d", "\u5c71\u7530\u592a\u90ce", "\u00e5sa", "\u015bwi\u0105tek",
             "user-\U0001F680", "\u0645\u062d\u0645\u062f", "na\u00efve\u2013id"]


def main():
    if len(sys.argv) not in (3, 4) or sys.argv[3:] not in ([], ["mixed"], ["user"], ["uuid"]):
        sys.exit("usage: make_ids.py OUTPUT_PATH COUNT [mixed|user|uuid]")
    path, count = sys.argv[1], int(sys.argv[2])
    shape = sys.argv[3] if len(sys.argv) == 4 else "mixed"
    rng = random.Random(20240607)
    rand = rng.random
    randrange = rng.randrange
    getrandbits = rng.getrandbits
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        chunk = []
        for _ in range(count):
            r = rand()
            if shape == "user":
                chunk.append("user-%07d-%05d" % (randrange(10000000), randrange(100000)))
            elif shape == "uuid":
                b = getrandbits(128)
                h = "%032x" % ((b & ~(0xF << 76) & ~(0x3 << 62)) | (0x4 << 76) | (0x2 << 62))
                chunk.append("%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:]))
            elif r < 0.70:
                chunk.append("user-%d" % randrange(1000000))
            elif r < 0.85:
                chunk.append("%032x" % getrandbits(128))
            elif r < 0.95:
                chunk.append("member.%d@example.com" % randrange(10000000))
            else:
                chunk.append("%s-%d" % (NON_ASCII[randrange(len(NON_ASCII))], randrange(100000)))
            if len(chunk) == 100000:
                out.write("\n".join(chunk))
                out.write("\n")
                chunk = []
        if chunk:
            out.write("\n".join(chunk))
            out.write("\n")


if __name__ == "__main__":
    main()
