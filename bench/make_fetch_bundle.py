#!/usr/bin/env python3
"""Writes a config bundle in the API response shape (content wrapper) of about SIZE bytes:
many experiments with two or three variants, flags, paywalls. Deterministic.
Usage: make_fetch_bundle.py OUT SIZE_BYTES"""
import json
import random
import sys

out, size = sys.argv[1], int(sys.argv[2])
rng = random.Random(4)
experiments, flags, paywalls = {}, {}, {}
i = 0
content = {"onboarding_flows": {"active_flow_id": "f1", "flows": {"f1": {"steps": [{"id": "s1", "type": "welcome"}]}}},
           "paywalls": paywalls, "remote_config": flags, "feature_flags": {}, "in_app_messages": {},
           "experiments": experiments}
bundle = {"bundle_version": 1234, "sdk_min_version": "1.0.0", "size_bytes": 0,
          "generated_at": "2026-02-19T10:00:00Z", "content": content}
approx = 0
while approx < size:
    eid = f"exp_{i:06d}"
    if rng.random() < 0.5:
        variants = [{"id": "control", "weight": 0.5, "is_control": True}, {"id": "variant_b", "weight": 0.5}]
    else:
        variants = [{"id": "control", "weight": 0.25, "is_control": True}, {"id": "b", "weight": 0.25},
                    {"id": "c", "weight": 0.5, "payload": {"title": f"Offer {i} \u00e9", "price": rng.randint(1, 99) + 0.99}}]
    experiments[eid] = {"id": eid, "name": f"Experiment {i}", "status": "running", "type": "ab",
                        "salt": f"{rng.getrandbits(32):08x}", "platforms": ["ios", "android"],
                        "variants": variants, "traffic_allocation": 1,
                        "targeting": {"countries": ["US", "DE"], "min_app_version": "1.2.0"},
                        "started_at_ms": 1708344000000 + i}
    flags[f"flag_{i}"] = rng.choice([True, False, i, f"value-{i}"])
    paywalls[f"pw_{i}"] = {"id": f"pw_{i}", "products": [f"com.example.p{i}"], "layout": {"columns": 2}}
    i += 1
    approx += 530
text = json.dumps(bundle, ensure_ascii=False)
bundle["size_bytes"] = len(text.encode())
with open(out, "w", encoding="utf-8") as f:
    json.dump(bundle, f, ensure_ascii=False)
