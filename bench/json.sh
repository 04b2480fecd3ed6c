#!/usr/bin/env bash
# Benchmarks reading big config bundles against `jq empty` in the same run:
#  1. `appdna bundle validate` on one document of 20,000 experiments with payload objects and
#     arrays of small integers (bench/make_payload_bundle.py) written three ways: compact
#     (~11 MB), 2-space (~26 MB) and 4-space (~39 MB) indented; MB/s and the ratio to jq; and,
#     when valgrind is installed, the instructions validate executes (callgrind: repeatable on a
#     busy machine) compared with the recorded baseline (bench/baseline/validate.txt): more than
#     3 % above it prints REGRESSION, as does a ratio to jq more than 25 % below the recorded one.
#  2. `appdna bucket USER EXP --bundle BIG.json` on a 25 MB bundle (make_big_bundle.py), and
#     appdna's peak RSS against the file size.
#  3. `appdna bundle validate` on a bundle of 90,000 experiments with ~60,000 findings
#     (make_findings_bundle.py), a line per experiment and all on one line, against `jq empty`:
#     reporting must stay linear (a column counted from the start of a 20 MB line, a pointer per
#     repeated key once took half a minute here).
# Run by hand from anywhere: bash bench/json.sh   (about 2 minutes with valgrind; see bench/README.md)
# JSON_RECORD_BASELINE=1 writes this run's instructions and ratios as the new baseline (do it
# only for a change that is meant to move them, and say so in the commit).
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_check_load

SIZE_MB=25
BUNDLE="$OUT/bundle-${SIZE_MB}mb.json"
USER_ID=someuser
LAYOUTS=(compact indent2 indent4)
BASELINE="$BENCH_DIR/baseline/validate.txt"
# Margins: instruction counts are repeatable to well under 1 %; wall-time ratios swing with
# the machine (jq's own time varies by a third here; compact's ratio ran 8.46x-10.67x within
# minutes, quiet), so theirs is wide.
INSTRUCTION_MARGIN=1.03
RATIO_MARGIN=0.75

need python3 "install python3"
need jq "install jq (apt-get install -y jq)"
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing: apt-get install -y time"
ensure_hyperfine
ensure_appdna

# --- 1. bundle validate on the payload document, three layouts --------------------------------
for layout in "${LAYOUTS[@]}"; do
    f="$OUT/payload-$layout.json"
    if [[ ! -s "$f" || "$BENCH_DIR/make_payload_bundle.py" -nt "$f" ]]; then
        note "generating the payload bundle ($layout) into $f"
        python3 "$BENCH_DIR/make_payload_bundle.py" "$layout" "$f"
    fi
    "$APPDNA" bundle validate "$f" > /dev/null || die "appdna bundle validate $f should pass"
done
for layout in "${LAYOUTS[@]}"; do
    f="$OUT/payload-$layout.json"
    note "validate $layout: appdna bundle validate vs jq empty (hyperfine -N --warmup 3 --runs 15)"
    hyperfine -N --style none --warmup 3 --runs 15 --export-json "$OUT/validate-$layout.json" \
        -n "appdna bundle validate" "$(printf '%q ' "$APPDNA" bundle validate "$f")" \
        -n "jq empty" "$(printf '%q ' jq empty "$f")" >/dev/null
done

# Instructions (valgrind 3.19 cannot read the DWARF 5 of a Swift 6 binary: a copy without
# debug information is measured; the code is the same).
declare -A INSTRUCTIONS=()
if command -v valgrind >/dev/null; then
    strip --strip-debug -o "$OUT/appdna-callgrind" "$APPDNA"
    for layout in "${LAYOUTS[@]}"; do
        note "validate $layout: instructions (valgrind --tool=callgrind)"
        INSTRUCTIONS[$layout]=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$OUT/appdna-callgrind" bundle validate "$OUT/payload-$layout.json" 2>&1 >/dev/null \
            | awk '/Collected/ { print $NF }')
        [[ "${INSTRUCTIONS[$layout]}" =~ ^[0-9]+$ ]] || die "no instruction count from valgrind for $layout"
    done
else
    note "valgrind is missing (apt-get install -y valgrind): no instruction counts, only wall-time ratios"
fi

