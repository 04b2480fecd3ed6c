#!/usr/bin/env python3
"""Sends COUNT signed webhook deliveries to `appdna webhook listen` on 127.0.0.1:PORT, one after
the other on one keep-alive connection, each answer read before the next (HMAC-SHA256 by
Python's hmac, the secret read from a file, never argv). Used by
Tests/EndToEndTests/InspectorAPIEndToEndTests.swift and bench/inspector.sh.

Usage: send_deliveries.py PORT SECRET_FILE COUNT [--body-bytes N] [--rss-of PID --label NAME]

Prints "COUNT answered 200"; with --rss-of, instead one line "NAME N rss…": the body size, then
the process's VmRSS in KiB after 500, 1,000, 2,000, 5,000 and 10,000 deliveries (those of them
not above COUNT) and after the last. Delivery n has id evt_n.
"""
import argparse
import hashlib
import hmac
import socket
import sys


def rss_kb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return -1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("secret_file")
    parser.add_argument("count", type=int)
    parser.add_argument("--body-bytes", type=int, default=0, help="pad each body to about this size")
    parser.add_argument("--rss-of")
    parser.add_argument("--label", default="")
    arguments = parser.parse_args()
    secret = open(arguments.secret_file, "rb").read().rstrip(b"\n")
    marks = {m for m in (500, 1000, 2000, 5000, 10000) if m <= arguments.count} | {arguments.count}
    samples = []

    connection = socket.create_connection(("127.0.0.1", arguments.port))
    reader = connection.makefile("rb")
    answered = 0
    for n in range(1, arguments.count + 1):
        head = b'{"id":"evt_%d","type":"subscription.renewed","created_at":"2026-02-19T10:00:00Z","data":{"n":%d,"pad":"' % (n, n)
        body = head + b"x" * max(0, arguments.body_bytes - len(head) - 3) + b'"}}'
        signature = "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()
        connection.sendall(b"POST /webhooks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                           + b"X-AppDNA-Signature: " + signature.encode() + b"\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
        status = reader.readline().split()
        length = 0
        while True:
            line = reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        reader.read(length)
        answered += len(status) > 1 and status[1] == b"200"
        if arguments.rss_of and n in marks:
            samples.append(rss_kb(arguments.rss_of))
    if arguments.rss_of:
        print(" ".join([arguments.label, str(arguments.body_bytes)] + [str(s) for s in samples]))
        sys.exit(0 if answered == arguments.count else 1)
    print(f"{answered} answered 200")


if __name__ == "__main__":
    main()
