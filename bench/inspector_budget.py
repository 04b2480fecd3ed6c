#!/usr/bin/env python3
"""Drivers for bench/inspector-budget.sh (issue 42's memory figures), each against a running
`appdna webhook listen` whose PID and ports are given:

  poll PID INSPECTOR_PORT SECONDS CLIENTS   CLIENTS threads GET /api/deliveries as the page
                                            does, for SECONDS; prints "polls N peak_rss_kib R"
  flood PID PORT SECRET_FILE COUNT          COUNT signed deliveries at once, each on its own
                                            connection; prints "answered N statuses {..} alive 0|1"
  slow-handler PORT DELAY BYTES             a handler that waits DELAY s, then answers BYTES
"""
import hashlib
import hmac
import http.server
import json
import socket
import socketserver
import sys
import threading
import time


def rss_kib(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except FileNotFoundError:
        return -1
    return -1


def alive(pid):
    try:
        open(f"/proc/{pid}/status").close()
        return "zombie" not in open(f"/proc/{pid}/status").read().lower()
    except FileNotFoundError:
        return False


def poll(pid, port, seconds, clients):
    stop = time.time() + seconds
    counts = [0] * clients
    peak = [rss_kib(pid)]

    def client(index):
        while time.time() < stop:
            connection = socket.create_connection(("127.0.0.1", port))
            connection.sendall(b"GET /api/deliveries HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n" % port)
            while connection.recv(65536):
                pass
            connection.close()
            counts[index] += 1

    def sampler():
        while time.time() < stop:
            peak[0] = max(peak[0], rss_kib(pid))
            time.sleep(0.05)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)] + [threading.Thread(target=sampler)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(f"polls {sum(counts)} peak_rss_kib {peak[0]}")


def flood(pid, port, secret_file, count):
    secret = open(secret_file, "rb").read().rstrip(b"\n")
    statuses = {}
    lock = threading.Lock()

    def one(n):
        body = b'{"id":"evt_flood_%d","type":"x","data":{}}' % n
        signature = "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()
        status = "no answer"
        try:
            connection = socket.create_connection(("127.0.0.1", port), timeout=120)
            connection.sendall(b"POST /hooks HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nX-AppDNA-Signature: "
                               + signature.encode() + b"\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
            first = connection.recv(64)
            status = first.split()[1].decode() if len(first.split()) > 1 else "closed"
            while connection.recv(1 << 20):
                pass
            connection.close()
        except OSError as error:
            status = type(error).__name__
        with lock:
            statuses[status] = statuses.get(status, 0) + 1

    threads = [threading.Thread(target=one, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    answered = sum(v for k, v in statuses.items() if k.isdigit())
    print(f"answered {answered} statuses {json.dumps(statuses, sort_keys=True)} alive {int(alive(pid))}")


def slow_handler(port, delay, size):
    body = b"x" * size

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            time.sleep(delay)
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True
        request_queue_size = 1024

    Server(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "poll":
        poll(int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]))
    elif command == "flood":
        flood(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5]))
    elif command == "slow-handler":
        slow_handler(int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]))
