"""The clients of bench/serve-upstream.sh: for argv[4] seconds, one thread each sends version
polls, bundle fetches, ingest batches and the console's GET /api/bundle to api serve (listener
argv[2], inspector argv[3]) one after another, timing each answer, while another asks the
inspector to refetch every 2 s. Prints count, p50, p99, max (ms) and non-200 answers per endpoint."""
import http.client, json, re, sys, threading, time, uuid, zlib

MODE, PORT, INSPECT, LENGTH = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
stop_at = time.monotonic() + LENGTH
results = {}

def event():
    return {"schema_version": 1, "event_id": str(uuid.uuid4()), "event_name": "app_open", "ts_ms": 1760000000000,
            "user": {"anon_id": "11111111-1111-4111-8111-111111111111", "user_id": "u1"},
            "device": {"platform": "ios", "sdk_version": "1.0.78", "os": "17.0.1", "bundle_version": 11, "country": "US", "app_version": "2.1.0"},
            "context": {"session_id": "s1", "client_seq": 1}, "properties": {}, "privacy": {"consent": {"analytics": True}}}

def deflated():
    compressor = zlib.compressobj(wbits=-15)
    return compressor.compress(json.dumps({"batch": [event()]}).encode()) + compressor.flush()

def client(name, port, method, path, body=None, headers=None):
    latencies, failures = [], 0
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    while time.monotonic() < stop_at:
        payload = body() if callable(body) else body
        started = time.monotonic()
        try:
            connection.request(method, path, body=payload, headers=headers or {})
            answer = connection.getresponse(); answer.read()
            if answer.status != 200: failures += 1
        except Exception:
            failures += 1
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        latencies.append((time.monotonic() - started) * 1000)
    results[name] = (latencies, failures)

def refetcher():
    page = http.client.HTTPConnection("127.0.0.1", INSPECT, timeout=10)
    page.request("GET", "/"); text = page.getresponse().read().decode()
    token = re.search(r'name="appdna-inspector-token" content="([^"]*)"', text).group(1)
    while time.monotonic() < stop_at:
        def one():
            try:
                c = http.client.HTTPConnection("127.0.0.1", INSPECT, timeout=90)
                c.request("POST", "/api/bundle/refetch", headers={"X-AppDNA-Inspector-Token": token}); c.getresponse().read()
            except Exception:
                pass
        threading.Thread(target=one, daemon=True).start()
        time.sleep(2)

key = {"x-api-key": "k"}
threads = [
    threading.Thread(target=client, args=("version poll", PORT, "GET", "/api/v1/sdk/config-bundle/version", None, key)),
    threading.Thread(target=client, args=("bundle fetch", PORT, "GET", "/api/v1/sdk/config-bundle", None, key)),
    threading.Thread(target=client, args=("ingest", PORT, "POST", "/api/v1/ingest/events", deflated,
                                          {**key, "Content-Type": "application/json", "Content-Encoding": "deflate"})),
    threading.Thread(target=client, args=("console", INSPECT, "GET", "/api/bundle")),
]
threading.Thread(target=refetcher, daemon=True).start()
for t in threads: t.start()
for t in threads: t.join()

def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))] if ordered else float("nan")

upstream = "20 s per answer" if MODE == "slow" else "a byte every 0.25 s"
print(f"upstream {MODE} ({upstream}), {LENGTH:.0f} s:")
print(f"  {'endpoint':<14}{'answers':>9}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}{'non-200':>9}  p99 < 100 ms")
for name in ("version poll", "bundle fetch", "ingest", "console"):
    latencies, failures = results[name]
    p99 = percentile(latencies, 99)
    print(f"  {name:<14}{len(latencies):>9}{percentile(latencies, 50):>9.1f}{p99:>9.1f}{max(latencies):>9.1f}{failures:>9}  {'PASS' if p99 < 100 and failures == 0 else 'FAIL'}")
