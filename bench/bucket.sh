#!/usr/bin/env bash
# Benchmarks `appdna bucket -` (batch) against the C reference bench/ref_bucket.c (a verbatim
# copy of ../shared/bench/ref_bucket.c, checked below; gcc -O2): ids shaped `user-0001234-56789`
# and UUIDs, 2M and 10M lines, output to a file and to a pipe, appdna on every core (the
# default), appdna on one thread (APPDNA_THREADS=1) and C timed side by side in one hyperfine
# run. Then `bucket - --bundle` (8 experiments, 300k users) in TSV, CSV and NDJSON, rows/s beside
# the C reference run once per experiment over the same ids. Also: Python (mmh3) speed, peak RSS
# (flat), start-up vs a Swift hello-world.
# Run by hand from anywhere: bash bench/bucket.sh   (about 4 minutes; see bench/README.md)
# BUCKET_SIZES="2" limits the sizes (millions of lines) for a quick check.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_check_load

EXP=checkout_2024
SALT=s3cr3t
# The reference hard-codes a=0.3, b=0.3, c=0.4 (buckets < 3000, < 6000, else).
VARIANTS=a=0.3,b=0.3,c=0.4
SIZES=(${BUCKET_SIZES:-2 10})
REF_SRC="$BENCH_DIR/ref_bucket.c"
REF_C="$OUT/ref_bucket"

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

# The anchor must be the real reference, not a tuned copy.
SHARED_REF="$ROOT/../shared/bench/ref_bucket.c"
if [[ -f "$SHARED_REF" ]]; then
    cmp -s "$SHARED_REF" "$REF_SRC" || die "$REF_SRC differs from $SHARED_REF: copy the reference again"
else
    note "WARNING: $SHARED_REF not found; using the copy in $REF_SRC"
fi
if [[ ! -x "$REF_C" || "$REF_SRC" -nt "$REF_C" ]]; then
    note "compiling $REF_SRC (gcc -O2)"
    gcc -O2 -o "$REF_C" "$REF_SRC"
fi
ensure_hello

# --- data (generated once, deterministic) -------------------------------------------------
ids() { # ids SHAPE MILLIONS -> path
    local path="$OUT/ids-$1-${2}m.txt"
    if [[ ! -s "$path" || "$BENCH_DIR/make_ids.py" -nt "$path" ]]; then
        note "generating ${2}M $1 ids into $path"
        python3 "$BENCH_DIR/make_ids.py" "$path" $(( $2 * 1000000 )) "$1"
    fi
    echo "$path"
}
for shape in user uuid; do for m in "${SIZES[@]}"; do ids "$shape" "$m" >/dev/null; done; done
SAMPLE="$OUT/ids-sample-100k.txt"
head -n 100000 "$(ids user "${SIZES[0]}")" > "$SAMPLE"
head -n 50000 "$(ids uuid "${SIZES[0]}")" >> "$SAMPLE"

APPDNA_CMD=("$APPDNA" bucket - "$EXP" "$SALT" --variants "$VARIANTS")
C_CMD=("$REF_C" "$EXP" "$SALT")
# The bundle batch: every experiment of an 8-experiment bundle for 300k users.
BATCH_BUNDLE="$BENCH_DIR/bundle-8-experiments.json"
BATCH_USERS=300000
BATCH_IDS="$OUT/ids-user-300k.txt"
[[ -s "$BATCH_IDS" && "$BATCH_IDS" -nt "$BENCH_DIR/make_ids.py" ]] || python3 "$BENCH_DIR/make_ids.py" "$BATCH_IDS" "$BATCH_USERS" user
mapfile -t BATCH_EXPERIMENTS < <(jq -r '.experiments.experiments | to_entries[] | "\(.key) \(.value.salt)"' "$BATCH_BUNDLE")
# What the default run uses: APPDNA_THREADS unset means one worker thread per core (at most 4).
unset APPDNA_THREADS
THREADS_DEFAULT=$(( $(nproc) < 4 ? $(nproc) : 4 ))
PY_CMD=(python3 "$BENCH_DIR/bucket_mmh3.py" "$EXP" "$SALT" --variants "$VARIANTS")
q() { printf '%q ' "$@"; }

