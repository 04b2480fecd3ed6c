#!/usr/bin/env bash
# Slow clients against `appdna webhook listen`: 1,000 connections each send half a request line
# and stop (slowloris); while they are held open, a new client sends a valid signed delivery.
# Prints the delivery's latency, the listener's peak RSS, and its open descriptors at rest,
# with the 1,000 held, and after they closed.
# Targets: the delivery answered within 1 s (the header timeout is 10 s: it must not wait for
# it), peak RSS under 64 MB, descriptors after = descriptors at rest (no leak).
# Run by hand: bash bench/listen-slowloris.sh   (APPDNA_BIN=.build/debug/appdna to measure a
# debug build; APPDNA_BENCH_HELD=N to hold another number of connections). Linux (/proc).
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
command -v bench_check_load >/dev/null && bench_check_load

HELD=${APPDNA_BENCH_HELD:-1000}
PORT=${APPDNA_BENCH_LISTEN_PORT:-18793}
need python3 "install python3"
[[ -d /proc/self/fd ]] || die "needs /proc (Linux) to read the listener's RSS and descriptors"
ensure_appdna
# The listener and the client each need a descriptor per held connection.
ulimit -n $((HELD + 512)) 2>/dev/null || die "cannot raise ulimit -n to $((HELD + 512)) (hard limit $(ulimit -Hn))"

SECRET="$OUT/slowloris-secret.txt"
( umask 077; printf 'whsec_bench_%s\n' "$RANDOM$RANDOM" > "$SECRET" )
listener=""
cleanup() { [[ -n "$listener" ]] && kill "$listener" 2>/dev/null; rm -f "$SECRET"; }
trap cleanup EXIT

"$APPDNA" webhook listen --port "$PORT" --secret-file "$SECRET" --header-timeout 10 --idle-timeout 30 \
    > "$OUT/slowloris-listen.log" 2> "$OUT/slowloris-listen.err" &
listener=$!
for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.05; done
sleep 0.2   # the probe connection above is closed and forgotten

python3 - "$PORT" "$HELD" "$SECRET" "$listener" <<'PY'
import hashlib, hmac, os, resource, socket, sys, time
port, held, secret_path, pid = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, held + 512), hard))

def descriptors():
    return len(os.listdir(f"/proc/{pid}/fd"))

def peak_rss_mb():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")

at_rest = descriptors()
sockets = []
for _ in range(held):
    try:
        # A listener that stops accepting leaves connections in the kernel's queue, then unanswered.
        s = socket.create_connection(("127.0.0.1", port), timeout=2)
        s.sendall(b"POST /webhooks HT")
    except OSError:
        break
    sockets.append(s)
time.sleep(0.5)
while_held = descriptors()

key = open(secret_path, "rb").read().rstrip(b"\n")
body = b'{"id":"evt_slowloris","type":"subscription.renewed","created_at":"2026-02-19T10:00:00Z","data":{"user_id":"u1"}}'
signature = "sha256=" + hmac.new(key, body, hashlib.sha256).hexdigest()
request = (f"POST /webhooks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
           f"X-AppDNA-Signature: {signature}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode() + body
started = time.monotonic()
answer = b""
try:
    client = socket.create_connection(("127.0.0.1", port), timeout=30)
    client.sendall(request)
    while True:
        chunk = client.recv(4096)
        if not chunk:
            break
        answer += chunk
    client.close()
except OSError:
    pass   # not answered within 30 s
latency_ms = (time.monotonic() - started) * 1000
status = answer.split(b" ")[1].decode() if answer else "none"

for s in sockets:
    s.close()
deadline = time.monotonic() + 5
while descriptors() > at_rest and time.monotonic() < deadline:
    time.sleep(0.05)
after = descriptors()
rss = peak_rss_mb()
print(f"held connections          {len(sockets)} of {held} (half a request line each)")
print(f"valid delivery            answered {status} in {latency_ms:.1f} ms (target < 1000 ms; header timeout 10 s)")
print(f"listener peak RSS         {rss:.1f} MB (target < 64 MB)")
print(f"listener descriptors      {at_rest} at rest, {while_held} while held, {after} after they closed")
ok = len(sockets) == held and status == "200" and latency_ms < 1000 and rss < 64 and after == at_rest
print("result                    " + ("PASS" if ok else "FAIL"))
sys.exit(0 if ok else 1)
PY
