#!/usr/bin/env bash
# Benchmarks `appdna bucket`: batch throughput against Python (mmh3) and C references,
# peak memory on 1M and 10M ids, and start-up against a Swift hello-world.
# Run by hand from anywhere: bash bench/bucket.sh   (about 2-3 minutes; see bench/README.md)
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_check_load

EXP=checkout_2024
SALT=s3cr3t
VARIANTS=control=0.5,variant_b=0.5
IDS_10M="$OUT/ids-10m.txt"
IDS_1M="$OUT/ids-1m.txt"
IDS_100K="$OUT/ids-100k.txt"
REF_C="$OUT/bucket_ref"

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
ensure_hello

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
note "batch: Python mmh3, 10M ids (hyperfine --runs 3; about 30 s)"
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
t_app=$(median "$OUT/batch-fast.json" 0)
t_c=$(median "$OUT/batch-fast.json" 1)
t_py=$(median "$OUT/batch-python.json" 0)
vs_py=$(div "$t_py" "$t_app")
vs_c=$(div "$t_c" "$t_app")
growth=$(div "$rss_10m" "$rss_1m")
startup_ratio=$(div "$(median "$OUT/startup.json" 0)" "$(median "$OUT/startup.json" 1)")

echo
echo "appdna bucket benchmark"
machine_line
echo "input: $IDS_10M (10,000,000 ids, $(du -m "$IDS_10M" | cut -f1) MB)"
echo "check: 100,000-id sample ($non_ascii non-ASCII) gives byte-identical TSV from appdna, C and Python"
echo
echo "batch: bucket - $EXP $SALT --variants $VARIANTS < 10M ids > /dev/null"
printf '  %-24s %12s %22s %5s %14s\n' command median "mean +- sd" runs throughput
timing_row "appdna" "$OUT/batch-fast.json" 0 s; awk -v t="$t_app" 'BEGIN { printf " %8.2f M/s\n", 10 / t }'
timing_row "C (gcc -O2)" "$OUT/batch-fast.json" 1 s; awk -v t="$t_c" 'BEGIN { printf " %8.2f M/s\n", 10 / t }'
timing_row "Python (mmh3)" "$OUT/batch-python.json" 0 s; awk -v t="$t_py" 'BEGIN { printf " %8.2f M/s\n", 10 / t }'
echo
echo "memory: peak RSS of appdna bucket - ... (/usr/bin/time -v)"
printf '  %-24s %10s\n' "1M ids" "$(mb "$rss_1m") MB"
printf '  %-24s %10s\n' "10M ids" "$(mb "$rss_10m") MB"
echo
echo "start-up: hyperfine -N --warmup 20 --runs 300"
printf '  %-24s %12s %22s %5s\n' command median "mean +- sd" runs
timing_row "appdna bucket u e s" "$OUT/startup.json" 0 ms; echo
timing_row "swift hello-world" "$OUT/startup.json" 1 ms; echo
echo
echo "targets (ratios of medians; the machine is shared, so single runs are noisy)"
printf '  %-46s %-12s %-10s %s\n' target measured need result
target_row "batch: speed vs Python (python time / appdna)" "${vs_py}x" ">= 5x" "$(ge "$vs_py" 5)"
target_row "batch: speed vs C (C time / appdna time)" "${vs_c}x" ">= 0.5x" "$(ge "$vs_c" 0.5)"
target_row "memory: peak RSS, 1M ids" "$(mb "$rss_1m") MB" "< 32 MB" "$(lt "$rss_1m" 32768)"
target_row "memory: peak RSS, 10M ids" "$(mb "$rss_10m") MB" "< 32 MB" "$(lt "$rss_10m" 32768)"
target_row "memory: flat (10M peak / 1M peak)" "${growth}x" "<= 1.10x" "$(ge 1.10 "$growth")"
target_row "start-up: appdna / hello-world wall time" "${startup_ratio}x" "< 2x" "$(lt "$startup_ratio" 2)"