# --- 1. the outputs must agree --------------------------------------------------------------
# appdna's TSV has one more column (the hash): without it, it must equal the C reference's.
note "checking appdna against the C reference (hash column dropped) and Python (all columns), 150k ids"
"${APPDNA_CMD[@]}" < "$SAMPLE" > "$OUT/check-appdna.tsv"
"${C_CMD[@]}" < "$SAMPLE" > "$OUT/check-c.tsv"
"${PY_CMD[@]}" < "$SAMPLE" > "$OUT/check-python.tsv"
cut -f1,3,4 "$OUT/check-appdna.tsv" > "$OUT/check-appdna-nohash.tsv"
cmp "$OUT/check-appdna-nohash.tsv" "$OUT/check-c.tsv" >&2 || die "appdna (without the hash column) and the C reference disagree"
cmp "$OUT/check-appdna.tsv" "$OUT/check-python.tsv" >&2 || die "appdna and the Python reference disagree"
# Every core and one thread must give the same bytes (the suite checks this on 1M hostile ids).
APPDNA_THREADS=1 "${APPDNA_CMD[@]}" < "$SAMPLE" > "$OUT/check-appdna-1.tsv"
cmp "$OUT/check-appdna.tsv" "$OUT/check-appdna-1.tsv" >&2 || die "appdna on $THREADS_DEFAULT threads and on one thread disagree"
for format in tsv ndjson; do
    "$APPDNA" bucket - --bundle "$BATCH_BUNDLE" --format $format < "$BATCH_IDS" > "$OUT/check-bundle.$format"
    APPDNA_THREADS=1 "$APPDNA" bucket - --bundle "$BATCH_BUNDLE" --format $format < "$BATCH_IDS" > "$OUT/check-bundle-1.$format"
    cmp "$OUT/check-bundle.$format" "$OUT/check-bundle-1.$format" >&2 || die "bucket - --bundle ($format): $THREADS_DEFAULT threads and one thread disagree"
