#!/usr/bin/env bash
# Benchmarks `appdna bucket`: batch throughput against Python (mmh3) and C references,
# peak memory on 1M and 10M ids, and start-up against a Swift hello-world.
# Run by hand from anywhere: bash bench/bucket.sh   (about 2-3 minutes; see bench/README.md)
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

EXP=checkout_2024
SALT=s3cr3t
VARIANTS=control=0.5,variant_b=0.5
IDS_10M="$OUT/ids-10m.txt"
IDS_1M="$OUT/ids-1m.txt"
IDS_100K="$OUT/ids-100k.txt"
REF_C="$OUT/bucket_ref"
HELLO="$OUT/hello"

# --- tools --------------------------------------------------------------------------------
need gcc "install gcc (apt-get install -y gcc)"
need python3 "install python3"
need jq "install jq (apt-get install -y jq)"
need swiftc "install a Swift toolchain"
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing: apt-get install -y time"
ensure_hyperfine
if ! python3 -c 'import mmh3' 2>/dev/null; then
    note "installing the mmh3 Python package (python3 -m pip install mmh3)"
    python3 -m pip install --quiet mmh3 >&2 || die "the mmh3 Python package is missing: python3 -m pip install mmh3"
fi
ensure_appdna

if [[ ! -x "$REF_C" || "$BENCH_DIR/bucket_ref.c" -nt "$REF_C" ]]; then
    note "compiling bench/bucket_ref.c (gcc -O2)"
    gcc -O2 -Wall -Wextra -o "$REF_C" "$BENCH_DIR/bucket_ref.c"
fi
if [[ ! -x "$HELLO" ]]; then
    note "building the Swift hello-world (swiftc -O -wmo, dynamic stdlib as in the release build)"
    printf 'print("hello")\n' > "$OUT/hello.swift"
    swiftc -O -wmo -o "$HELLO" "$OUT/hello.swift"
fi

# --- data (generated once, deterministic) -------------------------------------------------
if [[ ! -s "$IDS_10M" || "$BENCH_DIR/make_ids.py" -nt "$IDS_10M" ]]; then
    note "generating 10M ids into $IDS_10M"
    python3 "$BENCH_DIR/make_ids.py" "$IDS_10M" 10000000
    rm -f "$IDS_1M" "$IDS_100K"
fi
[[ -s "$IDS_1M" ]] || head -n 1000000 "$IDS_10M" > "$IDS_1M"
[[ -s "$IDS_100K" ]] || head -n 100000 "$IDS_10M" > "$IDS_100K"

APPDNA_CMD=("$APPDNA" bucket - "$EXP" "$SALT" --variants "$VARIANTS")
C_CMD=("$REF_C" "$EXP" "$SALT" --variants "$VARIANTS")
PY_CMD=(python3 "$BENCH_DIR/bucket_mmh3.py" "$EXP" "$SALT" --variants "$VARIANTS")

# --- 1. the three must agree byte for byte ------------------------------------------------
note "checking that appdna, C and Python outputs are identical on 100k ids"
"${APPDNA_CMD[@]}" < "$IDS_100K" > "$OUT/check-appdna.tsv"
"${C_CMD[@]}" < "$IDS_100K" > "$OUT/check-c.tsv"
"${PY_CMD[@]}" < "$IDS_100K" > "$OUT/check-python.tsv"
for other in c python; do
    if ! cmp -s "$OUT/check-appdna.tsv" "$OUT/check-$other.tsv"; then
        printf '\nFAIL: appdna and the %s reference disagree on %s:\n' "$other" "$IDS_100K" >&2
        cmp "$OUT/check-appdna.tsv" "$OUT/check-$other.tsv" >&2 || true
        diff "$OUT/check-appdna.tsv" "$OUT/check-$other.tsv" | head -n 10 >&2 || true
        exit 1
    fi
done
lines=$(wc -l < "$OUT/check-appdna.tsv")
non_ascii=$(LC_ALL=C grep -c '[^ -~	]' "$OUT/check-appdna.tsv" || true)
[[ "$lines" -eq 100000 ]] || die "appdna wrote $lines lines for 100000 ids"

# --- 2. batch throughput, 10M ids ---------------------------------------------------------
q() { printf '%q ' "$@"; }
note "batch: appdna and C, 10M ids (hyperfine --warmup 1 --runs 5)"
hyperfine --style none --warmup 1 --runs 5 --export-json "$OUT/batch-fast.json" \
    -n appdna "$(q "${APPDNA_CMD[@]}")< $(q "$IDS_10M")> /dev/null" \
    -n c "$(q "${C_CMD[@]}")< $(q "$IDS_10M")> /dev/null" >/dev/null
note "batch: Python mmh3, 10M ids (hyperfine --runs 3; about 35 s)"
hyperfine --style none --runs 3 --export-json "$OUT/batch-python.json" \
    -n python "$(q "${PY_CMD[@]}")< $(q "$IDS_10M")> /dev/null" >/dev/null

# --- 3. peak RSS --------------------------------------------------------------------------
note "memory: peak RSS for 1M and 10M ids (/usr/bin/time -v)"
rss_1m=$(peak_rss_kb "$IDS_1M" "${APPDNA_CMD[@]}")
rss_10m=$(peak_rss_kb "$IDS_10M" "${APPDNA_CMD[@]}")

