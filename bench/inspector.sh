#!/usr/bin/env bash
# The inspector's memory bound: 10,000 signed deliveries to `webhook listen`, one keep-alive
# connection, the listener's RSS (VmRSS) read after 500, 1,000, 2,000, 5,000 and 10,000 of them.
# Three listeners in the same run: without --inspect (the anchor), with --inspect (the default
# --inspect-keep 500), and with --inspect-keep 10000 (what keeping everything would cost).
# Two body sizes: 8 KiB, and 128 KiB (the inspector keeps 64 KiB of each).
# Target: with --inspect, RSS after 10,000 within 10% of RSS after 1,000 (bounded: nothing grows
# once 500 are kept). Also printed: how far above the anchor it stays, beside what 500 kept
# bodies hold, and what --inspect-keep 10000 grows to.
# Run by hand: bash bench/inspector.sh   (APPDNA_BIN=.build/debug/appdna for a debug build;
# APPDNA_BENCH_DELIVERIES=N for another count). Linux (/proc). ~1 min here.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
command -v bench_check_load >/dev/null && bench_check_load

COUNT=${APPDNA_BENCH_DELIVERIES:-10000}
need python3 "install python3"
[[ -d /proc/self/status || -r /proc/self/status ]] || die "needs /proc (Linux) to read the listener's RSS"
ensure_appdna

SECRET="$OUT/inspector-secret.txt"
( umask 077; printf 'whsec_bench_%s\n' "$RANDOM$RANDOM" > "$SECRET" )
listener=""
cleanup() { [[ -n "$listener" ]] && kill "$listener" 2>/dev/null; rm -f "$SECRET"; }
trap cleanup EXIT

# run NAME BODY_BYTES FLAGS...: starts a listener with FLAGS, sends COUNT deliveries, prints
# "NAME BODY_BYTES rss@500 rss@1000 …" in KiB, stops it.
run() {
    local name=$1 body=$2 port
    shift 2
    "$APPDNA" webhook listen --port 0 --secret-file "$SECRET" "$@" > /dev/null 2> "$OUT/inspector-listen.err" &
    listener=$!
    for _ in $(seq 200); do
        port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\).*|\1|p' "$OUT/inspector-listen.err")
        [[ -n "$port" ]] && break
        sleep 0.05
    done
    [[ -n "$port" ]] || die "the listener did not start: $(cat "$OUT/inspector-listen.err")"
    python3 "$ROOT/Tests/Tools/send_deliveries.py" "$port" "$SECRET" "$COUNT" --body-bytes "$body" --rss-of "$listener" --label "$name" ||
        die "$name: not every delivery was answered 200"
    kill "$listener"
    wait "$listener" 2>/dev/null || true
    listener=""
}

note "webhook listen: $COUNT signed deliveries on one connection; VmRSS (MB) after each count"
results="$OUT/inspector-results.txt"
: > "$results"
for body in 8192 131072; do
    run "none" "$body" >> "$results"
    run "inspect" "$body" --inspect 0 >> "$results"
    run "keep-all" "$body" --inspect 0 --inspect-keep 10000 >> "$results"
done

python3 - "$results" "$COUNT" <<'PY'
import sys
rows = [line.split() for line in open(sys.argv[1]) if line.strip()]
count = int(sys.argv[2])
marks = [m for m in (500, 1000, 2000, 5000, 10000) if m <= count] + ([count] if count not in (500, 1000, 2000, 5000, 10000) else [])
labels = {"none": "no --inspect (anchor)", "inspect": "--inspect (keep 500)", "keep-all": "--inspect-keep 10000"}
ok = True
for size in sorted({int(r[1]) for r in rows}):
    print(f"\nbodies of {size // 1024} KiB" + ("  (the inspector keeps 64 KiB of each)" if size > 65536 else ""))
    print(f"  {'listener':<24}" + "".join(f"{m:>9,}" for m in marks))
    table = {r[0]: [int(v) / 1024 for v in r[2:]] for r in rows if int(r[1]) == size}
    for name in ("none", "inspect", "keep-all"):
        print(f"  {labels[name]:<24}" + "".join(f"{v:>8.1f}M" for v in table[name]))
    inspect, anchor = table["inspect"], table["none"]
    at_1k, at_end = inspect[marks.index(1000)] if 1000 in marks else inspect[0], inspect[-1]
    growth = at_end / at_1k
    kept = min(size, 65536)
    extra, bodies = at_end - anchor[-1], 500 * kept / 1048576
    print(f"  --inspect: RSS after {count:,} / after 1,000 = {growth:.2f} (target <= 1.10: {'PASS' if growth <= 1.10 else 'MISS'}); "
          f"above the anchor by {extra:.1f} MB, for 500 kept bodies of {kept // 1024} KiB ({bodies:.1f} MB) and the allocator's slack")
    print(f"  --inspect-keep 10000 / --inspect after {count:,}: {table['keep-all'][-1] / at_end:.2f}x")
    ok = ok and growth <= 1.10
sys.exit(0 if ok else 1)
PY
