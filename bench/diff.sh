#!/usr/bin/env bash
# Benchmarks `appdna bundle diff` on the worst cases for a sequence diff: two bundles whose big
# arrays (three without ids, one keyed by id) are shuffled, then reversed (make_shuffled_pair.py),
# at SIZE MB and 2 x SIZE MB. Checks that each patch turns OLD into NEW, and that doubling the
# input at most doubles time and peak memory (ratios within 2.4x, i.e. 2x +- 20 %). The suite
# checks the same cases for correctness only (BundleDiffTests): their speed is measured here.
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

# pair ORDER SIZE_MB: makes bench/out/ORDER-{old,new}-SIZE.json once (deterministic).
pair() {
    local old="$OUT/$1-old-$2.json" new="$OUT/$1-new-$2.json"
    if [[ ! -s "$old" || ! -s "$new" || "$BENCH_DIR/make_shuffled_pair.py" -nt "$old" ]]; then
        note "generating a ${2} MB $1 bundle pair into $OUT"
        python3 "$BENCH_DIR/make_shuffled_pair.py" "$old" "$new" "$2" "$1"
    fi
}

# check ORDER: the patch of the SIZE MB pair, applied to OLD, must give NEW; prints its length.
check() {
    local status=0
    "$APPDNA" bundle diff --format patch "$OUT/$1-old-$SIZE.json" "$OUT/$1-new-$SIZE.json" > "$OUT/$1-patch.json" || status=$?
    [[ $status -eq 1 ]] || die "appdna bundle diff should exit 1 on different bundles, got $status"
    python3 "$BENCH_DIR/apply_patch.py" "$OUT/$1-old-$SIZE.json" "$OUT/$1-patch.json" "$OUT/$1-new-$SIZE.json" \
        || die "the $1 patch does not turn OLD into NEW"
    python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$OUT/$1-patch.json"
}

# measure ORDER SIZE_MB: "seconds cpu-seconds KiB": the fastest of RUNS runs (elapsed, and user +
# system CPU, which a loaded machine disturbs less) and the largest peak RSS (GNU time).
measure() {
    local best="" cpu_best="" peak=0 line seconds user system kb cpu
    for ((run = 0; run < RUNS; run++)); do
        line=$(/usr/bin/time -f '%e %U %S %M' "$APPDNA" bundle diff "$OUT/$1-old-$2.json" "$OUT/$1-new-$2.json" 2>&1 >/dev/null | tail -n 1)
        read -r seconds user system kb <<< "$line"
        [[ "$kb" =~ ^[0-9]+$ ]] || die "no measurement from /usr/bin/time: $line"
        cpu=$(awk -v u="$user" -v s="$system" 'BEGIN { printf "%.2f", u + s }')
        if [[ -z "$best" ]] || [[ $(lt "$seconds" "$best") == 1 ]]; then best=$seconds; fi
        if [[ -z "$cpu_best" ]] || [[ $(lt "$cpu" "$cpu_best") == 1 ]]; then cpu_best=$cpu; fi
        ((kb > peak)) && peak=$kb
    done
    echo "$best $cpu_best $peak"
}
# Elapsed time has 10 ms resolution: floor it so tiny inputs give a ratio, not a division by 0.
floor() { awk -v t="$1" 'BEGIN { print (t < 0.01) ? 0.01 : t }'; }
kb() { awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.0f", b / 1024 }'; }

ORDERS=(shuffled reversed)
declare -A operations t1 c1 m1 t2 c2 m2
for order in "${ORDERS[@]}"; do
    pair "$order" "$SIZE"
    pair "$order" "$DOUBLE"
    note "checking the $order patch (${SIZE} MB): applied to OLD it must give NEW"
    operations[$order]=$(check "$order")
    note "timing appdna bundle diff on the $order pairs ($RUNS runs each; /usr/bin/time)"
    read -r "t1[$order]" "c1[$order]" "m1[$order]" <<< "$(measure "$order" "$SIZE")"
    read -r "t2[$order]" "c2[$order]" "m2[$order]" <<< "$(measure "$order" "$DOUBLE")"
    t1[$order]=$(floor "${t1[$order]}")
    c1[$order]=$(floor "${c1[$order]}")
done

echo
echo "appdna bundle diff on reordered arrays (three without ids, one keyed by id)"
machine_line
echo "bundles: make_shuffled_pair.py: $(mb "$(kb "$OUT/shuffled-old-$SIZE.json")") MB each; doubled: $(mb "$(kb "$OUT/shuffled-old-$DOUBLE.json")") MB each"
for order in "${ORDERS[@]}"; do
    echo "patch check ($order, ${SIZE} MB): ${operations[$order]} operations; apply_patch.py turns OLD into NEW"
done
echo
printf '  %-28s %10s %10s %14s\n' input "time (s)" "CPU (s)" "peak RSS (MB)"
for order in "${ORDERS[@]}"; do
    printf '  %-28s %10s %10s %14s\n' "$order ${SIZE} MB + ${SIZE} MB" "${t1[$order]}" "${c1[$order]}" "$(mb "${m1[$order]}")"
    printf '  %-28s %10s %10s %14s\n' "$order ${DOUBLE} MB + ${DOUBLE} MB" "${t2[$order]}" "${c2[$order]}" "$(mb "${m2[$order]}")"
done
echo
echo "targets (fastest of $RUNS runs; the machine is shared, so single runs are noisy)"
printf '  %-46s %-12s %-10s %s\n' target measured need result
for order in "${ORDERS[@]}"; do
    time_ratio=$(div "${t2[$order]}" "${t1[$order]}")
    cpu_ratio=$(div "${c2[$order]}" "${c1[$order]}")
    mem_ratio=$(div "${m2[$order]}" "${m1[$order]}")
    target_row "$order ${SIZE} MB: time" "${t1[$order]}s" "< 10s" "$(lt "${t1[$order]}" 10)"
    target_row "$order: time ${DOUBLE} MB / ${SIZE} MB" "${time_ratio}x" "<= 2.4x" "$(ge 2.4 "$time_ratio")"
    target_row "$order: CPU time ${DOUBLE} MB / ${SIZE} MB" "${cpu_ratio}x" "<= 2.4x" "$(ge 2.4 "$cpu_ratio")"
    target_row "$order: peak RSS ${DOUBLE} MB / ${SIZE} MB" "${mem_ratio}x" "<= 2.4x" "$(ge 2.4 "$mem_ratio")"
done
