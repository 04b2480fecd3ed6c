#!/usr/bin/env python3
"""make_audit_inputs.py BUNDLE QUEUE COUNT [EXPERIMENTS]: inputs for bench/audit.sh.

BUNDLE: a config bundle with EXPERIMENTS (default 500) running experiments (2 to 4 variants,
some with platforms, countries, a minimum app version, traffic allocation or a blank salt).
QUEUE: an iOS NDJSON queue of COUNT events in the SDK's event shape (as make_queue.py writes),
each with 1 to 4 experiment exposures whose variants are computed with mmh3 exactly as devices
do, so they agree with the bundle, except 1 in 1000 (planted, so the audit has work to list).
The seed is fixed: the same arguments give the same bytes."""
import json
import random
import sys
import uuid

import mmh3

bundle_path, queue_path, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
n_experiments = int(sys.argv[4]) if len(sys.argv) > 4 else 500
rng = random.Random(14)

experiments = {}
for index in range(n_experiments):
    eid = "exp-%03d" % index
    k = rng.choice([2, 2, 3, 4])
    weights = [1.0 / k] * k if rng.random() < 0.5 else None
    if weights is None:
        first = rng.choice([0.1, 0.25, 0.43, 0.5, 0.57])
        weights = [first] + [(1 - first) / (k - 1)] * (k - 1)
    e = {"id": eid, "status": "running", "salt": "" if index % 25 == 0 else "s%d" % index,
         "variants": [{"id": "v%d" % i, "weight": w} for i, w in enumerate(weights)]}
    if index % 3 == 0:
        e["platforms"] = ["ios", "android"]
    if index % 7 == 0:
        e["targeting"] = {"countries": ["US", "CA", "GB"], "min_app_version": "1.0"}
    if index % 11 == 0:
        e["traffic_allocation"] = 0.5
    experiments[eid] = e
with open(bundle_path, "w") as f:
    json.dump({"bundle_version": 42, "experiments": {"experiments": experiments}}, f, indent=1)


def assigned(eid, user):
    e = experiments[eid]
    salt = e["salt"] if e["salt"].strip() else eid
    if "traffic_allocation" in e:
        if mmh3.hash("%s.%s.%s.allocation" % (eid, salt, user), 0, signed=False) % 10000 >= 5000:
            return None
    bucket = mmh3.hash("%s.%s.%s" % (eid, salt, user), 0, signed=False) % 10000
    cumulative = 0
    for v in e["variants"]:
        cumulative += int(v["weight"] * 10000)
        if bucket < cumulative:
            return v["id"]
    return e["variants"][-1]["id"]


ids = list(experiments)
names = ["app_open", "screen_view", "button_tap", "purchase_completed", "paywall_shown", "onboarding_step"]
devices = [str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(400)]
seq = {d: 0 for d in devices}
with open(queue_path, "w") as f:
    for i in range(count):
        d = devices[i % len(devices)]
        seq[d] += 1
        user = "user-%d" % (i % 4000)
        exposures = []
        for eid in rng.sample(ids, rng.randint(1, 4)):
            variant = assigned(eid, user)
            if variant is None:
                continue
            if rng.random() < 0.001:
                variant = "planted-mismatch"
            exposures.append({"exp": eid, "variant": variant})
        event = {
            "schema_version": 1,
            "event_id": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
            "event_name": rng.choice(names),
            "ts_ms": 1771495200000 - rng.randrange(10 * 86400000),
            "user": {"anon_id": d, "user_id": user},
            "device": {"platform": "ios", "os": "17.0.1", "app_version": "1.2.0", "sdk_version": "1.0.78",
                       "bundle_version": 42, "locale": "en-US", "country": "US"},
            "context": {"session_id": "%s-%d" % (d[:8], i // 400), "screen": "home",
                        "experiment_exposures": exposures, "client_seq": seq[d]},
            "properties": {"value": i},
            "privacy": {"consent": {"analytics": True}},
        }
        f.write(json.dumps(event, separators=(",", ":")) + "\n")
