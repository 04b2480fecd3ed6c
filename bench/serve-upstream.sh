#!/usr/bin/env bash
# Issue 50.4: `api serve --bundle @remote` answers from the last good bundle while a fetch of
# the live bundle runs. Against an upstream that answers the first fetch at once and then
# (a) takes 20 s per answer, (b) trickles its answer a byte every 0.25 s, the server is
# started with --refetch 1s and, every 2 s, POST /api/bundle/refetch of the inspector; for
# 25 s, four clients measure every answer's latency: version polls, bundle fetches, ingest
# (a deflated batch) and the console's GET /api/bundle. Printed: count, p50, p99 and max per
# endpoint, and how many were not answered 200. Target: p99 under 100 ms for each.
# Run by hand: bash bench/serve-upstream.sh   (APPDNA_BIN=.build/debug/appdna for a debug build;
# APPDNA_BENCH_SECONDS=N for another length). ~1 min.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
command -v bench_check_load >/dev/null && bench_check_load

SECONDS_EACH=${APPDNA_BENCH_SECONDS:-25}
need python3 "install python3"
ensure_appdna

upstream="" server=""
cleanup() {
    [[ -n "$server" ]] && kill "$server" 2>/dev/null
    [[ -n "$upstream" ]] && kill "$upstream" 2>/dev/null
    true
}
trap cleanup EXIT

# run MODE: an upstream in MODE (slow|trickle), api serve on it, the clients; one result block.
run() {
    local mode=$1 upstream_port port inspect
    rm -f "$OUT/serve-upstream.port" "$OUT/serve-upstream-state.json"*
    python3 "$BENCH_DIR/slow_upstream.py" "$mode" "$OUT/serve-upstream.port" &
    upstream=$!
    for _ in $(seq 100); do [[ -s "$OUT/serve-upstream.port" ]] && break; sleep 0.05; done
    upstream_port=$(cat "$OUT/serve-upstream.port")
    APPDNA_SDK_KEY=adn_test_bench0000000000000000001 APPDNA_API_URL="http://127.0.0.1:$upstream_port" \
        "$APPDNA" api serve --bundle @remote --refetch 1s --port 0 --inspect 0 --state "$OUT/serve-upstream-state.json" \
        > /dev/null 2> "$OUT/serve-upstream.err" &
    server=$!
    for _ in $(seq 200); do
        port=$(sed -n 's|.*) at http://127.0.0.1:\([0-9]*\);.*|\1|p' "$OUT/serve-upstream.err")
        inspect=$(sed -n 's|.*inspector at http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$OUT/serve-upstream.err")
        [[ -n "$port" && -n "$inspect" ]] && break
        sleep 0.05
    done
    [[ -n "$port" && -n "$inspect" ]] || die "api serve did not start: $(cat "$OUT/serve-upstream.err")"
    python3 "$BENCH_DIR/serve_clients.py" "$mode" "$port" "$inspect" "$SECONDS_EACH"
    kill "$server"; wait "$server" 2>/dev/null || true; server=""
    kill "$upstream"; wait "$upstream" 2>/dev/null || true; upstream=""
}

note "api serve --bundle @remote --refetch 1s: latency while the live API is slow (${SECONDS_EACH}s each)"
run slow
run trickle
