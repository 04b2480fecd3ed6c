#!/usr/bin/env bash
# The servers under attack: what hostile senders and answers cost `webhook listen`,
# `api serve` and `bundle fetch`.
#  1. 1,000 connections each send half a request line and stop (slowloris), then 1,000 more
#     each send a complete head and half a body and stop; while each group is held, a new
#     client sends a valid signed delivery. Its answer time, the listener's peak RSS and its
#     descriptors at rest / while held / after they closed.
#  2. A raw DEFLATE bomb (300 MiB of zeros, ~300 KB sent) against `api serve` ingest: the
#     status and api serve's peak RSS.
#  3. A gzip bomb (the same 300 MiB) as the bundle answer of `bundle fetch`: the exit status
#     and its peak RSS.
#  4. A 500 MiB handler answer through `webhook listen --forward-to`: the listener's peak RSS.
#  5. 40 deliveries of a 950 KB body, signed right, then signed wrong: the listener's CPU time
#     for each batch, and their ratio.
#  6. SIGTERM to a listener holding 1,000 stalled connections (half in the head, half in the
#     body; timeouts a minute away): the time until it has exited.
# Targets: the delivery answered within 1 s with either group held; listener RSS < 64 MB while
# held; descriptors after = at rest; every bomb answered/failed within its cap (RSS < 200 MB);
# the 500 MiB answer relayed cut, listener RSS < 100 MB; wrong/right CPU ratio < 2; exited
# within 2 s of SIGTERM.
# Run by hand: bash bench/listen-slowloris.sh   (APPDNA_BIN=.build/debug/appdna to measure a
# debug build; APPDNA_BENCH_HELD=N to hold another number of connections). Linux (/proc).
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
command -v bench_check_load >/dev/null && bench_check_load

HELD=${APPDNA_BENCH_HELD:-1000}
need python3 "install python3"
need curl "install curl"
[[ -x /usr/bin/time ]] || die "needs GNU time (/usr/bin/time) for peak RSS"
[[ -d /proc/self/fd ]] || die "needs /proc (Linux) to read RSS, CPU time and descriptors"
ensure_appdna
# The listener and the client each need a descriptor per held connection (two groups).
ulimit -n $((2 * HELD + 512)) 2>/dev/null || die "cannot raise ulimit -n to $((2 * HELD + 512)) (hard limit $(ulimit -Hn))"

SECRET="$OUT/slowloris-secret.txt"
( umask 077; printf 'whsec_bench_%s\n' "$RANDOM$RANDOM" > "$SECRET" )
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -f "$SECRET"; }
trap cleanup EXIT

# start_server LOG ARGS...: starts appdna ARGS with --port 0 in the background; sets PID and PORT.
start_server() {
    local log=$1
    shift
    "$APPDNA" "$@" --port 0 > "$log.out" 2> "$log.err" &
    PID=$!
    pids+=("$PID")
    PORT=""
    for _ in $(seq 200); do
        PORT=$(grep -o '127\.0\.0\.1:[0-9]*' "$log.err" 2>/dev/null | head -1 | cut -d: -f2 || true)
        [[ -n "$PORT" ]] && return
        sleep 0.05
    done
    die "$* did not start: $(cat "$log.err")"
}

peak_mb() { awk '/VmHWM:/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }

# ---- 1. slow senders ---------------------------------------------------------------------
start_server "$OUT/slowloris-listen" webhook listen --secret-file "$SECRET" --header-timeout 10 --idle-timeout 30
set +e
python3 - "$PORT" "$HELD" "$SECRET" "$PID" <<'PY'
import hashlib, hmac, os, resource, socket, sys, time
port, held, secret_path, pid = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 2 * held + 512), hard))
key = open(secret_path, "rb").read().rstrip(b"\n")

def descriptors():
    return len(os.listdir(f"/proc/{pid}/fd"))

def peak_rss_mb():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")

def deliver(name):
    body = ('{"id":"evt_%s","type":"subscription.renewed","created_at":"2026-02-19T10:00:00Z","data":{"user_id":"u1"}}' % name).encode()
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
    status = answer.split(b" ")[1].decode() if answer else "none"
    return status, (time.monotonic() - started) * 1000

at_rest = descriptors()
ok = True
groups = [("half a request line", b"POST /webhooks HT"),
          ("a head and half a body", b'POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"id":')]
