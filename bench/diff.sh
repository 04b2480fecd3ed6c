#!/usr/bin/env bash
# Benchmarks `appdna bundle diff` on the worst case for a sequence diff: two bundles whose big
# arrays have no ids and are shuffled (make_shuffled_pair.py), at SIZE MB and 2 x SIZE MB.
# Checks that the patch turns OLD into NEW, and that doubling the input at most doubles time
# and peak memory (ratios within 2.4x, i.e. 2x +- 20 %).
# Run by hand from anywhere: bash bench/diff.sh   (SIZE=25 by default; SIZE=5 for a quick try)
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
command -v bench_check_load >/dev/null && bench_check_load

need python3 "install python3"
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing: apt-get install -y time"
ensure_appdna

SIZE=${SIZE:-25}
DOUBLE=$((2 * SIZE))
RUNS=${RUNS:-3}

# pair SIZE_MB: makes bench/out/shuffled-{old,new}-SIZE.json once (deterministic).
pair() {
    local old="$OUT/shuffled-old-$1.json" new="$OUT/shuffled-new-$1.json"
    if [[ ! -s "$old" || ! -s "$new" || "$BENCH_DIR/make_shuffled_pair.py" -nt "$old" ]]; then
        note "generating a ${1} MB shuffled bundle pair into $OUT"
        python3 "$BENCH_DIR/make_shuffled_pair.py" "$old" "$new" "$1"
    fi
}
pair "$SIZE"
pair "$DOUBLE"

note "checking the patch (${SIZE} MB): applied to OLD it must give NEW"
status=0
"$APPDNA" bundle diff --format patch "$OUT/shuffled-old-$SIZE.json" "$OUT/shuffled-new-$SIZE.json" > "$OUT/shuffled-patch.json" || status=$?
[[ $status -eq 1 ]] || die "appdna bundle diff should exit 1 on different bundles, got $status"
python3 "$BENCH_DIR/apply_patch.py" "$OUT/shuffled-old-$SIZE.json" "$OUT/shuffled-patch.json" "$OUT/shuffled-new-$SIZE.json" \
    || die "the patch does not turn OLD into NEW"
operations=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$OUT/shuffled-patch.json")

# measure SIZE_MB: "seconds cpu-seconds KiB": the fastest of RUNS runs (elapsed, and user +
# system CPU, which a loaded machine disturbs less) and the largest peak RSS (GNU time).
measure() {
    local best="" cpu_best="" peak=0 line seconds user system kb cpu
    for ((run = 0; run < RUNS; run++)); do
        line=$(/usr/bin/time -f '%e %U %S %M' "$APPDNA" bundle diff "$OUT/shuffled-old-$1.json" "$OUT/shuffled-new-$1.json" 2>&1 >/dev/null | tail -n 1)
        read -r seconds user system kb <<< "$line"
        [[ "$kb" =~ ^[0-9]+$ ]] || die "no measurement from /usr/bin/time: $line"
        cpu=$(awk -v u="$user" -v s="$system" 'BEGIN { printf "%.2f", u + s }')
        if [[ -z "$best" ]] || [[ $(lt "$seconds" "$best") == 1 ]]; then best=$seconds; fi
        if [[ -z "$cpu_best" ]] || [[ $(lt "$cpu" "$cpu_best") == 1 ]]; then cpu_best=$cpu; fi
        ((kb > peak)) && peak=$kb
    done
    echo "$best $cpu_best $peak"
}
note "timing appdna bundle diff ($RUNS runs each; /usr/bin/time)"
read -r t1 c1 m1 <<< "$(measure "$SIZE")"
read -r t2 c2 m2 <<< "$(measure "$DOUBLE")"
# Elapsed time has 10 ms resolution: floor it so tiny inputs give a ratio, not a division by 0.
t1=$(awk -v t="$t1" 'BEGIN { print (t < 0.01) ? 0.01 : t }')
c1=$(awk -v t="$c1" 'BEGIN { print (t < 0.01) ? 0.01 : t }')
time_ratio=$(div "$t2" "$t1")
cpu_ratio=$(div "$c2" "$c1")
mem_ratio=$(div "$m2" "$m1")
kb() { awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.0f", b / 1024 }'; }

echo
echo "appdna bundle diff on shuffled arrays without ids"
machine_line
echo "bundles: make_shuffled_pair.py: $(mb "$(kb "$OUT/shuffled-old-$SIZE.json")") MB each; doubled: $(mb "$(kb "$OUT/shuffled-old-$DOUBLE.json")") MB each"
echo "patch check (${SIZE} MB): $operations operations; apply_patch.py turns OLD into NEW"
echo
printf '  %-28s %10s %10s %14s\n' input "time (s)" "CPU (s)" "peak RSS (MB)"
printf '  %-28s %10s %10s %14s\n' "${SIZE} MB + ${SIZE} MB" "$t1" "$c1" "$(mb "$m1")"
printf '  %-28s %10s %10s %14s\n' "${DOUBLE} MB + ${DOUBLE} MB" "$t2" "$c2" "$(mb "$m2")"
echo
echo "targets (fastest of $RUNS runs; the machine is shared, so single runs are noisy)"
printf '  %-46s %-12s %-10s %s\n' target measured need result
target_row "diff ${SIZE} MB: time" "${t1}s" "< 10s" "$(lt "$t1" 10)"
target_row "diff: time ${DOUBLE} MB / ${SIZE} MB" "${time_ratio}x" "<= 2.4x" "$(ge 2.4 "$time_ratio")"
target_row "diff: CPU time ${DOUBLE} MB / ${SIZE} MB" "${cpu_ratio}x" "<= 2.4x" "$(ge 2.4 "$cpu_ratio")"
target_row "diff: peak RSS ${DOUBLE} MB / ${SIZE} MB" "${mem_ratio}x" "<= 2.4x" "$(ge 2.4 "$mem_ratio")"