# --- 4. start-up --------------------------------------------------------------------------
note "start-up: appdna bucket u e s vs Swift hello-world (hyperfine -N --warmup 20 --runs 300)"
hyperfine -N --style none --warmup 20 --runs 300 --export-json "$OUT/startup.json" \
    -n "appdna bucket u e s" "$(q "$APPDNA" bucket u e s)" \
    -n "swift hello-world" "$(q "$HELLO")" >/dev/null

# --- report -------------------------------------------------------------------------------
median() { jq -r ".results[${2:-0}].median" "$1"; }
row() { # name json index
    awk -v n="$1" -v med="$(median "$2" "$3")" -v mean="$(mean_of "$2" "$3")" -v sd="$(stddev_of "$2" "$3")" \
        -v runs="$(jq -r ".results[$3].times | length" "$2")" \
        'BEGIN { printf "  %-22s %9.3f s %9.3f +- %6.3f s %5d %10.2f M ids/s\n", n, med, mean, sd, runs, 10 / med }'
}
t_app=$(median "$OUT/batch-fast.json" 0)
t_c=$(median "$OUT/batch-fast.json" 1)
t_py=$(median "$OUT/batch-python.json" 0)
vs_py=$(awk -v a="$t_app" -v b="$t_py" 'BEGIN { printf "%.2f", b / a }')
vs_c=$(awk -v a="$t_app" -v b="$t_c" 'BEGIN { printf "%.2f", b / a }')
app_over_c=$(awk -v a="$t_app" -v b="$t_c" 'BEGIN { printf "%.2f", a / b }')

echo
echo "appdna bucket benchmark"
machine_line
echo "input: $IDS_10M (10,000,000 ids, $(du -m "$IDS_10M" | cut -f1) MB); sample check: 100,000 lines identical across appdna, C, Python ($non_ascii non-ASCII)"
echo
echo "batch: bucket - $EXP $SALT --variants $VARIANTS < 10M ids > /dev/null"
printf '  %-22s %11s %20s %5s %17s\n' command median "mean +- σ" runs throughput
row "appdna" "$OUT/batch-fast.json" 0
row "C (gcc -O2)" "$OUT/batch-fast.json" 1
row "Python mmh3" "$OUT/batch-python.json" 0
printf '  %-44s %8s   %-16s %s\n' "target" measured need result
printf '  %-44s %7sx   %-16s %s\n' "appdna speed vs Python (python/appdna)" "$vs_py" ">= 5x" "$(verdict "$(cmp_le 5 "$vs_py")")"
printf '  %-44s %7sx   %-16s %s\n' "appdna speed vs C (c/appdna)" "$vs_c" ">= 0.5x" "$(verdict "$(cmp_le 0.5 "$vs_c")")"
printf '  %-44s %7sx   %-16s\n' "  (appdna time / C time)" "$app_over_c" "<= 2x"
echo
echo "memory: peak RSS of appdna bucket - … (/usr/bin/time -v)"
growth=$(awk -v a="$rss_1m" -v b="$rss_10m" 'BEGIN { printf "%.2f", b / a }')
printf '  %-44s %8.1f MB  %-16s %s\n' "1M ids" "$(awk -v k="$rss_1m" 'BEGIN { print k / 1024 }')" "< 32 MB" "$(verdict "$(cmp_le "$rss_1m" 32767)")"
printf '  %-44s %8.1f MB  %-16s %s\n' "10M ids" "$(awk -v k="$rss_10m" 'BEGIN { print k / 1024 }')" "< 32 MB" "$(verdict "$(cmp_le "$rss_10m" 32767)")"
printf '  %-44s %7sx   %-16s %s\n' "flat: 10M peak / 1M peak" "$growth" "<= 1.10x" "$(verdict "$(cmp_le "$growth" 1.10)")"
echo
echo "start-up: hyperfine -N (300 runs, 20 warm-up)"
printf '  %-22s %11s %20s %5s\n' command median "mean +- σ" runs
for i in 0 1; do
    awk -v n="$(jq -r ".results[$i].command" "$OUT/startup.json")" -v med="$(median "$OUT/startup.json" "$i")" \
        -v mean="$(mean_of "$OUT/startup.json" "$i")" -v sd="$(stddev_of "$OUT/startup.json" "$i")" \
        -v runs="$(jq -r ".results[$i].times | length" "$OUT/startup.json")" \
        'BEGIN { printf "  %-22s %8.2f ms %9.2f +- %5.2f ms %5d\n", n, med * 1000, mean * 1000, sd * 1000, runs }'
done
startup_ratio=$(awk -v a="$(median "$OUT/startup.json" 0)" -v b="$(median "$OUT/startup.json" 1)" 'BEGIN { printf "%.2f", a / b }')
printf '  %-44s %7sx   %-16s %s\n' "appdna / hello-world (median wall time)" "$startup_ratio" "< 2x" "$(verdict "$(awk -v r="$startup_ratio" 'BEGIN { print (r < 2) ? 1 : 0 }')")"
echo
echo "ratios use medians (the machine is shared; means are shown for reference)."
