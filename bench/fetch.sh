#!/usr/bin/env bash
# Benchmarks `appdna bundle fetch` of a 5 MB bundle from a loopback HTTP server against the
# careful shell step that gives the same guarantees (download, fail on HTTP errors, check it is
# JSON with a bundle_version, rewrite, fsync, rename):
#   curl -fsS ... -o tmp && jq -e .bundle_version tmp >/dev/null && jq . tmp > tmp2 &&
#   sync tmp2 && mv tmp2 appdna-config.json
# and against a bare `curl -o` (no checks, no fsync), all three side by side in one hyperfine
# run; states appdna's overhead above `curl -o` in ms and splits appdna's run into phases
# (start-up, transfer, parse+validate, write, fsync, rename) from `strace -T` logs
# (bench/fetch_phases.py). Also start-up of `appdna bucket` against a Swift hello-world (libcurl
# is loaded only by commands that use the network).
# Run by hand from anywhere: bash bench/fetch.sh   (about a minute)
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_check_load

SIZE=5000000
ROOT_DIR="$OUT/fetch-root"
BUNDLE="$ROOT_DIR/api/v1/sdk/config-bundle"
PORT=${APPDNA_BENCH_PORT:-18765}
URL="http://127.0.0.1:$PORT"

need python3 "install python3"
need jq "install jq (apt-get install -y jq)"
need curl "install curl (apt-get install -y curl)"
need strace "install strace (apt-get install -y strace)"
need swiftc "install a Swift toolchain"
ensure_hyperfine
ensure_appdna

ensure_hello

# --- data and server ----------------------------------------------------------------------
if [[ ! -s "$BUNDLE" || "$BENCH_DIR/make_fetch_bundle.py" -nt "$BUNDLE" ]]; then
    note "generating a ~5 MB bundle (API shape) into $BUNDLE"
    mkdir -p "$(dirname "$BUNDLE")"
    python3 "$BENCH_DIR/make_fetch_bundle.py" "$BUNDLE" "$SIZE"
fi
bytes=$(wc -c < "$BUNDLE")

note "serving $ROOT_DIR on $URL (python3 -m http.server)"
python3 -m http.server "$PORT" --bind 127.0.0.1 --directory "$ROOT_DIR" >/dev/null 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 50); do
    curl -sf -o /dev/null "$URL/api/v1/sdk/config-bundle" && break
    sleep 0.1
done
curl -sf -o /dev/null "$URL/api/v1/sdk/config-bundle" || die "the server on $URL does not answer"

# A throwaway key for the loopback server (it ignores it).
export APPDNA_SDK_KEY=adn_live_bench0000000000000000
export APPDNA_API_URL="$URL"
FETCHED="$OUT/fetched.json"
CURLED="$OUT/curled.json"

# --- check: the fetch works and writes the SDK shape --------------------------------------
rm -f "$FETCHED"
"$APPDNA" bundle fetch -o "$FETCHED" 2> "$OUT/fetch-summary.txt" || { cat "$OUT/fetch-summary.txt" >&2; die "appdna bundle fetch failed"; }
jq -e '.bundle_version == 1234 and (.content == null) and (.onboarding != null)' "$FETCHED" >/dev/null \
    || die "$FETCHED is not the SDK shape of the bundle"
# Same content, same bytes.
cp "$FETCHED" "$OUT/fetched-first.json"
"$APPDNA" bundle fetch --force -q -o "$FETCHED"
cmp -s "$FETCHED" "$OUT/fetched-first.json" || die "two fetches of the same bundle gave different bytes"

# --- 1. fetch vs the careful pipeline vs curl -o -----------------------------------------
q() { printf '%q ' "$@"; }
PIPE_DIR="$OUT/fetch-pipeline"
mkdir -p "$PIPE_DIR"
careful="curl -fsS -H $(q "x-api-key: $APPDNA_SDK_KEY") $(q "$URL/api/v1/sdk/config-bundle") -o $(q "$PIPE_DIR/tmp") \
&& jq -e .bundle_version $(q "$PIPE_DIR/tmp") >/dev/null && jq . $(q "$PIPE_DIR/tmp") > $(q "$PIPE_DIR/tmp2") \
&& sync $(q "$PIPE_DIR/tmp2") && mv $(q "$PIPE_DIR/tmp2") $(q "$PIPE_DIR/appdna-config.json")"
bash -c "$careful" || die "the careful pipeline failed: $careful"
note "fetch: appdna bundle fetch --force vs the careful curl+jq pipeline vs curl -o, $bytes bytes (hyperfine --warmup 3 --runs 20)"
hyperfine --shell bash --style none --warmup 3 --runs 20 --export-json "$OUT/fetch.json" \
    -n "appdna bundle fetch" "$(q "$APPDNA" bundle fetch --force -q -o "$FETCHED")" \
    -n "careful curl+jq pipeline" "$careful" \
    -n "curl -o" "$(q curl -s -H "x-api-key: $APPDNA_SDK_KEY" -o "$CURLED" "$URL/api/v1/sdk/config-bundle")" >/dev/null

