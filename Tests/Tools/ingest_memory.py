#!/usr/bin/env python3
"""Driver of bench/ingest-memory.sh and IngestMemoryEndToEndTests (issue 49: every byte an
ingest batch makes `api serve` hold is budgeted):

  make FILE EXPOSURES        writes FILE: a raw DEFLATE batch of one event carrying EXPOSURES
                             exposures (1,500,000: ~160 KB that inflates to ~54 MB); prints
                             "compressed N inflated M"
  flood PID PORT FILE COUNT  COUNT clients POST FILE at once, each on its own connection;
                             prints "statuses {...} lost N alive 0|1 hwm_kib H"
"""
import http.client
import json
import sys
import threading
import zlib


def make(path, exposures):
    head = json.dumps({"batch": [{
        "schema_version": 1, "event_id": "0b5e1c1e-49a1-4c0e-8e4f-000000000049", "event_name": "app_open", "ts_ms": 1771400000000,
        "user": {"anon_id": "11111111-1111-4111-8111-111111111111"},
        "device": {"platform": "ios", "sdk_version": "1.0.78", "os": "17.0.1"},
        "context": {"session_id": "s1", "client_seq": 1, "experiment_exposures": ["HOLE"]},
        "properties": {}, "privacy": {"consent": {"analytics": True}}}]}, separators=(",", ":"))
    before, after = head.split('"HOLE"')
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    out = [compressor.compress(before.encode())]
    inflated = len(before) + len(after)
    # The same exposure over and over: what the figure measured (158 KB for 54 MB).
    item = b'{"exp":"exp-a","variant":"control"}'
    chunk = b",".join([item] * 10000)
    full, rest = divmod(exposures, 10000)
    for n in range(full):
        text = (b"," if n else b"") + chunk
        inflated += len(text)
        out.append(compressor.compress(text))
    if rest:
        text = (b"," if full else b"") + b",".join([item] * rest)
        inflated += len(text)
        out.append(compressor.compress(text))
    out.append(compressor.compress(after.encode()))
    out.append(compressor.flush())
    body = b"".join(out)
    open(path, "wb").write(body)
    print(f"compressed {len(body)} inflated {inflated}")


def status_line(pid):
    try:
        return open(f"/proc/{pid}/status").read()
    except FileNotFoundError:
        return ""


def hwm_kib(pid):
    for line in status_line(pid).splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return -1


def alive(pid):
    text = status_line(pid)
    return bool(text) and "zombie" not in text.lower()


def flood(pid, port, path, count):
    body = open(path, "rb").read()
    statuses, lost, lock = {}, [], threading.Lock()
    start = threading.Barrier(count)

    def send():
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
            start.wait()
            connection.request("POST", "/api/v1/ingest/events", body=body,
                               headers={"x-api-key": "adn_test_bench", "Content-Encoding": "deflate", "Content-Type": "application/json"})
            response = connection.getresponse()
            response.read()
            with lock:
                key = str(response.status) + ("+Retry-After" if response.getheader("Retry-After") else "")
                statuses[key] = statuses.get(key, 0) + 1
        except Exception as error:
            with lock:
                lost.append(repr(error))

    threads = [threading.Thread(target=send) for _ in range(count)]
    for thread in threads: thread.start()
    for thread in threads: thread.join()
    print(f"statuses {json.dumps(statuses, sort_keys=True)} lost {len(lost)} alive {1 if alive(pid) else 0} hwm_kib {hwm_kib(pid)}")
    if lost:
        print("  lost: " + "; ".join(sorted(set(lost))[:3]), file=sys.stderr)


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "flood":
        flood(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5]))
    else:
        sys.exit(__doc__)
