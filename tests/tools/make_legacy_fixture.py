#!/usr/bin/python3
"""Generate reference fixtures of the torch profiler Chrome-trace format plus
torch's own key_averages() output, so TileScope's C++ aggregation can be
tested against torch.

Usage:
    /usr/bin/python3 tests/tools/make_legacy_fixture.py OUT_DIR [--new-api]

Default: legacy torch.autograd.profiler.profile (use_kineto=False), which on a
torch built without Kineto writes the "CPU functions" JSON-array format.
--new-api: torch.profiler.profile(activities=[ProfilerActivity.CPU]) instead,
to see what the new API writes when Kineto is absent.

Written for Debian's python3-torch 1.13 (CPU only, no Kineto). All of
record_shapes / profile_memory / with_flops are accepted by the 1.13 legacy
profiler, so no option had to be dropped.
"""
import json
import os
import sys
import threading

import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)


# TorchScript fork: runs on an inter-op pool thread via at::launch, which
# propagates the profiler's thread-local state, so these ops DO show up in the
# legacy trace under a second tid (2).
@torch.jit.script
def _forked(x):
    return torch.tanh(torch.mm(x, x))


@torch.jit.script
def _fork_join(x):
    fut = torch.jit.fork(_forked, x)
    y = torch.relu(x)
    return torch.jit.wait(fut) + y


def workload():
    mlp = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
    x = torch.randn(8, 16)
    target = torch.randn(8, 4)

    # MLP forward + backward
    out = mlp(x)
    loss = ((out - target) ** 2).mean()
    loss.backward()

    # plain matmul + elementwise ops inside a user annotation
    with torch.autograd.profiler.record_function("my_region"):
        a = torch.randn(32, 32)
        b = torch.randn(32, 32)
        c = torch.mm(a, b)
        d = torch.relu(c) + a * 2.0
        e = torch.sigmoid(d).sum()
    del e

    # a second round with a different shape, so group_by_input_shape differs
    y = mlp(torch.randn(4, 16))
    y.sum().backward()

    # ops on a second (inter-op pool) thread via TorchScript fork
    _fork_join(torch.randn(8, 8))

    # ops from a second Python thread.  NOTE: torch 1.13's legacy profiler
    # installs thread-local RecordFunction callbacks on the enabling thread
    # only, so nothing from this plain Python thread is recorded (observed: no
    # "worker_region" in the trace). Kept to document that behaviour.
    def worker():
        with torch.autograd.profiler.record_function("worker_region"):
            p = torch.randn(16, 16)
            q = torch.mm(p, p)
            r = torch.tanh(q) - p
            r.sum()

    t = threading.Thread(target=worker, name="worker")
    t.start()
    t.join()


def row(evt, by_shape):
    return {
        "key": evt.key,
        "count": evt.count,
        "cpu_time_total_us": evt.cpu_time_total,
        "self_cpu_time_total_us": evt.self_cpu_time_total,
        # torch 1.13 names: cuda_* ; newer torch: device_*
        "device_time_total_us": getattr(evt, "device_time_total",
                                        getattr(evt, "cuda_time_total", 0)),
        "self_device_time_total_us": getattr(evt, "self_device_time_total",
                                             getattr(evt, "self_cuda_time_total", 0)),
        "cpu_memory_usage": evt.cpu_memory_usage,
        "self_cpu_memory_usage": evt.self_cpu_memory_usage,
        "device_memory_usage": getattr(evt, "device_memory_usage",
                                       getattr(evt, "cuda_memory_usage", 0)),
        "self_device_memory_usage": getattr(evt, "self_device_memory_usage",
                                            getattr(evt, "self_cuda_memory_usage", 0)),
        "flops": evt.flops,
        "input_shapes": str(evt.input_shapes) if by_shape else None,
        "is_user_annotation": getattr(evt, "is_user_annotation", False),
        "device_type": str(evt.device_type),
    }


def dump_rows(path, averages, by_shape):
    with open(path, "w") as f:
        json.dump({"torch": torch.__version__,
                   "rows": [row(e, by_shape) for e in averages]}, f, indent=1)
        f.write("\n")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out_dir = sys.argv[1]
    new_api = "--new-api" in sys.argv[2:]
    os.makedirs(out_dir, exist_ok=True)

    workload()  # warm-up outside the profiler

    if new_api:
        from torch.profiler import ProfilerActivity
        prof_ctx = torch.profiler.profile(activities=[ProfilerActivity.CPU],
                                          record_shapes=True,
                                          profile_memory=True,
                                          with_flops=True)
        fmt = "torch.profiler.profile(activities=[CPU]) on torch without Kineto"
        what = "small CPU MLP fwd+bwd, mm, elementwise, my_region, 2nd thread; new torch.profiler API"
    else:
        prof_ctx = torch.autograd.profiler.profile(record_shapes=True,
                                                   profile_memory=True,
                                                   with_flops=True)
        fmt = "legacy autograd profiler (CPU functions)"
        what = "small CPU MLP fwd+bwd, mm, elementwise, my_region, 2nd thread; legacy autograd profiler"

    with prof_ctx as prof:
        workload()

    prof.export_chrome_trace(os.path.join(out_dir, "trace.json"))
    dump_rows(os.path.join(out_dir, "ref_key_averages.json"),
              prof.key_averages(), False)
    dump_rows(os.path.join(out_dir, "ref_key_averages_by_shape.json"),
              prof.key_averages(group_by_input_shape=True), True)
    with open(os.path.join(out_dir, "ref_table.txt"), "w") as f:
        f.write(prof.key_averages().table(sort_by="self_cpu_time_total",
                                          row_limit=-1,
                                          max_name_column_width=80))
        f.write("\n")
    with open(os.path.join(out_dir, "meta.json"), "w") as f:
        json.dump({"what": what, "torch": torch.__version__, "format": fmt},
                  f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
