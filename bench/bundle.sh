#!/usr/bin/env bash
# Benchmarks `appdna bundle validate` against `jq empty` and `appdna bundle diff` against
# `diff <(jq -S . OLD) <(jq -S . NEW)` on 25 MB bundles, and checks that doubling the input at
# most doubles time and peak memory. Then validate against `jq empty` on every shape of
# make_bundle_shapes.py (compact, 2- and 4-space indented, many small numbers, long strings with
# escapes and non-ASCII, many small experiments, few huge payloads), 25 MB each, side by side,
# with MB/s, peak RSS / file size, and the run-to-run spread of validate on one file.
# BUNDLE_SHAPE_MB=5 makes smaller shapes for a quick check.
# Run by hand from anywhere: bash bench/bundle.sh   (about a minute; see bench/README.md)
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_check_load

need python3 "install python3"
need jq "install jq (apt-get install -y jq)"
need diff "install diffutils"
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing: apt-get install -y time"
ensure_hyperfine
ensure_appdna

# pair SIZE_MB: makes bench/out/pair-{old,new}-SIZE.json once (deterministic).
pair() {
    local old="$OUT/pair-old-$1.json" new="$OUT/pair-new-$1.json"
    if [[ ! -s "$old" || ! -s "$new" || "$BENCH_DIR/make_bundle_pair.py" -nt "$old" ]]; then
        note "generating a ${1} MB bundle pair into $OUT"
        python3 "$BENCH_DIR/make_bundle_pair.py" "$old" "$new" "$1"
    fi
}
pair 25
pair 50
OLD25="$OUT/pair-old-25.json" NEW25="$OUT/pair-new-25.json"
OLD50="$OUT/pair-old-50.json" NEW50="$OUT/pair-new-50.json"

