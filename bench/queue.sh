#!/usr/bin/env bash
# Benchmarks `appdna queue inspect` on a 1,000,000-event iOS NDJSON queue against
# `jq -r .event_name FILE | sort | uniq -c` (which only counts names; inspect does the whole
# summary), peak RSS on 1M and 2M events, and `appdna bucket` start-up against a Swift
# hello-world (SQLite is dlopened by the queue readers, never linked).
# Run by hand from anywhere: bash bench/queue.sh   (a few minutes; see bench/README.md)
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_check_load

Q1="$OUT/queue-1m.ndjson"
Q2="$OUT/queue-2m.ndjson"
NOW=2026-02-20T00:00:00Z

need python3 "install python3"
need jq "install jq (apt-get install -y jq)"
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing: apt-get install -y time"
ensure_hyperfine
ensure_appdna

for spec in "$Q1:1000000" "$Q2:2000000"; do
    file=${spec%:*} count=${spec#*:}
    if [[ ! -s "$file" || "$BENCH_DIR/make_queue.py" -nt "$file" ]]; then
        note "generating $count events into $file (make_queue.py)"
        python3 "$BENCH_DIR/make_queue.py" "$file" "$count"
    fi
done
ensure_hello

note "checking that inspect and jq count the same names"
"$APPDNA" queue inspect "$Q1" --now "$NOW" --json > "$OUT/queue-1m.summary.json" || die "appdna queue inspect $Q1 failed"
jq -r '.events_by_name[] | "\(.count) \(.name)"' "$OUT/queue-1m.summary.json" | sort -k2 > "$OUT/queue-names.appdna"
jq -r .event_name "$Q1" | sort | uniq -c | awk '{ print $1, $2 }' | sort -k2 > "$OUT/queue-names.jq"
cmp -s "$OUT/queue-names.appdna" "$OUT/queue-names.jq" || { diff "$OUT/queue-names.appdna" "$OUT/queue-names.jq" | head >&2; die "name counts differ"; }
live=$(jq -r .live "$OUT/queue-1m.summary.json")
[[ "$live" == 1000000 ]] || die "expected 1000000 live events, got $live"

note "timing 1M events (hyperfine --warmup 1 --runs 3)"
hyperfine --style none --warmup 1 --runs 3 --export-json "$OUT/queue.json" \
    -n "appdna queue inspect" "$(printf '%q ' "$APPDNA" queue inspect "$Q1" --now "$NOW") > /dev/null" \
    -n "jq | sort | uniq -c" "jq -r .event_name $(printf '%q' "$Q1") | sort | uniq -c > /dev/null" >/dev/null

note "memory: peak RSS (/usr/bin/time -v)"
rss_1m=$(peak_rss_kb /dev/null "$APPDNA" queue inspect "$Q1" --now "$NOW")
rss_2m=$(peak_rss_kb /dev/null "$APPDNA" queue inspect "$Q2" --now "$NOW")

note "start-up: appdna bucket u e s vs Swift hello-world (hyperfine -N --warmup 20 --runs 300)"
hyperfine -N --style none --warmup 20 --runs 300 --export-json "$OUT/queue-startup.json" \
    -n "appdna bucket u e s" "$(printf '%q ' "$APPDNA" bucket u e s)" \
    -n "swift hello-world" "$(printf '%q' "$HELLO")" >/dev/null

t_app=$(median "$OUT/queue.json" 0)
t_jq=$(median "$OUT/queue.json" 1)
vs_jq=$(div "$t_jq" "$t_app")
startup_ratio=$(div "$(median "$OUT/queue-startup.json" 0)" "$(median "$OUT/queue-startup.json" 1)")
mb1=$(( $(stat -c %s "$Q1") / 1048576 ))
mb2=$(( $(stat -c %s "$Q2") / 1048576 ))

echo
echo "appdna queue inspect benchmark"
machine_line
echo "input: $Q1 (1,000,000 events, $mb1 MiB; make_queue.py), $Q2 (2,000,000 events, $mb2 MiB)"
echo "check: inspect's events_by_name equals jq -r .event_name | sort | uniq -c"
echo
echo "time, 1M events: hyperfine --warmup 1 --runs 3"
printf '  %-24s %12s %22s %5s %14s\n' command median "mean +- sd" runs throughput
timing_row "appdna queue inspect" "$OUT/queue.json" 0 s; awk -v t="$t_app" -v m="$mb1" 'BEGIN { printf " %8.0f MiB/s\n", m / t }'
timing_row "jq | sort | uniq -c" "$OUT/queue.json" 1 s; awk -v t="$t_jq" -v m="$mb1" 'BEGIN { printf " %8.0f MiB/s\n", m / t }'
echo
echo "memory: peak RSS of appdna queue inspect (/usr/bin/time -v)"
printf '  %-24s %10s\n' "1M events" "$(mb "$rss_1m") MB"
printf '  %-24s %10s\n' "2M events" "$(mb "$rss_2m") MB"
echo
echo "start-up: hyperfine -N --warmup 20 --runs 300"
printf '  %-24s %12s %22s %5s\n' command median "mean +- sd" runs
timing_row "appdna bucket u e s" "$OUT/queue-startup.json" 0 ms; echo
timing_row "swift hello-world" "$OUT/queue-startup.json" 1 ms; echo
echo
echo "targets (ratios of medians; the machine is shared, so single runs are noisy)"
printf '  %-46s %-12s %-10s %s\n' target measured need result
target_row "inspect 1M: speed vs jq (jq time / appdna)" "${vs_jq}x" ">= 5x" "$(ge "$vs_jq" 5)"
target_row "memory: peak RSS, 1M events" "$(mb "$rss_1m") MB" "< 64 MB" "$(lt "$rss_1m" 65536)"
target_row "memory: peak RSS, 2M events" "$(mb "$rss_2m") MB" "< 64 MB" "$(lt "$rss_2m" 65536)"
target_row "start-up: appdna / hello-world wall time" "${startup_ratio}x" "< 2x" "$(lt "$startup_ratio" 2)"
