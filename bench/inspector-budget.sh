#!/usr/bin/env bash
# The inspectors' and the listener's memory bounded by bytes (issue 42.5), three figures:
# 1. 10,000 deliveries of 120 KB to `webhook listen --inspect 0 --inspect-keep 100000`: RSS
#    beside the same listener without --inspect (the anchor), at the default
#    --inspect-max-bytes (64 MiB) and at 16 MiB. Target: RSS above the anchor at most twice the
#    budget (what the log counts, plus the allocator's slack), whatever --inspect-keep says.
# 2. 16 clients polling the list of 500 fat deliveries as the page does, for 10 s: the peak RSS
#    beside RSS before polling. Target: +32 MB at most (list answers are paged and their
#    fields cut, so polls cost answers of ~100 entries, not 500 whole deliveries each).
# 3. 400 signed deliveries at once to a listener under `ulimit -v 420000` with
#    --max-connections 400, forwarding to a handler that waits 3 s and answers 1 MiB: every
#    sender answered (200, or 503 past the buffered-bytes budget) and the listener alive.
# Run by hand: bash bench/inspector-budget.sh (APPDNA_BIN=… for another build). Linux (/proc).
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
command -v bench_check_load >/dev/null && bench_check_load
need python3 "install python3"
ensure_appdna
DRIVER="$BENCH_DIR/inspector_budget.py"
SECRET="$OUT/budget-secret.txt"
( umask 077; printf 'whsec_bench_%s\n' "$RANDOM$RANDOM" > "$SECRET" )
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -f "$SECRET"; }
trap cleanup EXIT

# start_listener ERRFILE FLAGS...: starts webhook listen, sets $listener, $port, $inspector_port.
start_listener() {
    local err=$1
    shift
    : > "$err"   # emptied here: the loop below must not read the previous run's port
    "$APPDNA" webhook listen --port 0 --secret-file "$SECRET" "$@" > /dev/null 2> "$err" &
    listener=$!
    pids+=("$listener")
    port="" inspector_port=""
    for _ in $(seq 400); do
        port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\).*|\1|p' "$err")
        inspector_port=$(sed -n 's|.*inspector at http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$err")
        [[ -n "$port" ]] && break
        sleep 0.05
    done
    [[ -n "$port" ]] || die "the listener did not start: $(cat "$err")"
}
stop_listener() { kill "$listener" 2>/dev/null || true; wait "$listener" 2>/dev/null || true; }
rss() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }

note "1. 10,000 deliveries of 120 KB, --inspect-keep 100000, at --inspect-max-bytes 64MiB (the default) and 16MiB"
start_listener "$OUT/budget-anchor.err"
python3 "$ROOT/Tests/Tools/send_deliveries.py" "$port" "$SECRET" 10000 --body-bytes 122880 > /dev/null
anchor=$(rss "$listener"); stop_listener
printf '   RSS without --inspect: %d MB\n' $((anchor / 1024))
ok=1
for budget in 64 16; do
    start_listener "$OUT/budget-keep.err" --inspect 0 --inspect-keep 100000 --inspect-max-bytes "${budget}MiB"
    python3 "$ROOT/Tests/Tools/send_deliveries.py" "$port" "$SECRET" 10000 --body-bytes 122880 > /dev/null
    kept=$(rss "$listener"); stop_listener
    limit=$(( anchor + 2 * budget * 1024 ))
    printf '   --inspect-max-bytes %dMiB: RSS %d MB, %d MB above the anchor (target <= %d MB: %s)\n' "$budget" $((kept / 1024)) \
        $(((kept - anchor) / 1024)) $((2 * budget)) "$([[ $kept -le $limit ]] && echo PASS || echo MISS)"
    [[ $kept -le $limit ]] || ok=0
done

note "2. 16 clients polling the list of 500 deliveries of 120 KB for 10 s"
start_listener "$OUT/budget-poll.err" --inspect 0
python3 "$ROOT/Tests/Tools/send_deliveries.py" "$port" "$SECRET" 500 --body-bytes 122880 > /dev/null
before=$(rss "$listener")
read -r _ polls _ peak < <(python3 "$DRIVER" poll "$listener" "$inspector_port" 10 16)
stop_listener
printf '   %d polls; RSS %d MB before, peak %d MB while polled (+%d MB; target <= +32 MB: %s)\n' "$polls" \
    $((before / 1024)) $((peak / 1024)) $(((peak - before) / 1024)) "$([[ $((peak - before)) -le 32768 ]] && echo PASS || echo MISS)"
[[ $((peak - before)) -le 32768 ]] || ok=0

note "3. 400 slow forwards at once under ulimit -v 420000 (--max-connections 400; handler: 3 s, then 1 MiB)"
handler_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 "$DRIVER" slow-handler "$handler_port" 3 1048576 &
pids+=($!)
sleep 0.5
err="$OUT/budget-ulimit.err"
: > "$err"
( ulimit -v 420000; exec "$APPDNA" webhook listen --port 0 --secret-file "$SECRET" --max-connections 400 \
      --forward-to "http://127.0.0.1:$handler_port/hook" --forward-timeout 60 ) > /dev/null 2> "$err" &
listener=$!
pids+=("$listener")
port=""
for _ in $(seq 400); do
    port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\).*|\1|p' "$err"); [[ -n "$port" ]] && break; sleep 0.05
done
[[ -n "$port" ]] || die "the listener did not start under ulimit -v: $(cat "$err")"
result=$(python3 "$DRIVER" flood "$listener" "$port" "$SECRET" 400)
after=$(python3 "$DRIVER" flood "$listener" "$port" "$SECRET" 1)
printf '   %s; one more delivery afterwards: %s\n' "$result" "$after"
grep -q 'answered 400 .* alive 1' <<< "$result" && grep -q 'alive 1' <<< "$after" || { ok=0; printf '   MISS: %s\n' "$(grep -m3 -i 'fatal\|crash\|error' "$err" || true)"; }
stop_listener
[[ $ok == 1 ]] && note "all three within their targets" || die "a target was missed"