for name, sent in groups:
    sockets = []
    for _ in range(held):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=2)
            s.sendall(sent)
        except OSError:
            break
        sockets.append(s)
    time.sleep(0.5)
    while_held = descriptors()
    status, latency_ms = deliver(name.replace(" ", "-"))
    for s in sockets:
        s.close()
    deadline = time.monotonic() + 5
    while descriptors() > at_rest and time.monotonic() < deadline:
        time.sleep(0.05)
    after = descriptors()
    print(f"held: {name:24} {len(sockets)} of {held}; valid delivery answered {status} in {latency_ms:.1f} ms "
          f"(target < 1000 ms); descriptors {at_rest} at rest, {while_held} held, {after} after")
    ok = ok and len(sockets) == held and status == "200" and latency_ms < 1000 and after == at_rest
rss = peak_rss_mb()
print(f"listener peak RSS          {rss:.1f} MB with {held} held (target < 64 MB)")
sys.exit(0 if ok and rss < 64 else 1)
PY
slow_ok=$?
set -e

# ---- 2 and 3. bombs ------------------------------------------------------------------------
python3 - "$OUT/bomb.deflate" "$OUT/bomb.gz" <<'PY'
import sys, zlib
for path, wbits in ((sys.argv[1], -15), (sys.argv[2], 31)):
    c = zlib.compressobj(9, zlib.DEFLATED, wbits)
    with open(path, "wb") as out:
        block = bytes(1 << 20)
        for _ in range(300):
            out.write(c.compress(block))
        out.write(c.flush())
PY
printf '{"bundle_version": 1}\n' > "$OUT/bomb-bundle.json"
start_server "$OUT/bomb-serve" api serve --bundle "$OUT/bomb-bundle.json"
serve_pid=$PID
deflate_status=$(curl -s -o "$OUT/bomb-serve.answer" -w '%{http_code}' --max-time 60 -X POST --data-binary "@$OUT/bomb.deflate" \
    -H 'x-api-key: adn_test_bench' -H 'Content-Encoding: deflate' "http://127.0.0.1:$PORT/api/v1/ingest/events" || true)
serve_rss=$(peak_mb "$serve_pid")
printf 'deflate bomb -> api serve  %s KB sent (300 MiB inflated): answered %s %s; api serve peak RSS %s MB (target < 200 MB)\n' \
    "$(( $(stat -c %s "$OUT/bomb.deflate") / 1024 ))" "$deflate_status" "$(head -c 80 "$OUT/bomb-serve.answer")" "$serve_rss"
kill "$serve_pid"

rm -f "$OUT/bomb-api.port" "$OUT/big-answer.port"
python3 - "$OUT/bomb.gz" > "$OUT/bomb-api.port" <<'PY' &
import http.server, sys, threading
bomb = open(sys.argv[1], "rb").read()
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path.endswith("/version"):
            body, extra = b'{"bundle_version": 1}', []
        else:
            body, extra = bomb, [("Content-Encoding", "gzip")]
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        for name, value in extra:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try: self.wfile.write(body)
        except OSError: pass
    def log_message(self, *args): pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
print(server.server_address[1], flush=True)
server.serve_forever()
PY
pids+=($!)
for _ in $(seq 100); do [[ -s "$OUT/bomb-api.port" ]] && break; sleep 0.05; done
api_port=$(cat "$OUT/bomb-api.port")
rm -f "$OUT/bomb-fetched.json"
set +e
APPDNA_SDK_KEY=adn_test_bench000000000000001 APPDNA_API_URL="http://127.0.0.1:$api_port" \
    /usr/bin/time -f %M -o "$OUT/bomb-fetch.rss" "$APPDNA" bundle fetch -o "$OUT/bomb-fetched.json" --retries 0 2> "$OUT/bomb-fetch.err"
fetch_status=$?
set -e
fetch_rss=$(tail -1 "$OUT/bomb-fetch.rss" | awk '{ printf "%.1f", $1 / 1024 }')
printf 'gzip bomb -> bundle fetch  %s KB sent (300 MiB decoded): exit %s (%s); peak RSS %s MB (target < 200 MB)\n' \
    "$(( $(stat -c %s "$OUT/bomb.gz") / 1024 ))" "$fetch_status" "$(grep -o 'larger than [0-9]* MiB' "$OUT/bomb-fetch.err" | head -1)" "$fetch_rss"

# ---- 4. a 500 MiB answer through listen ------------------------------------------------------
python3 - > "$OUT/big-answer.port" <<'PY' &
import http.server
CHUNK = b"x" * (1 << 20)
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(500 << 20))
        self.end_headers()
        try:
            for _ in range(500):
                self.wfile.write(CHUNK)
        except OSError:
            pass
    def log_message(self, *args): pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
