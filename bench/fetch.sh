#!/usr/bin/env bash
# Benchmarks `appdna bundle fetch`: a 5 MB bundle from a loopback HTTP server against
# `curl -o` of the same URL (appdna also parses, checks, rewrites in the SDK shape and
# replaces the file atomically with fsync), and start-up of `appdna bucket` against a Swift
# hello-world now that the HTTP layer is in the binary (libcurl is loaded only by commands
# that use the network).
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

# --- 1. fetch vs curl -o ------------------------------------------------------------------
q() { printf '%q ' "$@"; }
note "fetch: appdna bundle fetch --force vs curl -o, $bytes bytes (hyperfine -N --warmup 3 --runs 30)"
hyperfine -N --style none --warmup 3 --runs 30 --export-json "$OUT/fetch.json" \
    -n "appdna bundle fetch" "$(q "$APPDNA" bundle fetch --force -q -o "$FETCHED")" \
    -n "curl -o" "$(q curl -s -H "x-api-key: $APPDNA_SDK_KEY" -o "$CURLED" "$URL/api/v1/sdk/config-bundle")" >/dev/null

# --- 2. start-up --------------------------------------------------------------------------
note "start-up: appdna bucket u e s vs Swift hello-world (hyperfine -N --warmup 20 --runs 300)"
hyperfine -N --style none --warmup 20 --runs 300 --export-json "$OUT/fetch-startup.json" \
    -n "appdna bucket u e s" "$(q "$APPDNA" bucket u e s)" \
    -n "swift hello-world" "$(q "$HELLO")" >/dev/null
linked=$(ldd "$APPDNA" | grep -c curl || true)
bucket_maps=$(LD_DEBUG=files "$APPDNA" bucket u e s 2>&1 >/dev/null | grep -c 'libcurl' || true)

# --- report -------------------------------------------------------------------------------
ratio=$(div "$(median "$OUT/fetch.json" 0)" "$(median "$OUT/fetch.json" 1)")
startup_ratio=$(div "$(median "$OUT/fetch-startup.json" 0)" "$(median "$OUT/fetch-startup.json" 1)")

echo
echo "appdna bundle fetch benchmark"
machine_line
echo "bundle: $BUNDLE ($bytes bytes, API shape), served by python3 -m http.server on 127.0.0.1"
echo "summary: $(cat "$OUT/fetch-summary.txt")"
echo "check: the written file is the SDK shape; two fetches give identical bytes"
echo
echo "fetch: hyperfine -N --warmup 3 --runs 30"
printf '  %-24s %12s %22s %5s\n' command median "mean +- sd" runs
timing_row "appdna bundle fetch" "$OUT/fetch.json" 0 ms; echo
timing_row "curl -o" "$OUT/fetch.json" 1 ms; echo
echo
echo "start-up: hyperfine -N --warmup 20 --runs 300"
printf '  %-24s %12s %22s %5s\n' command median "mean +- sd" runs
timing_row "appdna bucket u e s" "$OUT/fetch-startup.json" 0 ms; echo
timing_row "swift hello-world" "$OUT/fetch-startup.json" 1 ms; echo
echo "  libcurl linked into appdna (ldd): $linked; loaded by 'appdna bucket' (LD_DEBUG=files): $bucket_maps"
echo
echo "targets (ratios of medians; the machine is shared, so single runs are noisy)"
printf '  %-46s %-12s %-10s %s\n' target measured need result
target_row "fetch: appdna / curl -o wall time" "${ratio}x" "<= 1.5x" "$(ge 1.5 "$ratio")"
target_row "start-up: appdna bucket / hello-world" "${startup_ratio}x" "< 2x" "$(lt "$startup_ratio" 2)"