note "checking results"
"$APPDNA" bundle validate "$OLD25" || die "appdna bundle validate $OLD25 should pass"
"$APPDNA" bundle validate "$NEW25" || die "appdna bundle validate $NEW25 should pass"
status=0
"$APPDNA" bundle diff --stat "$OLD25" "$NEW25" > "$OUT/diff-stat.txt" || status=$?
[[ $status -eq 1 ]] || die "appdna bundle diff should exit 1 on different bundles, got $status"
"$APPDNA" bundle diff --format patch "$OLD25" "$NEW25" > "$OUT/patch.json" || true
# jq applies the patch (add/remove/replace/move; enough for this check) and must give NEW.
jq -S --slurpfile p "$OUT/patch.json" '
  def tok: if . == "" then [] else (.[1:] | split("/") | map(gsub("~1"; "/") | gsub("~0"; "~") | (tonumber? // .))) end;
  def ins($path; $v): ($path[:-1]) as $parent | $path[-1] as $last
    | if ($last | type) == "number" then setpath($parent; (getpath($parent)[:$last] + [$v] + getpath($parent)[$last:])) else setpath($path; $v) end;
  reduce $p[0][] as $op (.;
    if $op.op == "replace" then setpath($op.path | tok; $op.value)
    elif $op.op == "add" then ins($op.path | tok; $op.value)
    elif $op.op == "remove" then delpaths([$op.path | tok])
    else (getpath($op.from | tok)) as $v | delpaths([$op.from | tok]) | ins($op.path | tok; $v) end)' "$OLD25" > "$OUT/patched.json"
cmp -s "$OUT/patched.json" <(jq -S . "$NEW25") || die "the patch applied by jq does not give NEW"

note "timing validate (hyperfine -N --warmup 2 --runs 10)"
hyperfine -N --style none --warmup 2 --runs 10 --export-json "$OUT/bundle-validate.json" \
    -n "appdna validate 25" "$(printf '%q ' "$APPDNA" bundle validate "$OLD25")" \
    -n "jq empty 25" "$(printf '%q ' jq empty "$OLD25")" \
    -n "appdna validate 50" "$(printf '%q ' "$APPDNA" bundle validate "$OLD50")" >/dev/null

note "timing diff (hyperfine --warmup 1 --runs 5; the jq pipeline needs a shell, so all run under bash)"
hyperfine --shell bash -i --style none --warmup 1 --runs 5 --export-json "$OUT/bundle-diff.json" \
    -n "appdna diff 25" "$(printf '%q ' "$APPDNA" bundle diff "$OLD25" "$NEW25") > /dev/null" \
    -n "jq -S | diff 25" "diff <(jq -S . $(printf '%q' "$OLD25")) <(jq -S . $(printf '%q' "$NEW25")) > /dev/null" \
    -n "appdna diff 50" "$(printf '%q ' "$APPDNA" bundle diff "$OLD50" "$NEW50") > /dev/null" >/dev/null

note "memory: peak RSS (/usr/bin/time -v)"
rss_v25=$(peak_rss_kb /dev/null "$APPDNA" bundle validate "$OLD25")
rss_v50=$(peak_rss_kb /dev/null "$APPDNA" bundle validate "$OLD50")
rss_jq=$(peak_rss_kb /dev/null jq empty "$OLD25")
# diff exits 1 (different): wrap it so peak_rss_kb sees success. $0..$2 expand in the inner bash.
# shellcheck disable=SC2016
rss_d25=$(peak_rss_kb /dev/null bash -c '"$0" bundle diff "$1" "$2" > /dev/null; [[ $? -eq 1 ]]' "$APPDNA" "$OLD25" "$NEW25")
# shellcheck disable=SC2016
rss_d50=$(peak_rss_kb /dev/null bash -c '"$0" bundle diff "$1" "$2" > /dev/null; [[ $? -eq 1 ]]' "$APPDNA" "$OLD50" "$NEW50")

# --- validate on every shape ----------------------------------------------------------------
SHAPE_MB=${BUNDLE_SHAPE_MB:-25}
mapfile -t SHAPES < <(python3 "$BENCH_DIR/make_bundle_shapes.py" --list)
for shape in "${SHAPES[@]}"; do
    f="$OUT/shape-$shape-$SHAPE_MB.json"
    if [[ ! -s "$f" || "$BENCH_DIR/make_bundle_shapes.py" -nt "$f" ]]; then
        note "generating the $shape shape ($SHAPE_MB MB) into $f"
        python3 "$BENCH_DIR/make_bundle_shapes.py" "$shape" "$f" $(( SHAPE_MB * 1024 ))
    fi
done
declare -A SHAPE_RSS=()
for shape in "${SHAPES[@]}"; do
    f="$OUT/shape-$shape-$SHAPE_MB.json"
    note "shape $shape: appdna bundle validate vs jq empty (hyperfine -N -i --warmup 2 --runs 10)"
    # -i: every shape carries deliberate findings, so validate exits 1.
    hyperfine -N -i --style none --warmup 2 --runs 10 --export-json "$OUT/shape-$shape.json" \
        -n "appdna validate" "$(printf '%q ' "$APPDNA" bundle validate "$f")" \
        -n "jq empty" "$(printf '%q ' jq empty "$f")" >/dev/null
    # shellcheck disable=SC2016
    SHAPE_RSS[$shape]=$(peak_rss_kb /dev/null bash -c '"$0" bundle validate "$1" > /dev/null 2>&1; [[ $? -eq 1 ]]' "$APPDNA" "$f")
done
# Run-to-run spread on one file, with the page faults of each run (the 0.09-0.23 s swing).
STEADY="$OUT/shape-indent2-$SHAPE_MB.json"
note "steadiness: 20 runs of appdna bundle validate on $STEADY"
: > "$OUT/steady.txt"
for _ in $(seq 20); do
    /usr/bin/time -f "%e %S %R" -o "$OUT/steady-one.txt" "$APPDNA" bundle validate "$STEADY" > /dev/null || true
    tail -n 1 "$OUT/steady-one.txt" >> "$OUT/steady.txt"
done

kb() { awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.0f", b / 1024 }'; }
old25_kb=$(kb "$OLD25") new25_kb=$(kb "$NEW25") old50_kb=$(kb "$OLD50") new50_kb=$(kb "$NEW50")
V="$OUT/bundle-validate.json" D="$OUT/bundle-diff.json"
vs_jq=$(div "$(median "$V" 1)" "$(median "$V" 0)")
vs_diff=$(div "$(median "$D" 1)" "$(median "$D" 0)")
rss_ratio=$(div "$rss_v25" "$old25_kb")
v_time2=$(div "$(median "$V" 2)" "$(median "$V" 0)")
d_time2=$(div "$(median "$D" 2)" "$(median "$D" 0)")
v_mem2=$(div "$rss_v50" "$rss_v25")
d_mem2=$(div "$rss_d50" "$rss_d25")
size2=$(div "$((old50_kb + new50_kb))" "$((old25_kb + new25_kb))")

echo
echo "appdna bundle validate / diff benchmark"
machine_line
echo "bundles: make_bundle_pair.py: OLD $(mb "$old25_kb") MB, NEW $(mb "$new25_kb") MB; doubled: $(mb "$old50_kb") MB, $(mb "$new50_kb") MB (x$size2)"
echo "diff --stat (25 MB): $(tail -n 1 "$OUT/diff-stat.txt" | sed 's/^ *//')"
echo "patch check: jq applying 'appdna bundle diff --format patch' to OLD gives NEW exactly"
echo
printf '  %-24s %12s %22s %5s\n' command median "mean +- sd" runs
timing_row "appdna validate 25 MB" "$V" 0 ms; echo
timing_row "jq empty 25 MB" "$V" 1 ms; echo
timing_row "appdna validate 50 MB" "$V" 2 ms; echo
timing_row "appdna diff 25 MB" "$D" 0 ms; echo
timing_row "diff <(jq -S) 25 MB" "$D" 1 ms; echo
timing_row "appdna diff 50 MB" "$D" 2 ms; echo
echo
echo "memory: peak RSS (/usr/bin/time -v)"
printf '  %-24s %10s\n' "appdna validate 25 MB" "$(mb "$rss_v25") MB"
printf '  %-24s %10s\n' "appdna validate 50 MB" "$(mb "$rss_v50") MB"
printf '  %-24s %10s\n' "jq empty 25 MB" "$(mb "$rss_jq") MB"
printf '  %-24s %10s\n' "appdna diff 25 MB" "$(mb "$rss_d25") MB"
printf '  %-24s %10s\n' "appdna diff 50 MB" "$(mb "$rss_d50") MB"
echo
echo "targets (ratios of medians; the machine is shared, so single runs are noisy)"
printf '  %-46s %-12s %-10s %s\n' target measured need result
target_row "validate: jq empty time / appdna time" "${vs_jq}x" ">= 5x" "$(ge "$vs_jq" 5)"
target_row "validate: peak RSS / file size" "${rss_ratio}x" "<= 3x" "$(ge 3 "$rss_ratio")"
target_row "diff: jq -S | diff time / appdna time" "${vs_diff}x" "> 1x" "$(lt 1 "$vs_diff")"
target_row "validate: time 50 MB / 25 MB" "${v_time2}x" "<= 2.4x" "$(ge 2.4 "$v_time2")"
target_row "validate: peak RSS 50 MB / 25 MB" "${v_mem2}x" "<= 2.4x" "$(ge 2.4 "$v_mem2")"
target_row "diff: time 50 MB / 25 MB" "${d_time2}x" "<= 2.4x" "$(ge 2.4 "$d_time2")"
target_row "diff: peak RSS 50 MB / 25 MB" "${d_mem2}x" "<= 2.4x" "$(ge 2.4 "$d_mem2")"

echo
echo "validate on every shape (${SHAPE_MB} MB each; jq empty time / appdna time, medians of 10 side-by-side runs)"
printf '  %-12s %8s %10s %10s %9s %10s %9s %s\n' shape MB appdna "jq empty" ratio "MB/s" "RSS/file" result
worst=""
worst_rss=0
for shape in "${SHAPES[@]}"; do
    f="$OUT/shape-$shape-$SHAPE_MB.json" j="$OUT/shape-$shape.json"
    bytes=$(stat -c %s "$f")
    t_a=$(median "$j" 0) t_j=$(median "$j" 1)
    ratio=$(div "$t_j" "$t_a")
    rss_file=$(awk -v r="${SHAPE_RSS[$shape]}" -v b="$bytes" 'BEGIN { printf "%.2f", r * 1024 / b }')
    [[ -z "$worst" ]] || [[ $(lt "$ratio" "$worst") == 1 ]] && worst=$ratio
    [[ $(lt "$worst_rss" "$rss_file") == 1 ]] && worst_rss=$rss_file
    awk -v n="$shape" -v b="$bytes" -v a="$t_a" -v jq="$t_j" -v r="$ratio" -v rf="$rss_file" -v v="$(verdict "$(ge "$ratio" 5)")" -v m="$(unreliable_mark)" \
        'BEGIN { printf "  %-12s %8.1f %9.1fms %9.1fms %8sx %10.0f %8sx %s%s\n", n, b / 1048576, a * 1000, jq * 1000, r, b / 1048576 / a, rf, v, m }'
done
times=$(cut -d' ' -f1 "$OUT/steady.txt" | sort -n)
faults=$(cut -d' ' -f3 "$OUT/steady.txt" | sort -n)
s_min=$(head -n 1 <<< "$times") s_max=$(tail -n 1 <<< "$times") s_med=$(sed -n 10p <<< "$times")
f_min=$(head -n 1 <<< "$faults") f_max=$(tail -n 1 <<< "$faults")
s_spread=$(div "$s_max" "$(awk -v m="$s_min" 'BEGIN { print (m > 0) ? m : 0.01 }')")
echo
echo "steadiness: 20 runs of validate on $(basename "$STEADY"): min ${s_min} s, median ${s_med} s, max ${s_max} s (max/min ${s_spread}x); minor page faults ${f_min}..${f_max} per run"
echo
printf '  %-46s %-12s %-10s %s\n' target measured need result
target_row "validate, every shape: jq empty / appdna (floor)" "${worst}x" ">= 5x" "$(ge "$worst" 5)"
target_row "validate, every shape: jq empty / appdna (goal)" "${worst}x" ">= 8x" "$(ge "$worst" 8)"
target_row "validate, every shape: peak RSS / file size" "${worst_rss}x" "<= 3x" "$(ge 3 "$worst_rss")"