print(server.server_address[1], flush=True)
server.serve_forever()
PY
pids+=($!)
for _ in $(seq 100); do [[ -s "$OUT/big-answer.port" ]] && break; sleep 0.05; done
start_server "$OUT/big-answer-listen" webhook listen --secret-file "$SECRET" --forward-to "http://127.0.0.1:$(cat "$OUT/big-answer.port")/hook" --forward-timeout 60
listen_pid=$PID
body='{"id":"evt_big_answer","type":"subscription.renewed","created_at":"2026-02-19T10:00:00Z","data":{}}'
signature="sha256=$(printf '%s' "$body" | python3 -c 'import hmac,hashlib,sys; print(hmac.new(open(sys.argv[1],"rb").read().rstrip(b"\n"), sys.stdin.buffer.read(), hashlib.sha256).hexdigest())' "$SECRET")"
relayed=$(printf '%s' "$body" | curl -s -o /dev/null -w '%{http_code} %{size_download}' --max-time 120 --data-binary @- \
    -H "X-AppDNA-Signature: $signature" -H 'Content-Type: application/json' "http://127.0.0.1:$PORT/webhooks" || true)
answer_rss=$(peak_mb "$listen_pid")
printf '500 MiB answer -> listen    relayed: status and bytes %s; listener peak RSS %s MB (target < 100 MB)\n' "$relayed" "$answer_rss"

kill "$listen_pid"

# ---- 5. a wrong signature costs what a right one does -----------------------------------------
start_server "$OUT/cpu-listen" webhook listen --secret-file "$SECRET"
python3 - "$PORT" "$SECRET" "$PID" <<'PY'
import hashlib, hmac, os, socket, sys
port, secret_path, pid = int(sys.argv[1]), sys.argv[2], sys.argv[3]
key = open(secret_path, "rb").read().rstrip(b"\n")
ticks = os.sysconf("SC_CLK_TCK")
def cpu():
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / ticks
body = ('{"id":"evt_cpu","type":"subscription.renewed","pad":"' + "p" * 950_000 + '"}').encode()
def run(signature, count=40):
    before = cpu()
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall((f"POST /webhooks HTTP/1.1\r\nHost: x\r\nX-AppDNA-Signature: {signature}\r\n"
                   f"Content-Length: {len(body) + 1}\r\nConnection: close\r\n\r\n").encode() + body + b"\n")
        while s.recv(65536): pass
        s.close()
    return cpu() - before
# The wrong one is the right one's signature on a body with a newline added: a mistake the
# explainer would recognise (and, before, try 18 ways).
right_signature = "sha256=" + hmac.new(key, body + b"\n", hashlib.sha256).hexdigest()
wrong_signature = "sha256=" + hmac.new(key, body, hashlib.sha256).hexdigest()
right, wrong = run(right_signature), run(wrong_signature)
print(f"950 KB body x 40            listener CPU: right signature {right:.2f} s, wrong {wrong:.2f} s, ratio {wrong / max(right, 0.01):.2f} (target < 2)")
PY

kill "$PID"

# ---- 6. SIGTERM with stalled connections ------------------------------------------------------
start_server "$OUT/sigterm-listen" webhook listen --secret-file "$SECRET" --header-timeout 60 --idle-timeout 60
set +e
python3 - "$PORT" "$HELD" "$PID" <<'PY'
import os, resource, signal, socket, sys, time
port, held, pid = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, held + 512), hard))
def descriptors():
    return len(os.listdir(f"/proc/{pid}/fd"))
def exited():
    # The listener is the shell's child: once it has exited it is a zombie until reaped.
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True
at_rest = descriptors()
sockets = []
for i in range(held):
    s = socket.create_connection(("127.0.0.1", port), timeout=2)
    s.sendall(b'POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"id":' if i % 2 else b"POST /webhooks HTTP/1.1\r\nHost: x\r\nX-Sl")
    sockets.append(s)
deadline = time.monotonic() + 10
while descriptors() < at_rest + held and time.monotonic() < deadline:
    time.sleep(0.05)
holding = descriptors() - at_rest
started = time.monotonic()
os.kill(pid, signal.SIGTERM)
while not exited() and time.monotonic() < started + 60:
    time.sleep(0.005)
elapsed = time.monotonic() - started
print(f"SIGTERM, {holding} stalled    listener exited {elapsed * 1000:.0f} ms after SIGTERM (target < 2000 ms; timeouts 60 s)")
sys.exit(0 if exited() and holding == held and elapsed < 2 else 1)
PY
sigterm_ok=$?
set -e

echo "result                    " "$( [[ $slow_ok == 0 ]] && echo "slow senders PASS" || echo "slow senders MISS" )" \
    "$( [[ $sigterm_ok == 0 ]] && echo "SIGTERM PASS" || echo "SIGTERM MISS" )"
