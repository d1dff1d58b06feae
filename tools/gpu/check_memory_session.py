#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks what a session with --memory-snapshot / --memory-timeline wrote (tools/gpu/prove_memory.sh):

    python3 check_memory_session.py DIR [--timeline] [--oom] [--expected FILE]

The manifest names the files (docs/sessions.md); the snapshot is a pickle of plain data (read here with an
unpickler that refuses every class and callable, so nothing in it runs), with segments and an allocation
history; the timeline is [times, sizes per category]; the trace holds [memory] instants. Prints PASS/FAIL
lines and what the files hold; --expected writes the figures `tilescope-cli memory` should report, computed
from the raw files. Exits 1 when a check failed.
"""
import argparse
import collections
import json
import os
import pickle
import sys

failures = 0


def check(what, ok, detail=""):
    global failures
    print(("PASS " if ok else "FAIL ") + what + (f" ({detail})" if detail else ""))
    failures += not ok
    return ok


class DataOnly(pickle.Unpickler):
    """Plain containers, strings and numbers only: any class or callable (GLOBAL, STACK_GLOBAL) is refused."""

    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"the snapshot names {module}.{name}: not plain data")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("--timeline", action="store_true", help="a memory timeline was asked for")
    parser.add_argument("--oom", action="store_true", help="the run caught an out-of-memory error")
    parser.add_argument("--expected", help="write the figures tilescope-cli memory should report here")
    a = parser.parse_args()
    expected = {}

    manifest_path = os.path.join(a.dir, "tilescope-session.json")
    if not check("manifest written", os.path.isfile(manifest_path), manifest_path):
        return 1
    with open(manifest_path) as f:
        manifest = json.load(f)
    check("session ok", manifest.get("status") == "ok", manifest.get("error", ""))
    for note in manifest.get("notes", []):
        print(f"  note: {note}")
    check("manifest names memory_snapshot.pickle", manifest.get("memory_snapshot") == "memory_snapshot.pickle",
          str(manifest.get("memory_snapshot")))
    if a.timeline:
        check("manifest names memory_timeline.json", manifest.get("memory_timeline") == "memory_timeline.json",
              str(manifest.get("memory_timeline")))
    else:
        check("no memory timeline when not asked", "memory_timeline" not in manifest
              and not os.path.exists(os.path.join(a.dir, "memory_timeline.json")))

    # The allocator snapshot.
    path = os.path.join(a.dir, "memory_snapshot.pickle")
    size = os.path.getsize(path) if os.path.isfile(path) else 0
    if check("memory_snapshot.pickle is non-trivial", size > 1024, f"{size} bytes"):
        with open(path, "rb") as f:
            head = f.read(2)
            f.seek(0)
            try:
                snapshot = DataOnly(f).load()
            except Exception as e:
                snapshot = None
                check("snapshot is plain data", False, f"{type(e).__name__}: {e}")
        protocol = head[1] if head[:1] == b"\x80" else "?"
        print(f"  pickle protocol {protocol}")
        if snapshot is not None and check("snapshot is plain data with segments and device_traces",
                                          isinstance(snapshot, dict) and "segments" in snapshot
                                          and "device_traces" in snapshot, str(sorted(snapshot)[:8])):
            segments = snapshot["segments"]
            blocks = collections.Counter(b.get("state") for s in segments for b in s.get("blocks", []))
            reserved = sum(s.get("total_size", 0) for s in segments)
            allocated = sum(s.get("allocated_size", 0) for s in segments)
            actions = collections.Counter(e.get("action") for trace in snapshot["device_traces"] for e in trace)
            print(f"  {len(segments)} segments, reserved {reserved} B, allocated {allocated} B; blocks {dict(blocks)}")
            print(f"  history: {dict(actions)} (devices with entries: "
                  f"{sum(1 for t in snapshot['device_traces'] if t)})")
            check("snapshot has segments", len(segments) > 0, f"{len(segments)}")
            check("history has allocations and frees", actions["alloc"] > 0 and actions["free_completed"] > 0)
            framed = [e for t in snapshot["device_traces"] for e in t if e.get("frames")]
            check("history entries carry stack frames", len(framed) > 0, f"{len(framed)} of {sum(actions.values())}")
            if framed:
                f0 = framed[0]["frames"][0]
                print(f"  first frame: {f0.get('name')} {f0.get('filename')}:{f0.get('line')}")
            if a.oom:
                ooms = [e for t in snapshot["device_traces"] for e in t if e.get("action") == "oom"]
                if check("history records the out-of-memory request", len(ooms) > 0):
                    print(f"  oom: size {ooms[0].get('size')} B, device_free {ooms[0].get('device_free')} B")
            expected["snapshot"] = {"segments": len(segments), "reserved_bytes": reserved, "allocated_bytes": allocated,
                                    "actions": dict(actions)}

    # The memory timeline.
    if a.timeline:
        path = os.path.join(a.dir, "memory_timeline.json")
        size = os.path.getsize(path) if os.path.isfile(path) else 0
        if check("memory_timeline.json is non-trivial", size > 100, f"{size} bytes"):
            with open(path) as f:
                timeline = json.load(f)
            ok = isinstance(timeline, list) and len(timeline) == 2 and len(timeline[0]) == len(timeline[1])
            if check("timeline is [times, sizes] of equal length", ok):
                times, sizes = timeline
                widths = {len(row) for row in sizes}
                totals = [sum(row) for row in sizes]
                peak = max(totals) if totals else 0
                at = sizes[totals.index(peak)] if totals else []
                print(f"  {len(times)} points over {(times[-1] - times[0]) / 1e3 if times else 0:.1f} ms; "
                      f"row widths {sorted(widths)}; peak {peak} B: {at}")
                check("timeline has points and memory", len(times) > 1 and peak > 0)
                check("timeline rows have 9 slots", widths == {9}, str(sorted(widths)))

    # The trace's [memory] instants (profile_memory, which --memory-timeline turns on).
    trace_path = os.path.join(a.dir, manifest.get("trace", "trace.pt.trace.json"))
    if not check("trace written", os.path.isfile(trace_path), trace_path):
        return 1
    with open(trace_path) as f:
        events = json.load(f).get("traceEvents", [])
    memory = [e for e in events if e.get("name") == "[memory]"]
    ooms = [e for e in events if e.get("name") == "[OutOfMemory]"]
    per_device = collections.defaultdict(list)
    for e in memory:
        args = e.get("args", {})
        if args.get("Device Type") == 1:
            per_device[f"cuda:{args.get('Device Id')}"].append(args)
    print(f"  trace: {len(memory)} [memory] instants, {len(ooms)} [OutOfMemory]; CUDA devices {sorted(per_device)}")
    if a.timeline:
        check("trace holds CUDA [memory] instants", len(per_device) > 0)
    expected["trace"] = {
        device: {"peak_allocated_bytes": max(r["Total Allocated"] for r in rows),
                 "peak_reserved_bytes": max(r["Total Reserved"] for r in rows),
                 "allocs": sum(1 for r in rows if r.get("Bytes", 0) > 0),
                 "frees": sum(1 for r in rows if r.get("Bytes", 0) < 0)}
        for device, rows in per_device.items()}
    expected["trace_ooms"] = len(ooms)
    for device, figures in expected["trace"].items():
        print(f"  {device}: {figures}")
    if a.expected:
        with open(a.expected, "w") as f:
            json.dump(expected, f, indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