done
rows=$(wc -l < "$OUT/check-bundle.tsv")
(( rows == BATCH_USERS * ${#BATCH_EXPERIMENTS[@]} )) || die "bucket - --bundle wrote $rows rows, not $BATCH_USERS x ${#BATCH_EXPERIMENTS[@]}"

# --- 2. batch throughput: each case appdna and C side by side --------------------------------
declare -a CASES=()
for shape in user uuid; do
    for m in "${SIZES[@]}"; do
        for sink in file pipe; do
            input=$(ids "$shape" "$m")
            if [[ $sink == file ]]; then
                a_out="> $(q "$OUT/out-appdna.tsv")" c_out="> $(q "$OUT/out-c.tsv")"
            else
                a_out="| cat > /dev/null" c_out="| cat > /dev/null"
            fi
            name="$shape-${m}m-$sink"
            # Into a file, each timed run starts with the previous run's output on disk (`sync`,
            # untimed): otherwise the shell's `>` waits for the disk to finish writing the
            # previous run's output (ext4 writes a file out when the last holder of a file the
            # shell truncated closes it, and truncating it again waits for that I/O) — 15-30 ms
            # per run for appdna's 74 MB, charged to the next command whichever it is. The
            # close's flush of the run's own output stays timed: a user pays it too.
            prepare=()
            [[ $sink == file ]] && prepare=(--prepare sync)
            note "batch $name: appdna, appdna on one thread, C (hyperfine --warmup 1 --runs 5 ${prepare[*]})"
            hyperfine --style none --warmup 1 --runs 5 "${prepare[@]}" --export-json "$OUT/batch-$name.json" \
                -n appdna "$(q "${APPDNA_CMD[@]}")< $(q "$input") $a_out" \
                -n c "$(q "${C_CMD[@]}")< $(q "$input") $c_out" \
                -n "appdna 1 thread" "APPDNA_THREADS=1 $(q "${APPDNA_CMD[@]}")< $(q "$input") $a_out" >/dev/null
            CASES+=("$name")
        done
    done
done
# The same headline case back to back, as before: for comparison with earlier figures (each
# run then also waits for the disk to take the previous run's output).
name="user-${SIZES[0]}m-file-back-to-back"
input=$(ids user "${SIZES[0]}")
note "batch $name: appdna, appdna on one thread, C (hyperfine --warmup 1 --runs 5, no sync between runs)"
hyperfine --style none --warmup 1 --runs 5 --export-json "$OUT/batch-$name.json" \
    -n appdna "$(q "${APPDNA_CMD[@]}")< $(q "$input") > $(q "$OUT/out-appdna.tsv")" \
    -n c "$(q "${C_CMD[@]}")< $(q "$input") > $(q "$OUT/out-c.tsv")" \
    -n "appdna 1 thread" "APPDNA_THREADS=1 $(q "${APPDNA_CMD[@]}")< $(q "$input") > $(q "$OUT/out-appdna.tsv")" >/dev/null
CASES+=("$name")
# The bundle batch, and its anchor: the C reference once per experiment over the same ids
# (the same rows, without the eligibility and experiment columns).
c_per_experiment=""
for entry in "${BATCH_EXPERIMENTS[@]}"; do
    c_per_experiment+="$(q "$REF_C" "${entry% *}" "${entry#* }")< $(q "$BATCH_IDS") > /dev/null; "
done
bundle_cmd() { printf '%s' "$(q "$APPDNA" bucket - --bundle "$BATCH_BUNDLE" --format "$1")< $(q "$BATCH_IDS") > /dev/null"; }
note "bundle batch: ${#BATCH_EXPERIMENTS[@]} experiments x $BATCH_USERS users, TSV/CSV/NDJSON vs C once per experiment (hyperfine --warmup 1 --runs 7)"
hyperfine --style none --warmup 1 --runs 7 --export-json "$OUT/batch-bundle.json" \
    -n "appdna --bundle tsv" "$(bundle_cmd tsv)" \
    -n "appdna --bundle csv" "$(bundle_cmd csv)" \
    -n "appdna --bundle ndjson" "$(bundle_cmd ndjson)" \
    -n "appdna --bundle tsv, 1 thread" "APPDNA_THREADS=1 $(bundle_cmd tsv)" \
    -n "appdna --bundle ndjson, 1 thread" "APPDNA_THREADS=1 $(bundle_cmd ndjson)" \
    -n "C, once per experiment" "$c_per_experiment" >/dev/null

PY_INPUT=$(ids user "${SIZES[0]}")
note "batch: Python mmh3, ${SIZES[0]}M user ids (hyperfine --runs 3)"
hyperfine --style none --runs 3 --export-json "$OUT/batch-python.json" \
    -n python "$(q "${PY_CMD[@]}")< $(q "$PY_INPUT")> /dev/null" \
    -n appdna "$(q "${APPDNA_CMD[@]}")< $(q "$PY_INPUT")> /dev/null" >/dev/null

# --- 3. peak RSS --------------------------------------------------------------------------
note "memory: peak RSS per input (/usr/bin/time -v)"
declare -A RSS=()
for shape in user uuid; do for m in "${SIZES[@]}"; do
    RSS[$shape-$m]=$(peak_rss_kb "$(ids "$shape" "$m")" "${APPDNA_CMD[@]}")
done; done
rss_bundle_tsv=$(peak_rss_kb "$BATCH_IDS" "$APPDNA" bucket - --bundle "$BATCH_BUNDLE")
rss_bundle_ndjson=$(peak_rss_kb "$BATCH_IDS" "$APPDNA" bucket - --bundle "$BATCH_BUNDLE" --format ndjson)

# --- 4. start-up --------------------------------------------------------------------------
note "start-up: appdna bucket u e s vs Swift hello-world (hyperfine -N --warmup 20 --runs 300)"
hyperfine -N --style none --warmup 20 --runs 300 --export-json "$OUT/startup.json" \
    -n "appdna bucket u e s" "$(q "$APPDNA" bucket u e s)" \
    -n "swift hello-world" "$(q "$HELLO")" >/dev/null

# --- report -------------------------------------------------------------------------------
echo
echo "appdna bucket benchmark"
machine_line
echo "command: appdna bucket - $EXP $SALT --variants $VARIANTS   vs   gcc -O2 bench/ref_bucket.c ($EXP $SALT)"
echo "check: 150,000 ids: appdna without its hash column == C reference; appdna == Python (mmh3); every core == one thread"
echo "settings: appdna = default threads (APPDNA_THREADS unset: $THREADS_DEFAULT worker threads on $(nproc) cores, input read and rows written in input order"
echo "          by the main thread); '1 thread' = APPDNA_THREADS=1 (read, bucket, write on one thread); C is one thread (fgets, printf)"
echo "          hyperfine --warmup 1 --runs 5, medians; each row's three commands in one hyperfine run;"
echo "          into a file: --prepare sync (the previous run's output is on disk before each run) but 'back-to-back'"
echo
printf '  %-30s %10s %10s %10s %10s %12s %12s\n' case "C median" "appdna" "speed vs C" "1 thread" "appdna M/s" "appdna MB/s"
worst="" worst1=""
for name in "${CASES[@]}"; do
    j="$OUT/batch-$name.json"
    t_a=$(median "$j" 0) t_c=$(median "$j" 1) t_1=$(median "$j" 2)
    lines=${name#*-}; lines=${lines%%m-*}
    shape=${name%%-*}
    bytes=$(stat -c %s "$(ids "$shape" "$lines")")
    ratio=$(div "$t_c" "$t_a") ratio1=$(div "$t_c" "$t_1")
    [[ -z "$worst" ]] || [[ $(lt "$ratio" "$worst") == 1 ]] && worst=$ratio
    [[ -z "$worst1" ]] || [[ $(lt "$ratio1" "$worst1") == 1 ]] && worst1=$ratio1
    [[ $name == user-2m-file ]] && headline=$ratio
    awk -v n="$name" -v c="$t_c" -v a="$t_a" -v r="$ratio" -v r1="$ratio1" -v l="$lines" -v b="$bytes" -v m="$(unreliable_mark)" \
        'BEGIN { printf "  %-30s %9.3fs %9.3fs %9sx %9sx %12.2f %12.1f%s\n", n, c, a, r, r1, l / a, b / a / 1048576, m }'
done
headline=${headline:-$worst}
B="$OUT/batch-bundle.json"
bundle_rows=$(( BATCH_USERS * ${#BATCH_EXPERIMENTS[@]} ))
rows_per_s() { awk -v r="$bundle_rows" -v t="$(median "$B" "$1")" 'BEGIN { printf "%.2f", r / t / 1e6 }'; }
tsv_rate=$(rows_per_s 0)
ndjson_vs_tsv=$(div "$(median "$B" 2)" "$(median "$B" 0)")
echo
echo "bundle batch: appdna bucket - --bundle bench/bundle-8-experiments.json (${#BATCH_EXPERIMENTS[@]} experiments) < $BATCH_USERS user ids: $bundle_rows rows"
echo "  anchor: the C reference once per experiment over the same ids ($bundle_rows rows of user, bucket, variant); hyperfine --warmup 1 --runs 7"
printf '  %-34s %10s %12s\n' command median "M rows/s"
for index in 0 1 2 3 4 5; do
    printf '  %-34s %9.3fs %12s%s\n' "$(jq -r ".results[$index].command" "$B")" "$(median "$B" $index)" "$(rows_per_s $index)" "$(unreliable_mark)"
done
t_py=$(median "$OUT/batch-python.json" 0)
vs_py=$(div "$t_py" "$(median "$OUT/batch-python.json" 1)")
echo
echo "memory: peak RSS of appdna bucket - ... (/usr/bin/time -v, default threads)"
rss_max=0 rss_min=999999999
for key in "${!RSS[@]}"; do
    printf '  %-24s %10s\n' "${key}M ids" "$(mb "${RSS[$key]}") MB"
    (( RSS[$key] > rss_max )) && rss_max=${RSS[$key]}
    (( RSS[$key] < rss_min )) && rss_min=${RSS[$key]}
done
growth=$(div "$rss_max" "$rss_min")
printf '  %-24s %10s\n' "--bundle, tsv" "$(mb "$rss_bundle_tsv") MB" "--bundle, ndjson" "$(mb "$rss_bundle_ndjson") MB"
startup_ratio=$(div "$(median "$OUT/startup.json" 0)" "$(median "$OUT/startup.json" 1)")
echo
echo "start-up: hyperfine -N --warmup 20 --runs 300"
timing_row "appdna bucket u e s" "$OUT/startup.json" 0 ms; echo
timing_row "swift hello-world" "$OUT/startup.json" 1 ms; echo
echo
echo "targets (ratios of medians, each pair measured side by side in one hyperfine run)"
printf '  %-46s %-12s %-10s %s\n' target measured need result
target_row "batch: 2M user ids to a file, speed vs C" "${headline}x" ">= 1.6x" "$(ge "$headline" 1.6)"
target_row "batch: slowest case, speed vs C (floor)" "${worst}x" ">= 0.8x" "$(ge "$worst" 0.8)"
target_row "batch: slowest case, speed vs C (goal)" "${worst}x" ">= 1.0x" "$(ge "$worst" 1.0)"
target_row "batch, one thread: slowest case vs C" "${worst1}x" ">= 0.8x" "$(ge "$worst1" 0.8)"
target_row "bundle batch: TSV rows/s" "${tsv_rate}M" ">= 1.5M" "$(ge "$tsv_rate" 1.5)"
target_row "bundle batch: NDJSON time / TSV time" "${ndjson_vs_tsv}x" "<= 1.25x" "$(ge 1.25 "$ndjson_vs_tsv")"
target_row "batch: speed vs Python (${SIZES[0]}M user ids)" "${vs_py}x" ">= 5x" "$(ge "$vs_py" 5)"
target_row "memory: largest peak RSS" "$(mb "$rss_max") MB" "< 32 MB" "$(lt "$rss_max" 32768)"
target_row "memory: bundle batch peak RSS (NDJSON)" "$(mb "$rss_bundle_ndjson") MB" "< 32 MB" "$(lt "$rss_bundle_ndjson" 32768)"
target_row "memory: flat (largest / smallest peak)" "${growth}x" "<= 1.10x" "$(ge 1.10 "$growth")"
target_row "start-up: appdna / hello-world wall time" "${startup_ratio}x" "< 2x" "$(lt "$startup_ratio" 2)"
