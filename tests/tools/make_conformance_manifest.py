#!/usr/bin/env python3
"""Writes tests/data/external/manifest.json: facts about each external trace computed independently with
Python's json module, which tst_conformance checks TileScope's loader against.
Usage: python3 tests/tools/make_conformance_manifest.py"""
import collections, gzip, json, os, sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(here, "..", "data", "external")
KERNELISH = {"kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset"}
manifest = {}
for sub in sorted(os.listdir(root)):
    folder = os.path.join(root, sub)
    if not os.path.isdir(folder):
        continue
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".gz"):
            continue
        path = os.path.join(folder, name)
        with open(path, "rb") as f:
            data = f.read()
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
        doc = json.loads(data)
        events = doc["traceEvents"] if isinstance(doc, dict) else doc
        complete = collections.Counter()
        gpu_activities = 0
        linked_gpu = 0
        for e in events:
            ph = e.get("ph")
            if ph == "X":
                cat = e.get("cat") or ""
                complete[cat] += 1
                if cat.lower() in KERNELISH:
                    gpu_activities += 1
                    args = e.get("args") or {}
                    if "External id" in args or "external id" in args:
                        linked_gpu += 1
        phases = collections.Counter(e.get("ph") for e in events)
        memory = sum(1 for e in events if e.get("ph") in ("i", "I") and e.get("name") == "[memory]")
        manifest[f"{sub}/{name}"] = {
            "records": len(events),
            "complete_per_category": dict(sorted(complete.items())),
            "flows": phases.get("s", 0) + phases.get("t", 0) + phases.get("f", 0),
            "memory_records": memory,
            "devices": len(doc.get("deviceProperties") or []) if isinstance(doc, dict) else 0,
            "gpu_activities": gpu_activities,
            "gpu_activities_with_external_id": linked_gpu,
            "kernels": sum(v for k, v in complete.items() if k.lower() == "kernel"),
        }
out = os.path.join(root, "manifest.json")
with open(out, "w") as f:
    json.dump(manifest, f, indent=1, sort_keys=True)
    f.write("\n")
print(f"wrote {out}: {len(manifest)} traces", file=sys.stderr)
