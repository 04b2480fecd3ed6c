#!/usr/bin/env python3
"""ingest_server.py PORT COUNT_FILE [FAIL_AFTER]: a loopback ingest API for bench/replay.sh that acks at once.

Answers POST /api/v1/ingest/events with 200 after checking the body inflates as raw DEFLATE
to {"batch": [...]}; counts the events it received and writes the count to COUNT_FILE on
every request (so the bench can check every event arrived). Anything else: 400."""
import asyncio
import json
import os
import sys
import zlib

port, count_file = int(sys.argv[1]), sys.argv[2]
# Optional third argument N: answer 503 from the N+1st request on (to show an interrupted replay).
fail_after = int(sys.argv[3]) if len(sys.argv) > 3 else None
# APPDNA_FAULTS=1 (scripts/tsan-replay): of every 3 requests one 503 and one 429, both with
# Retry-After: 0, and every 13th connection dropped unanswered: retries from every worker.
faults = os.environ.get("APPDNA_FAULTS") == "1"
received = 0
bad = 0
requests = 0


async def handle(reader, writer):
    global received, bad
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            headers = {}
            for line in lines[1:]:
                if ":" in line:
                    name, value = line.split(":", 1)
                    headers[name.strip().lower()] = value.strip()
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            global requests
            requests += 1
            status = b"200 OK"
            if fail_after is not None and requests > fail_after:
                status = b"503 Service Unavailable"
            if faults and requests % 13 == 7:
                break
            if faults and requests % 3 == 1:
                status = b"503 Service Unavailable\r\nRetry-After: 0"
            elif faults and requests % 3 == 2:
                status = b"429 Too Many Requests\r\nRetry-After: 0"
            try:
                events = json.loads(zlib.decompress(body, -15))["batch"]
                if headers.get("content-encoding") != "deflate" or not headers.get("x-api-key"):
                    raise ValueError("headers")
                if status == b"200 OK":
                    received += len(events)
            except Exception:  # noqa: BLE001 - any bad request is a 400 for the bench
                bad += 1
                status = b"400 Bad Request"
            with open(count_file, "w") as f:
                f.write("%d %d\n" % (received, bad))
            reply = b'{"accepted":true}'
            keep = headers.get("connection", "").lower() != "close"
            writer.write(b"HTTP/1.1 " + status + b"\r\nContent-Type: application/json\r\nContent-Length: "
                         + str(len(reply)).encode() + (b"\r\n" if keep else b"\r\nConnection: close\r\n") + b"\r\n" + reply)
            await writer.drain()
            if not keep:
                break
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", port, backlog=512)
    async with server:
        await server.serve_forever()

asyncio.run(main())
