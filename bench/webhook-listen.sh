#!/usr/bin/env bash
# Benchmarks `appdna webhook listen` forwarding to a loopback handler: 4 concurrent senders on
# keep-alive connections POST signed deliveries (bench/webhook_load.c, C so the client is not
# what is measured) first straight to the handler (webhook_load serve, answers 200 at once),
# then through `listen --forward-to` the same handler, in the same run. Reports deliveries/s
# through listen and the p99 latency listen adds (p99 via listen - p99 direct).
# Targets: >= 2,000 deliveries/s, p99 added <= 5 ms.
# Run by hand: bash bench/webhook-listen.sh   (APPDNA_BENCH_DELIVERIES=N to change the count)
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
command -v bench_check_load >/dev/null && bench_check_load

COUNT=${APPDNA_BENCH_DELIVERIES:-20000}
SENDERS=4
TARGET_PORT=${APPDNA_BENCH_TARGET_PORT:-18791}
LISTEN_PORT=${APPDNA_BENCH_LISTEN_PORT:-18792}
LOAD="$OUT/webhook_load"

need gcc "install gcc"
ensure_appdna
if [[ ! -x "$LOAD" || "$BENCH_DIR/webhook_load.c" -nt "$LOAD" ]]; then
    note "building $LOAD (gcc -O2)"
    gcc -O2 -pthread -o "$LOAD" "$BENCH_DIR/webhook_load.c"
fi

# The secret lives in a file only (never argv); the body is the demo subscription.renewed delivery.
SECRET="$OUT/webhook-listen-secret.txt"
BODY="$OUT/webhook-listen-body.json"
( umask 077; printf 'whsec_bench_%s\n' "$RANDOM$RANDOM" > "$SECRET" )
"$APPDNA" webhook trigger subscription.renewed --print --secret-file "$SECRET" | sed -n '5p' | tr -d '\n' > "$BODY"
SIGNATURE=$("$APPDNA" webhook sign "$BODY" --secret-file "$SECRET")

pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -f "$SECRET"; }
trap cleanup EXIT
wait_port() {
    for _ in $(seq 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.05
    done
    die "nothing listens on port $1"
}

"$LOAD" serve "$TARGET_PORT" & pids+=($!)
wait_port "$TARGET_PORT"
"$APPDNA" webhook listen --port "$LISTEN_PORT" --secret-file "$SECRET" \
    --forward-to "http://127.0.0.1:$TARGET_PORT/webhooks" > "$OUT/webhook-listen.log" 2> "$OUT/webhook-listen.err" &
listener=$!
pids+=("$listener")
wait_port "$LISTEN_PORT"

note "warm-up"
"$LOAD" send "$TARGET_PORT" 400 "$SENDERS" "$BODY" "$SIGNATURE" > /dev/null
"$LOAD" send "$LISTEN_PORT" 400 "$SENDERS" "$BODY" "$SIGNATURE" > /dev/null
note "$COUNT deliveries, $SENDERS senders: straight to the handler"
direct=$("$LOAD" send "$TARGET_PORT" "$COUNT" "$SENDERS" "$BODY" "$SIGNATURE")
note "$COUNT deliveries, $SENDERS senders: through webhook listen --forward-to"
via=$("$LOAD" send "$LISTEN_PORT" "$COUNT" "$SENDERS" "$BODY" "$SIGNATURE")

kill -TERM "$listener"
wait "$listener" || die "webhook listen exited with $?"
field() { sed -n "s/.*$2=\([^ ]*\).*/\1/p" <<< "$1"; }
[[ $(field "$via" non2xx) == 0 ]] || die "some deliveries through listen were not answered 2xx: $via"
summary=$(tail -n 1 "$OUT/webhook-listen.err")
valid=$(grep -c ' valid (secret 1 of 1' "$OUT/webhook-listen.log" || true)
expected=$(( COUNT / SENDERS * SENDERS + 400 ))
[[ "$valid" == "$expected" ]] || die "listen logged $valid valid deliveries, expected $expected ($summary)"

rate=$(field "$via" per_second)
added=$(awk -v a="$(field "$via" p99_ms)" -v b="$(field "$direct" p99_ms)" 'BEGIN { printf "%.3f", a - b }')
machine_line
printf '  %-34s %12s %10s %10s\n' "" "per second" "p50 ms" "p99 ms"
printf '  %-34s %12s %10s %10s\n' "direct to the handler" "$(field "$direct" per_second)" "$(field "$direct" p50_ms)" "$(field "$direct" p99_ms)"
printf '  %-34s %12s %10s %10s\n' "through webhook listen" "$rate" "$(field "$via" p50_ms)" "$(field "$via" p99_ms)"
printf '  listen: %s\n' "$summary"
printf '  %-46s %-12s %-10s %s\n' "target" "measured" "need" "verdict"
target_row "deliveries/s through listen ($SENDERS senders)" "$rate" ">= 2000" "$(ge "$rate" 2000)"
target_row "p99 latency added by listen" "$added ms" "<= 5 ms" "$(ge 5 "$added")"
