#!/usr/bin/env python3
"""make_queue.py OUT COUNT: a deterministic iOS NDJSON queue of COUNT events (the SDK's event
shape, 40 devices, 12 event names, 1 in 1000 client_seq values skipped) for bench/queue.sh."""
import json
import random
import sys
import uuid

out, count = sys.argv[1], int(sys.argv[2])
rng = random.Random(5)
names = ["app_open", "screen_view", "button_tap", "purchase_completed", "paywall_shown", "onboarding_step",
         "experiment_exposure", "session_start", "session_end", "push_opened", "search", "_sdk_events_dropped"]
devices = [str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(40)]
seq = {d: 0 for d in devices}
with open(out, "w") as f:
    for i in range(count):
        d = devices[i % len(devices)]
        seq[d] += 2 if rng.random() < 0.001 else 1
        name = names[rng.randrange(len(names))]
        event = {
            "schema_version": 1,
            "event_id": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
            "event_name": name,
            "ts_ms": 1771495200000 - rng.randrange(10 * 86400000),
            "user": {"anon_id": d, "user_id": "user-%d" % (i % 40)},
            "device": {"platform": "ios", "os": "17.0.1", "app_version": "1.0.0", "sdk_version": "1.0.78",
                       "bundle_version": 42, "locale": "en-US", "country": "US"},
            "context": {"session_id": "%s-%d" % (d[:8], i // 400), "screen": "home",
                        "experiment_exposures": [{"exp": "onboarding-v2", "variant": "control"}],
                        "client_seq": seq[d]},
            "properties": {"count": 3} if name == "_sdk_events_dropped" else {"value": i},
            "privacy": {"consent": {"analytics": rng.random() > 0.01}},
        }
        f.write(json.dumps(event, separators=(",", ":")) + "\n")