# --- 1b. where appdna's time goes (strace -T; strace slows every system call a little) ----
note "phases: 5 runs of appdna bundle fetch under strace -f -tt -T"
logs=()
for i in 1 2 3 4 5; do
    strace -f -tt -T -o "$OUT/fetch-strace-$i.txt" \
        -e trace=execve,connect,recvfrom,openat,fsync,fdatasync,rename,renameat,renameat2,exit_group \
        "$APPDNA" bundle fetch --force -q -o "$FETCHED"
    logs+=("$OUT/fetch-strace-$i.txt")
done
python3 "$BENCH_DIR/fetch_phases.py" "${logs[@]}" > "$OUT/fetch-phases.txt"

# --- 2. start-up --------------------------------------------------------------------------
note "start-up: appdna bucket u e s vs Swift hello-world (hyperfine -N --warmup 20 --runs 300)"
hyperfine -N --style none --warmup 20 --runs 300 --export-json "$OUT/fetch-startup.json" \
    -n "appdna bucket u e s" "$(q "$APPDNA" bucket u e s)" \
    -n "swift hello-world" "$(q "$HELLO")" >/dev/null
linked=$(ldd "$APPDNA" | grep -c curl || true)
bucket_maps=$(LD_DEBUG=files "$APPDNA" bucket u e s 2>&1 >/dev/null | grep -c 'libcurl' || true)

# --- report -------------------------------------------------------------------------------
t_app=$(median "$OUT/fetch.json" 0) t_careful=$(median "$OUT/fetch.json" 1) t_curl=$(median "$OUT/fetch.json" 2)
vs_careful=$(div "$t_careful" "$t_app")
ratio=$(div "$t_app" "$t_curl")  # informational: bare curl -o is not the anchor
overhead_ms=$(awk -v a="$t_app" -v c="$t_curl" 'BEGIN { printf "%.1f", (a - c) * 1000 }')
phase() { awk -v k="$1" '$1 == k { print $2 }' "$OUT/fetch-phases.txt"; }
startup_ratio=$(div "$(median "$OUT/fetch-startup.json" 0)" "$(median "$OUT/fetch-startup.json" 1)")

echo
echo "appdna bundle fetch benchmark"
machine_line
echo "bundle: $BUNDLE ($bytes bytes, API shape), served by python3 -m http.server on 127.0.0.1"
echo "summary: $(cat "$OUT/fetch-summary.txt")"
echo "check: the written file is the SDK shape; two fetches give identical bytes"
echo
echo "fetch: hyperfine --shell bash --warmup 3 --runs 20 (the three side by side)"
printf '  %-24s %12s %22s %5s\n' command median "mean +- sd" runs
timing_row "appdna bundle fetch" "$OUT/fetch.json" 0 ms; echo
timing_row "careful curl+jq pipeline" "$OUT/fetch.json" 1 ms; echo
timing_row "curl -o" "$OUT/fetch.json" 2 ms; echo
echo "  careful pipeline: $careful"
echo
echo "appdna above curl -o: ${overhead_ms} ms (medians; ${ratio}x its time); appdna's run by phase (median of 5 runs under strace -T, ms):"
printf '    %-16s %8s\n' start-up "$(phase start-up)" transfer "$(phase transfer)" parse+validate "$(phase parse+validate)" \
    write "$(phase write)" fsync "$(phase fsync)" rename "$(phase rename)" exit "$(phase exit)" total "$(phase total)"
echo
echo "start-up: hyperfine -N --warmup 20 --runs 300"
printf '  %-24s %12s %22s %5s\n' command median "mean +- sd" runs
timing_row "appdna bucket u e s" "$OUT/fetch-startup.json" 0 ms; echo
timing_row "swift hello-world" "$OUT/fetch-startup.json" 1 ms; echo
echo "  libcurl linked into appdna (ldd): $linked; loaded by 'appdna bucket' (LD_DEBUG=files): $bucket_maps"
echo
echo "targets (ratios of medians; the machine is shared, so single runs are noisy)"
printf '  %-46s %-12s %-10s %s\n' target measured need result
target_row "fetch: careful pipeline / appdna (faster)" "${vs_careful}x" "> 1x" "$(lt 1 "$vs_careful")"
target_row "start-up: appdna bucket / hello-world" "${startup_ratio}x" "< 2x" "$(lt "$startup_ratio" 2)"
