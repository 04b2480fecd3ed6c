#!/usr/bin/env python3
"""Splits `strace -f -tt -T` logs of `appdna bundle fetch -o FILE` into phases, in ms, and
prints the median of each over all the logs given:

  start-up        execve -> connect to the server
  transfer        connect -> end of the last recvfrom of the body
  parse+validate  end of the transfer -> opening the temporary file (parse, checks, SDK shape)
  write           opening the temporary file -> first fsync
  fsync           every fsync/fdatasync (the file, then its directory), summed
  rename          the rename over the destination
  exit            after the last of these -> exit_group

Usage: fetch_phases.py LOG...
"""
import re
import statistics
import sys

LINE = re.compile(r"^\d+\s+(\d+):(\d+):(\d+\.\d+) (\w+)\((.*?)(?:<(\d+\.\d+)>)?$")


def phases(path):
    events = []
    for raw in open(path, encoding="utf-8", errors="replace"):
        m = LINE.match(raw.rstrip("\n"))
        if not m:
            continue
        h, mi, s, name, rest, took = m.groups()
        t = (int(h) * 3600 + int(mi) * 60 + float(s)) * 1000
        events.append((t, name, rest, float(took) * 1000 if took else 0.0))
    start = next(t for t, n, r, d in events if n == "execve")
    connect = next(t for t, n, r, d in events if n == "connect")
    last_recv = max(t + d for t, n, r, d in events if n == "recvfrom")
    tmp_open = next(t for t, n, r, d in events if n == "openat" and "O_CREAT" in r and ".tmp" in r)
    syncs = [(t, d) for t, n, r, d in events if n in ("fsync", "fdatasync")]
    rename = [(t, d) for t, n, r, d in events if n.startswith("rename")]
    end = next(t for t, n, r, d in events if n == "exit_group")
    last = max(t + d for t, d in syncs + rename)
    return {
        "start-up": connect - start,
        "transfer": last_recv - connect,
        "parse+validate": tmp_open - last_recv,
        "write": syncs[0][0] - tmp_open,
        "fsync": sum(d for _, d in syncs),
        "rename": sum(d for _, d in rename),
        "exit": end - last,
        "total": end - start,
    }


def main():
    runs = [phases(p) for p in sys.argv[1:]]
    if not runs:
        sys.exit("usage: fetch_phases.py LOG...")
    for key in runs[0]:
        print("%s %.2f" % (key, statistics.median(r[key] for r in runs)))


if __name__ == "__main__":
    main()
