# Copy of ../shared/tools/compare_key_averages.py (the project must not need ../shared), used by GPU proofs.
"""Compare tilescope-cli summary JSON against torch's own key_averages for the same run.
Usage: compare_key_averages.py REF.json OURS.json [--by-shape] [--legacy]
Memory columns must be equal exactly (not with --legacy).
A torch row matches when a row with the same key (and input_shapes when grouped) has the same count and
every time within max(1 us, 0.5%). Prints mismatches and 'matched N/M'."""
import json, sys
ref = json.load(open(sys.argv[1]))["rows"]
ours = json.load(open(sys.argv[2]))["rows"]
by_shape = "--by-shape" in sys.argv
legacy = "--legacy" in sys.argv  # legacy traces carry no shapes or memory events: no FLOPs or memory to check
mem_fields = ["cpu_memory_usage", "self_cpu_memory_usage", "device_memory_usage", "self_device_memory_usage"]
def k(r):
    return (r["key"], (r.get("input_shapes") or "") if by_shape else "")
idx = {}
for r in ours:
    idx.setdefault(k(r), []).append(r)
fields = ["self_cpu_time_total_us", "cpu_time_total_us", "self_device_time_total_us", "device_time_total_us"]
def close(a, b):
    return abs(a - b) <= max(1.0, 0.005 * abs(b))
ok = 0
bad = []
for r in ref:
    cands = idx.get(k(r), [])
    hit = None
    for c in cands:
        if c.get("count") == r["count"] and all(close(float(c.get(f) or 0), float(r[f] or 0)) for f in fields):
            hit = c
            break
    if hit is not None:
        if not legacy and r.get("flops") and int(hit.get("flops") or 0) != int(r["flops"]):
            bad.append(f"flops differ for {r['key']}: {hit.get('flops')} vs {r['flops']}")
            continue
        if not legacy and any(int(hit.get(f) or 0) != int(r.get(f) or 0) for f in mem_fields):
            bad.append(f"memory differs for {r['key']}: " + " ".join(f"{f}={hit.get(f)} vs {r.get(f)}" for f in mem_fields))
            continue
        ok += 1
    else:
        bad.append(f"no match for {k(r)} count={r['count']} " + " ".join(f"{f}={r[f]}" for f in fields)
                   + (f" | ours: {[ (c.get('count'),) + tuple(c.get(f) for f in fields) for c in cands][:2]}" if cands else " | ours: none"))
for b in bad[:15]:
    print(b)
print(f"matched {ok}/{len(ref)}")
sys.exit(0 if ok == len(ref) else 1)
