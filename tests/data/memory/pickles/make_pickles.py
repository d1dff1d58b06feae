#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes the pickle fixtures of tst_snapshot with CPython's own pickler (run from this folder:
# python3 make_pickles.py). The files are committed; the tests never need Python.
import os
import pickle
import pickletools


def values(protocol):
    shared = [1, "shared"]
    # A tuple that holds a list holding the tuple: the pickler closes it with POP_MARK (or POP) and a memo get.
    recursive = ([],)
    recursive[0].append(recursive)
    recursive4 = ([], 1, 2, 3)
    recursive4[0].append(recursive4)
    v = {
        "none": None,
        "true": True,
        "false": False,
        "small": 7,
        "u16": 40000,
        "negative": -5,
        "i32_min": -(2**31),
        "i64_max": 2**63 - 1,
        "i64_min": -(2**63),
        "address": 139661766819840,
        "float": 1.5,
        "negative_float": -0.1,
        "text": "h\u00e9llo \u2713",
        "long_text": "x" * 300,
        "empty_list": [],
        # Over 1000 items: the pickler writes several APPENDS batches.
        "range": list(range(1200)),
        "tuple0": (),
        "tuple1": (1,),
        "tuple2": (1, 2),
        "tuple3": (1, 2, 3),
        "tuple5": (1, 2, 3, 4, 5),
        "nested": {"a": [{"b": (1, "c")}], 3: "int key"},
        # Over 256 memo entries before "shared": its memo index needs LONG_BINPUT / LONG_BINGET.
        "strings": ["s%d" % i for i in range(300)],
        "shared": shared,
        "shared_again": shared,
        "recursive": recursive,
        "recursive4": recursive4,
    }
    # Protocol 2 writes bytes as a call of _codecs.encode (GLOBAL, REDUCE): code, refused; see bytes_p2.
    if protocol >= 3:
        v["bytes"] = b"\x00\x01\xff"
        v["long_bytes"] = b"\x07" * 300
    return v


def write(name, data):
    with open(name, "wb") as f:
        f.write(data)
    ops = sorted({op.name for op, _, _ in pickletools.genops(data)})
    print(name, len(data), "bytes:", " ".join(ops))


for protocol in (2, 3, 4, 5):
    write("values_p%d.pickle" % protocol, pickle.dumps(values(protocol), protocol=protocol))

write("bytes_p2.pickle", pickle.dumps({"bytes": b"\x00"}, protocol=2))

# What an attacker writes: pickle.dumps(os.system) imports os.system (STACK_GLOBAL in protocol 4,
# GLOBAL in protocol 2). The tests hold these bytes as literals too.
write("os_system_p4.pickle", pickle.dumps(os.system, protocol=4))
write("os_system_p2.pickle", pickle.dumps(os.system, protocol=2))

# A snapshot-shaped dict whose device trace is one 1000-entry list referenced 1000 times through the
# memo: a million entries from a small file. The reader must refuse it, not build them.
entry = {"action": "alloc", "addr": 0, "size": 512, "stream": 0, "time_us": 1, "frames": []}
trace = [entry] * 1000
write("shared_expansion.pickle", pickle.dumps({"segments": [], "device_traces": [trace] * 1000}, protocol=4))

# A snapshot with every action, every block state spelling and older/newer fields: no block address in
# segment 0's second and third blocks (older torch), no allocated_size/active_size in segment 1, the
# docstring's "active_awaiting_free", an oom entry (device_free), unknown keys (segment_pool_id).
frames = [{"name": "c10::malloc", "filename": "??", "line": 0},
          {"name": "forward", "filename": "/x/site-packages/torch/nn/linear.py", "line": 116},
          {"name": "step", "filename": "/home/me/train.py", "line": 42}]
variants = {
    "segments": [
        {"device": 0, "address": 1 << 20, "total_size": 16384, "allocated_size": 4096, "active_size": 12288, "requested_size": 4000,
         "stream": 0, "segment_type": "small", "segment_pool_id": (0, 0), "is_expandable": False, "frames": [],
         "blocks": [{"address": 1 << 20, "size": 4096, "requested_size": 4000, "state": "active_allocated", "frames": frames},
                    {"size": 8192, "requested_size": 8192, "state": "active_pending_free", "frames": frames},
                    {"size": 4096, "state": "inactive", "frames": []}]},
        {"device": 1, "address": 1 << 30, "total_size": 2 << 20, "blocks": [{"size": 2 << 20, "state": "active_awaiting_free"}]}],
    "device_traces": [
        [{"action": "segment_alloc", "addr": 1 << 20, "size": 16384, "stream": 0, "time_us": 100, "frames": frames},
         {"action": "alloc", "addr": 1 << 20, "size": 4000, "stream": 0, "time_us": 101, "frames": frames},
         {"action": "free_requested", "addr": 1 << 20, "size": 4000, "stream": 0, "time_us": 102, "frames": frames},
         {"action": "free_completed", "addr": 1 << 20, "size": 4000, "stream": 0, "time_us": 103, "frames": frames},
         {"action": "oom", "device_free": 1024, "size": 1 << 40, "stream": 0, "time_us": 104, "frames": frames},
         {"action": "segment_map", "addr": 1 << 21, "size": 4096, "time_us": 105},
         {"action": "segment_unmap", "addr": 1 << 21, "size": 4096, "time_us": 106},
         {"action": "snapshot", "addr": 0, "size": 0, "time_us": 107}],
        [{"action": "segment_free", "addr": 1 << 30, "size": 2 << 20, "time_us": 5}]],
    "allocator_settings": {"max_split_size": -1, "garbage_collection_threshold": 0.5, "roundup_power2_divisions": {"1": 0}},
    "external_annotations": [{"stage": "START", "name": "step", "device": 0, "time_us": 99}],
}
write("snapshot_variants_p2.pickle", pickle.dumps(variants, protocol=2))
write("snapshot_variants_p4.pickle", pickle.dumps(variants, protocol=4))
