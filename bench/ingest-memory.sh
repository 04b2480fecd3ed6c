#!/usr/bin/env bash
# Every byte an ingest batch makes `api serve` hold is budgeted (issue 49). COUNT (64) clients
# at once POST the same raw DEFLATE batch of ~158 KB that inflates to ~54 MB (one event with
# 1.5 M exposures: EXPOSURES), to `api serve --record FILE` with and without `ulimit -v
# 2000000`. Target, each time: every answer 200, 413 or 503 (503 with Retry-After), no client
# without an answer, the server alive (a request after the flood answered), and the peak RSS
# (VmHWM) stated. The server's budget is 512 MiB (a quarter of the address space under the
# limit): before the budget, one batch peaked at 271 MB, eight at 2.1 GB, and under the limit
# the server aborted ("failed to allocate 268468000 bytes").
# Run by hand: bash bench/ingest-memory.sh (APPDNA_BIN=.build/debug/appdna for the debug build;
# COUNT=… EXPOSURES=… to change the load). Linux (/proc).
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
command -v bench_check_load >/dev/null && bench_check_load
need python3 "install python3"
need curl "install curl"
ensure_appdna
COUNT=${COUNT:-64}
EXPOSURES=${EXPOSURES:-1500000}
DRIVER="$ROOT/Tests/Tools/ingest_memory.py"
BATCH="$OUT/ingest-memory-batch.bin"
BUNDLE="$OUT/ingest-memory-bundle.json"
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

note "the batch: one event with $EXPOSURES exposures, raw DEFLATE"
printf '   %s\n' "$(python3 "$DRIVER" make "$BATCH" "$EXPOSURES")"
printf '{"bundle_version": 1, "experiments": {"experiments": {"exp-a": {"status": "running", "salt": "s", "variants": [{"id": "control", "weight": 0.5, "is_control": true}, {"id": "b", "weight": 0.5}]}}}}\n' > "$BUNDLE"

ok=1
# run LABEL [ULIMIT_V_KIB]: one flood against a fresh server.
run() {
    local label=$1 limit=${2:-unlimited} err="$OUT/ingest-memory.err" record="$OUT/ingest-memory-events.ndjson"
    : > "$err"
    rm -f "$record"
    ( ulimit -v "$limit"; exec "$APPDNA" api serve --port 0 --bundle "$BUNDLE" --record "$record" ) > /dev/null 2> "$err" &
    local server=$!
    pids+=("$server")
    local port=""
    for _ in $(seq 400); do
        port=$(sed -n 's|.* at http://127\.0\.0\.1:\([0-9]*\);.*|\1|p' "$err" | head -n 1); [[ -n "$port" ]] && break; sleep 0.05
    done
    [[ -n "$port" ]] || die "api serve did not start ($label): $(cat "$err")"
    local started=$SECONDS result after
    result=$(python3 "$DRIVER" flood "$server" "$port" "$BATCH" "$COUNT")
    after=$(curl -s -o /dev/null -w '%{http_code}' --max-time 60 -H 'x-api-key: adn_test_bench' "http://127.0.0.1:$port/api/v1/sdk/config-bundle/version" || true)
    printf '   %s: %s; %d s; a request afterwards: %s\n' "$label" "$result" $((SECONDS - started)) "$after"
    local hwm
    hwm=$(sed -n 's/.*hwm_kib \([0-9-]*\).*/\1/p' <<< "$result")
    printf '   %s: peak RSS (VmHWM) %d MB\n' "$label" $((hwm / 1024))
    # Only 200, 413 and 503 (with Retry-After) answers, none lost, alive, and alive after.
    if ! grep -Eq 'statuses \{("(200|413|503\+Retry-After)": [0-9]+(, )?)+\} lost 0 alive 1' <<< "$result" || [[ $after != 200 ]]; then
        ok=0
        printf '   MISS (%s): %s\n' "$label" "$(grep -m3 -i 'fatal\|failed to allocate\|error' "$err" || true)"
    fi
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
}

note "$COUNT batches at once, no memory limit"
run "no limit"
note "$COUNT batches at once, ulimit -v 2000000"
run "ulimit -v 2000000" 2000000
[[ $ok == 1 ]] && note "every answer 200, 413 or 503, the server alive" || die "a target was missed"
