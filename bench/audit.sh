#!/usr/bin/env bash
# Benchmarks the exposure audit: `appdna queue inspect Q --bundle B` against `queue inspect Q`
# alone, on a 1,000,000-event iOS NDJSON queue whose events carry 1 to 4 exposures each,
# against a 500-experiment bundle (make_audit_inputs.py; 1 exposure in 1000 disagrees).
# Targets: time no more than 1.5x inspect alone; peak RSS no more than 1.5x, and what the audit
# adds flat from 1M to 2M events.
# Run by hand from anywhere: bash bench/audit.sh
# AUDIT_EVENTS=100000 bash bench/audit.sh   for a quick check (the 2x size is then 200000).
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
command -v bench_check_load >/dev/null && bench_check_load

EVENTS=${AUDIT_EVENTS:-1000000}
EXPERIMENTS=${AUDIT_EXPERIMENTS:-500}
B="$OUT/audit-bundle-$EXPERIMENTS.json"
Q1="$OUT/audit-queue-$EVENTS.ndjson"
Q2="$OUT/audit-queue-$((EVENTS * 2)).ndjson"
NOW=2026-02-20T00:00:00Z

need python3 "install python3"
python3 -c 'import mmh3' 2>/dev/null || die "python3 mmh3 is missing: pip install mmh3"
need jq "install jq (apt-get install -y jq)"
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing: apt-get install -y time"
ensure_hyperfine
ensure_appdna

for spec in "$Q1:$EVENTS" "$Q2:$((EVENTS * 2))"; do
    file=${spec%:*} count=${spec#*:}
    if [[ ! -s "$file" || ! -s "$B" || "$BENCH_DIR/make_audit_inputs.py" -nt "$file" ]]; then
        note "generating $count events and a $EXPERIMENTS-experiment bundle (make_audit_inputs.py)"
        python3 "$BENCH_DIR/make_audit_inputs.py" "$B" "$file" "$count" "$EXPERIMENTS"
    fi
done

note "checking the audit: every planted mismatch found, nothing else"
"$APPDNA" queue inspect "$Q1" --bundle "$B" --now "$NOW" --json > "$OUT/audit.summary.json" || die "appdna queue inspect --bundle failed"
planted=$(grep -o '"variant":"planted-mismatch"' "$Q1" | wc -l)
found=$(jq -r .exposure_audit.disagreeing "$OUT/audit.summary.json")
causes=$(jq -r '[.exposure_audit.by_cause[].cause] | join(",")' "$OUT/audit.summary.json")
checked=$(jq -r .exposure_audit.checked "$OUT/audit.summary.json")
[[ "$found" == "$planted" ]] || die "the audit found $found mismatches; $planted were planted"
[[ "$planted" == 0 || "$causes" == unexplained ]] || die "planted mismatches should be 'unexplained', got: $causes"

note "timing $EVENTS events (hyperfine --warmup 1 --runs 3)"
hyperfine --style none --warmup 1 --runs 3 --export-json "$OUT/audit.json" \
    -n "queue inspect" "$(printf '%q ' "$APPDNA" queue inspect "$Q1" --now "$NOW") > /dev/null" \
    -n "queue inspect --bundle" "$(printf '%q ' "$APPDNA" queue inspect "$Q1" --bundle "$B" --now "$NOW") > /dev/null" >/dev/null

# The median of 3 runs: one run of inspect alone on 2M events varies by several MB (how many
# chunks the readers get ahead of the counting thread), which would decide the flatness check.
median_rss_kb() {
    local runs=()
    for _ in 1 2 3; do runs+=("$(peak_rss_kb /dev/null "$@")"); done
    printf '%s\n' "${runs[@]}" | sort -n | sed -n 2p
}

note "memory: peak RSS (/usr/bin/time -v), median of 3 runs"
rss_plain=$(median_rss_kb "$APPDNA" queue inspect "$Q1" --now "$NOW")
rss_audit=$(median_rss_kb "$APPDNA" queue inspect "$Q1" --bundle "$B" --now "$NOW")
rss_plain2=$(median_rss_kb "$APPDNA" queue inspect "$Q2" --now "$NOW")
rss_audit2=$(median_rss_kb "$APPDNA" queue inspect "$Q2" --bundle "$B" --now "$NOW")

ratio=$(div "$(median "$OUT/audit.json" 1)" "$(median "$OUT/audit.json" 0)")
rss_ratio=$(div "$rss_audit" "$rss_plain")
# What the audit adds on top of inspect, at 1x and 2x the events (inspect alone grows a little
# at 2M: its duplicate check's second pass).
extra1=$(( rss_audit - rss_plain ))
extra2=$(( rss_audit2 - rss_plain2 ))

echo
echo "appdna exposure audit benchmark"
machine_line
echo "input: $Q1 ($EVENTS events, $(( $(stat -c %s "$Q1") / 1048576 )) MiB, $checked exposures, $planted planted mismatches), bundle $B ($EXPERIMENTS experiments)"
echo
echo "time: hyperfine --warmup 1 --runs 3"
printf '  %-24s %12s %22s %5s\n' command median "mean +- sd" runs
timing_row "queue inspect" "$OUT/audit.json" 0 s; echo
timing_row "queue inspect --bundle" "$OUT/audit.json" 1 s; echo
echo
echo "memory: peak RSS (/usr/bin/time -v), median of 3 runs"
printf '  %-34s %10s\n' "inspect, $EVENTS events" "$(mb "$rss_plain") MB"
printf '  %-34s %10s\n' "inspect --bundle, $EVENTS events" "$(mb "$rss_audit") MB"
printf '  %-34s %10s\n' "inspect, $((EVENTS * 2)) events" "$(mb "$rss_plain2") MB"
printf '  %-34s %10s\n' "inspect --bundle, $((EVENTS * 2)) events" "$(mb "$rss_audit2") MB"
echo
echo "targets (ratios of medians; the machine is shared, so single runs are noisy)"
printf '  %-46s %-12s %-10s %s\n' target measured need result
target_row "audit time / inspect alone" "${ratio}x" "<= 1.5x" "$(lt "$ratio" 1.501)"
target_row "audit peak RSS / inspect alone" "${rss_ratio}x" "<= 1.5x" "$(lt "$rss_ratio" 1.501)"
target_row "audit's extra RSS, 2x events vs 1x (flat)" "$(mb "$extra2") vs $(mb "$extra1") MB" "+<= 2 MB" "$(lt "$extra2" $(( extra1 + 2049 )))"
