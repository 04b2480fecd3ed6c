#!/usr/bin/env bash
# Benchmarks `appdna queue replay`: a 100,000-event iOS NDJSON queue replayed with
# --concurrency 4 (batches of 20, the default) to a loopback ingest server that inflates each
# raw DEFLATE body, counts the events and acks at once (bench/ingest_server.py); target
# >= 20,000 events/s. Also start-up of `appdna bucket` against a Swift hello-world now that
# zlib is used (it is loaded with dlopen by replay only, never linked).
# Run by hand from anywhere: bash bench/replay.sh   (about a minute)
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_check_load

q() { printf "%q " "$@"; }

COUNT=${APPDNA_BENCH_EVENTS:-100000}
QUEUE="$OUT/replay-queue-$COUNT.ndjson"
STATE="$OUT/replay-state"
COUNTS="$OUT/replay-server-count.txt"
PORT=${APPDNA_BENCH_PORT:-18766}
URL="http://127.0.0.1:$PORT"

need python3 "install python3"
need jq "install jq (apt-get install -y jq)"
need swiftc "install a Swift toolchain"
ensure_hyperfine
ensure_appdna

ensure_hello
if [[ ! -s "$QUEUE" || "$BENCH_DIR/make_queue.py" -nt "$QUEUE" ]]; then
    note "generating a $COUNT-event NDJSON queue into $QUEUE"
    python3 "$BENCH_DIR/make_queue.py" "$QUEUE" "$COUNT"
fi

note "ingest server on $URL (bench/ingest_server.py: inflates, counts, acks at once)"
rm -f "$COUNTS"
python3 "$BENCH_DIR/ingest_server.py" "$PORT" "$COUNTS" >/dev/null 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 50); do
    python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $PORT), 0.2)" 2>/dev/null && break
    sleep 0.1
done

export APPDNA_SDK_KEY=adn_live_bench0000000000000000
export APPDNA_API_URL="$URL"
before=$(sha256sum "$QUEUE" | cut -d' ' -f1)

# --- 1. replay: three runs, each from an empty state directory ----------------------------
runs=3
best=0
for run in $(seq "$runs"); do
    rm -rf "$STATE"
    note "replay run $run/$runs: $COUNT events, --concurrency 4, --include-stale"
    "$APPDNA" queue replay "$QUEUE" --yes --include-stale --concurrency 4 --state-dir "$STATE" --json \
        > "$OUT/replay-$run.json" 2> "$OUT/replay-$run.err" || { cat "$OUT/replay-$run.err" >&2; die "replay failed"; }
    eps=$(jq -r '.result.events_per_second' "$OUT/replay-$run.json")
    delivered=$(jq -r '.result.delivered' "$OUT/replay-$run.json")
    seconds=$(jq -r '.result.seconds' "$OUT/replay-$run.json")
    [[ "$delivered" == "$COUNT" ]] || die "run $run delivered $delivered of $COUNT"
    printf '  run %d: %s events in %s s: %s events/s\n' "$run" "$delivered" "$seconds" "$eps" >> "$OUT/replay-runs.txt.new"
    if (( eps > best )); then best=$eps; fi
done
mv "$OUT/replay-runs.txt.new" "$OUT/replay-runs.txt"
read -r server_events server_bad < "$COUNTS"
wall_note="the next line times the whole command"
rm -rf "$STATE"
start=$(date +%s.%N)
"$APPDNA" queue replay "$QUEUE" --yes --include-stale --concurrency 4 --state-dir "$STATE" -q > /dev/null
end=$(date +%s.%N)
wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
wall_eps=$(awk -v n="$COUNT" -v s="$wall" 'BEGIN { printf "%d", n / s }')
after=$(sha256sum "$QUEUE" | cut -d' ' -f1)

# --- 2. start-up --------------------------------------------------------------------------
note "start-up: appdna bucket u e s vs Swift hello-world (hyperfine -N --warmup 20 --runs 300)"
hyperfine -N --style none --warmup 20 --runs 300 --export-json "$OUT/replay-startup.json" \
    -n "appdna bucket u e s" "$(q "$APPDNA" bucket u e s)" \
    -n "swift hello-world" "$(q "$HELLO")" >/dev/null
linked=$(ldd "$APPDNA" | grep -c 'libz\.' || true)
bucket_maps=$(LD_DEBUG=files "$APPDNA" bucket u e s 2>&1 >/dev/null | grep -c 'libz\.' || true)
startup_ratio=$(div "$(median "$OUT/replay-startup.json" 0)" "$(median "$OUT/replay-startup.json" 1)")

# --- report -------------------------------------------------------------------------------
echo
echo "appdna queue replay benchmark"
machine_line
echo "queue: $QUEUE ($COUNT events, $(wc -c < "$QUEUE") bytes); server: bench/ingest_server.py on 127.0.0.1 (asyncio, inflates and counts every batch)"
echo "server counted $server_events events over the $runs runs ($server_bad bad requests); input unchanged: $([[ "$before" == "$after" ]] && echo yes || echo NO)"
echo
echo "replay --concurrency 4 --batch-size 20 (events/s from --json: sending phase; $wall_note)"
cat "$OUT/replay-runs.txt"
echo "  whole command (read + plan + send + journal fsyncs): $wall s = $wall_eps events/s"
echo
echo "start-up: hyperfine -N --warmup 20 --runs 300"
printf '  %-24s %12s %22s %5s\n' command median "mean +- sd" runs
timing_row "appdna bucket u e s" "$OUT/replay-startup.json" 0 ms; echo
timing_row "swift hello-world" "$OUT/replay-startup.json" 1 ms; echo
echo "  zlib linked into appdna (ldd): $linked; loaded by 'appdna bucket' (LD_DEBUG=files): $bucket_maps"
echo
echo "targets (the machine is shared, so single runs are noisy)"
printf '  %-46s %-12s %-10s %s\n' target measured need result
target_row "replay events/s, best sending phase" "$best" ">= 20000" "$(ge "$best" 20000)"
target_row "replay events/s, whole command" "$wall_eps" ">= 20000" "$(ge "$wall_eps" 20000)"
target_row "start-up: appdna bucket / hello-world" "${startup_ratio}x" "< 2x" "$(lt "$startup_ratio" 2)"
target_row "every event reached the server" "$server_events" "$((runs * COUNT))" "$([[ "$server_events" == "$((runs * COUNT))" ]] && echo 1 || echo 0)"