# --- 3. validate with many findings -------------------------------------------------------------
# The same bundle with a line per experiment and as one line (a minified bundle).
FINDING_SHAPES=(lines one-line)
declare -A FINDINGS_COUNT=()
for shape in "${FINDING_SHAPES[@]}"; do
    FINDINGS="$OUT/findings-90000-$shape.json"
    if [[ ! -s "$FINDINGS" || "$BENCH_DIR/make_findings_bundle.py" -nt "$FINDINGS" ]]; then
        note "generating the findings bundle ($shape) into $FINDINGS"
        one_line=()
        [[ $shape == one-line ]] && one_line=(--one-line)
        python3 "$BENCH_DIR/make_findings_bundle.py" "$FINDINGS" 90000 "${one_line[@]}"
    fi
    set +e
    "$APPDNA" bundle validate "$FINDINGS" > "$OUT/findings.txt" 2>&1
    findings_status=$?
    set -e
    [[ $findings_status == 1 ]] || die "appdna bundle validate $FINDINGS should exit 1 (findings), got $findings_status"
    FINDINGS_COUNT[$shape]=$(grep -c ': \(error\|warning\): ' "$OUT/findings.txt" || true)
    note "validate with findings ($shape): appdna bundle validate vs jq empty (hyperfine -N --warmup 1 --runs 5)"
    hyperfine -N --style none --warmup 1 --runs 5 -i --export-json "$OUT/validate-findings-$shape.json" \
        -n "appdna bundle validate" "$(printf '%q ' "$APPDNA" bundle validate "$FINDINGS")" \
        -n "jq empty" "$(printf '%q ' jq empty "$FINDINGS")" >/dev/null
done

# --- 2. bucket --bundle on a 25 MB bundle ------------------------------------------------------
ensure_big_bundle "$BUNDLE" "$SIZE_MB"
bytes=$(stat -c %s "$BUNDLE")
experiments=$(jq -r '.experiments.experiments | length' "$BUNDLE")
# The last experiment: it sits near the end of the file, so the lookup walks the whole map.
EXP=$(jq -r '.experiments.experiments | keys_unsorted | last' "$BUNDLE")
[[ -n "$EXP" && "$EXP" != null ]] || die "no experiment in $BUNDLE"

note "checking that appdna reads the bundle"
answer=$("$APPDNA" bucket "$USER_ID" "$EXP" --bundle "$BUNDLE") || die "appdna bucket $USER_ID $EXP --bundle $BUNDLE failed"
grep -q '^bucket ' <<< "$answer" || { printf '%s\n' "$answer" >&2; die "expected a bucket for '$USER_ID' in $EXP"; }

note "bucket --bundle: timing (hyperfine -N --warmup 3 --runs 15)"
hyperfine -N --style none --warmup 3 --runs 15 --export-json "$OUT/json.json" \
    -n "appdna bucket --bundle" "$(printf '%q ' "$APPDNA" bucket "$USER_ID" "$EXP" --bundle "$BUNDLE")" \
    -n "jq empty" "$(printf '%q ' jq empty "$BUNDLE")" >/dev/null

note "memory: peak RSS (/usr/bin/time -v)"
rss_app=$(peak_rss_kb /dev/null "$APPDNA" bucket "$USER_ID" "$EXP" --bundle "$BUNDLE")
rss_jq=$(peak_rss_kb /dev/null jq empty "$BUNDLE")

file_kb=$(awk -v b="$bytes" 'BEGIN { printf "%.0f", b / 1024 }')
vs_jq=$(div "$(median "$OUT/json.json" 1)" "$(median "$OUT/json.json" 0)")
rss_ratio=$(div "$rss_app" "$file_kb")

# --- report ------------------------------------------------------------------------------------
baseline_of() { [[ -f "$BASELINE" ]] && awk -v k="$1" -v f="$2" '$1 == k { print $f }' "$BASELINE"; return 0; }

echo
echo "appdna bundle (JSON) benchmark"
machine_line
echo "settings: hyperfine -N --warmup 3 --runs 15, medians; appdna and jq empty side by side in one hyperfine run per file"
echo "baseline: $BASELINE ($(awk '/^#/ { sub(/^# */, ""); print; exit }' "$BASELINE" 2>/dev/null || echo 'none'))"
echo
echo "validate: bench/make_payload_bundle.py LAYOUT (20,000 experiments, payload objects and arrays of small integers)"
printf '  %-8s %8s %10s %10s %9s %8s %14s %14s %s\n' layout MB appdna "jq empty" "vs jq" MB/s instructions baseline verdict
declare -A VS=()
regressions=0
for layout in "${LAYOUTS[@]}"; do
    j="$OUT/validate-$layout.json"
    size=$(stat -c %s "$OUT/payload-$layout.json")
    t_a=$(median "$j" 0) t_jq=$(median "$j" 1)
    VS[$layout]=$(div "$t_jq" "$t_a")
    count=${INSTRUCTIONS[$layout]:-}
    base_count=$(baseline_of "$layout" 2) base_ratio=$(baseline_of "$layout" 3)
    verdict=ok
    if [[ -n "$count" && -n "$base_count" ]] && [[ $(ge "$count" "$(awk -v b="$base_count" -v m="$INSTRUCTION_MARGIN" 'BEGIN { print b * m }')") == 1 ]]; then
        verdict="REGRESSION (instructions +$(awk -v a="$count" -v b="$base_count" 'BEGIN { printf "%.1f", (a / b - 1) * 100 }') %)"
        regressions=$((regressions + 1))
    elif [[ -n "$base_ratio" ]] && [[ $(lt "${VS[$layout]}" "$(awk -v b="$base_ratio" -v m="$RATIO_MARGIN" 'BEGIN { print b * m }')") == 1 ]]; then
        verdict="REGRESSION? (ratio below ${RATIO_MARGIN} x the recorded ${base_ratio}x; wall time: check the load, then the instructions)"
        regressions=$((regressions + 1))
    fi
    awk -v l="$layout" -v s="$size" -v a="$t_a" -v q="$t_jq" -v r="${VS[$layout]}" -v c="${count:--}" -v b="${base_count:--}" -v v="$verdict" -v m="$(unreliable_mark)" \
        'BEGIN { printf "  %-8s %8.1f %8.1fms %8.1fms %8sx %8.0f %14s %14s %s%s\n", l, s / 1048576, a * 1000, q * 1000, r, s / a / 1048576, c, b, v, m }'
done
if [[ "${JSON_RECORD_BASELINE:-0}" == 1 ]]; then
    mkdir -p "$(dirname "$BASELINE")"
    {
        echo "# $(date -u +%Y-%m-%d) git $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'), $(swift --version 2>/dev/null | head -n 1 | sed 's/ (.*//'), valgrind $(valgrind --version 2>/dev/null | sed 's/valgrind-//'), load $(cut -d' ' -f1 /proc/loadavg)"
        echo "# layout  instructions(callgrind, bundle validate)  ratio(jq empty time / appdna time)"
        for layout in "${LAYOUTS[@]}"; do echo "$layout ${INSTRUCTIONS[$layout]:-0} ${VS[$layout]}"; done
    } > "$BASELINE"
    note "recorded this run as the baseline in $BASELINE"
fi
declare -A FINDINGS_VS=()
echo
echo "validate with findings: bench/make_findings_bundle.py (90,000 experiments)"
for shape in "${FINDING_SHAPES[@]}"; do
    f="$OUT/validate-findings-$shape.json"
    FINDINGS_VS[$shape]=$(div "$(median "$f" 1)" "$(median "$f" 0)")
    awk -v s="$shape" -v n="${FINDINGS_COUNT[$shape]}" -v a="$(median "$f" 0)" -v q="$(median "$f" 1)" -v r="${FINDINGS_VS[$shape]}" \
        'BEGIN { printf "  %-9s %6d findings printed: appdna %.1fms, jq empty %.1fms: %sx\n", s, n, a * 1000, q * 1000, r }'
done
echo
echo "bucket --bundle: $BUNDLE ($(mb "$file_kb") MB, $experiments experiments; generated by make_big_bundle.py)"
echo "query:  appdna bucket $USER_ID $EXP --bundle ... -> $(awk '/^variant/ { $1 = ""; sub(/^ +/, ""); print }' <<< "$answer")"
printf '  %-24s %12s %22s %5s\n' command median "mean +- sd" runs
timing_row "appdna bucket --bundle" "$OUT/json.json" 0 ms; echo
timing_row "jq empty" "$OUT/json.json" 1 ms; echo
echo
echo "memory: peak RSS (/usr/bin/time -v)"
printf '  %-24s %10s %8s\n' "" "peak RSS" "/ file"
printf '  %-24s %10s %7sx\n' "appdna bucket --bundle" "$(mb "$rss_app") MB" "$rss_ratio"
printf '  %-24s %10s %7sx\n' "jq empty" "$(mb "$rss_jq") MB" "$(div "$rss_jq" "$file_kb")"
echo
echo "targets (time ratio of medians; the machine is shared, so single runs are noisy)"
printf '  %-46s %-12s %-10s %s\n' target measured need result
for layout in "${LAYOUTS[@]}"; do
    target_row "validate $layout: speed vs jq empty" "${VS[$layout]}x" ">= 8x" "$(ge "${VS[$layout]}" 8)"
done
target_row "validate: no regression against the baseline" "$regressions" "0" "$( ((regressions == 0)) && echo 1 || echo 0)"
for shape in "${FINDING_SHAPES[@]}"; do
    target_row "validate, 60,000 findings, $shape: vs jq" "${FINDINGS_VS[$shape]}x" ">= 1x" "$(ge "${FINDINGS_VS[$shape]}" 1)"
done
target_row "bucket --bundle: speed vs jq" "${vs_jq}x" ">= 5x" "$(ge "$vs_jq" 5)"
target_row "bucket --bundle: peak RSS / file size" "${rss_ratio}x" "<= 3x" "$(ge 3 "$rss_ratio")"
