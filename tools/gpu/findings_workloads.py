#!/usr/bin/env python3
# Small torch.profiler traces on a CUDA GPU, one per findings id (issue #12) plus a clean run: each builds
# one problem in on purpose so `tilescope-cli diagnose` must name it, and the clean run (a warm, GPU-bound
# loop) must produce no gpu-idle, sync-stall, warmup-in-window or pageable-memcpy.
# Usage: findings_workloads.py OUTDIR [NAME ...]   (default: every workload; writes OUTDIR/NAME.json.gz)
import gzip
import os
import shutil
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile, record_function

DEVICE = "cuda"


def small(n=256):
    return torch.ones(n, device=DEVICE)


def big(n=4096, dtype=torch.bfloat16):
    return torch.randn(n, n, device=DEVICE, dtype=dtype)


def warm(fn, times=3):
    for _ in range(times):
        fn()
    torch.cuda.synchronize()


def record(path, body, steps, profile_memory=False, scheduled=True):
    """Profiles `steps` calls of body(i) and writes the trace gzipped. scheduled: as a careful user records,
    schedule(wait=1, warmup=1, active=steps), so the profiler's own start-up cost (CUPTI's first launches) falls
    in the discarded warm-up step and the steps are ProfilerStep#N; otherwise every call is measured, each
    under record_function("step_i") (a profiler without a schedule records no ProfilerStep#N)."""
    raw = path[:-3]
    activities = [ProfilerActivity.CPU, ProfilerActivity.CUDA]
    if scheduled:
        with profile(activities=activities, record_shapes=True, profile_memory=profile_memory,
                     schedule=torch.profiler.schedule(wait=1, warmup=1, active=steps),
                     on_trace_ready=lambda p: p.export_chrome_trace(raw)) as prof:
            for i in range(steps + 2):
                body(i)
                if i == steps + 1:
                    torch.cuda.synchronize()
                prof.step()
    else:
        with profile(activities=activities, record_shapes=True, profile_memory=profile_memory):
            pass  # CUPTI's own start-up outside the window, so a slow first step is the workload's
        with profile(activities=activities, record_shapes=True, profile_memory=profile_memory) as prof:
            for i in range(steps):
                with record_function(f"step_{i}"):
                    body(i)
            torch.cuda.synchronize()
        prof.export_chrome_trace(raw)
    with open(raw, "rb") as src, gzip.open(path, "wb", compresslevel=9) as dst:
        shutil.copyfileobj(src, dst)
    os.remove(raw)


# launch-bound and tiny-kernels: 400 one-element-ish adds a step, each launched on its own.
def launch_bound(path):
    x = small()
    warm(lambda: x.add_(1))
    record(path, lambda i: [x.add_(1) for _ in range(400)], steps=5)


# gpu-idle: the CPU prepares each batch with torch CPU ops for ~5 ms while the GPU runs one short kernel.
def gpu_idle(path):
    x = small(1 << 16)
    cpu = torch.randn(256, 256)
    warm(lambda: x.mul_(1.0001))

    def body(i):
        deadline = time.perf_counter() + 0.005
        batch = cpu
        while time.perf_counter() < deadline:  # CPU-bound data preparation (augmentation, collation)
            batch = torch.tanh(batch @ cpu)
        x.mul_(1.0001)

    record(path, body, steps=8)


# sync-stall: a loss read with .item() every step, right after the GPU work it waits for.
def sync_stall(path):
    a, b = big(), big()
    warm(lambda: (a @ b).float().mean().item())
    record(path, lambda i: (a @ b @ b).float().mean().item(), steps=8)


# pageable-memcpy: a 32 MiB batch from ordinary (pageable) host memory every step, and a result back.
def pageable_memcpy(path):
    host = torch.randn(8 << 20)  # 32 MiB of fp32, not pinned
    dev = host.to(DEVICE)
    warm(lambda: host.to(DEVICE))

    def body(i):
        d = host.to(DEVICE)
        d.mul_(2)
        dev.copy_(d)
        dev.cpu()

    record(path, body, steps=4)


# warmup-in-window: the first step compiles and loads a Triton kernel (JIT inside the measured window).
def warmup_in_window(path):
    import triton
    import triton.language as tl

    @triton.jit
    def scale(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 1.5, mask=mask)

    x = small(1 << 20)
    a, b = big(2048), big(2048)
    warm(lambda: a @ b)

    def body(i):
        scale[(triton.cdiv(x.numel(), 1024),)](x, x.numel(), BLOCK=1024)
        for _ in range(4):
            a @ b
        torch.cuda.synchronize()

    record(path, body, steps=5, scheduled=False)  # the JIT happens in the first measured step


# dominant-kernel: one bf16 GEMM holds nearly all GPU time beside a few small elementwise kernels.
def dominant_kernel(path):
    a, b = big(), big()
    x = small(1 << 16)
    warm(lambda: a @ b)

    def body(i):
        a @ b
        x.add_(1)
        x.mul_(0.5)

    record(path, body, steps=6)


# tiny-kernels: many kernels far shorter than a launch, on a warm GPU.
def tiny_kernels(path):
    x = small(32)
    warm(lambda: x.neg_())
    record(path, lambda i: [x.neg_() for _ in range(200)], steps=3)


# cuda-graph: 20 small kernels captured once and replayed by one launch each step.
def cuda_graph(path):
    x = small(1 << 12)
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            for _ in range(20):
                x.add_(1)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(20):
            x.add_(1)
    warm(graph.replay)
    record(path, lambda i: graph.replay(), steps=10)


# memory-growth: each step keeps 4 MiB in a list it never clears (a loss kept with its graph, say).
def memory_growth(path):
    kept = []
    x = small(1 << 20)
    warm(lambda: x * 2)

    def body(i):
        kept.append(torch.empty(1 << 20, device=DEVICE))  # 4 MiB of fp32
        (x * 2).sum()

    record(path, body, steps=8, profile_memory=True)


# out-of-memory: a request far larger than the device, caught.
def out_of_memory(path):
    x = small(1 << 20)
    warm(lambda: x * 2)

    def body(i):
        (x * 2).sum()
        if i == 3:  # an active step (0 and 1 are the schedule's wait and warm-up)
            try:
                torch.empty(1 << 48, device=DEVICE, dtype=torch.uint8)  # 256 TiB
            except torch.OutOfMemoryError:
                pass

    record(path, body, steps=3, profile_memory=True)


# clean: a warm, GPU-bound loop: back-to-back bf16 GEMMs queued ahead of the GPU, no host synchronisation.
def clean(path):
    a, b = big(), big()
    warm(lambda: a @ b, times=10)
    record(path, lambda i: [a @ b for _ in range(6)], steps=8)


WORKLOADS = {
    "launch_bound": launch_bound,
    "gpu_idle": gpu_idle,
    "sync_stall": sync_stall,
    "pageable_memcpy": pageable_memcpy,
    "warmup_in_window": warmup_in_window,
    "dominant_kernel": dominant_kernel,
    "tiny_kernels": tiny_kernels,
    "cuda_graph": cuda_graph,
    "memory_growth": memory_growth,
    "out_of_memory": out_of_memory,
    "clean": clean,
}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__ or "usage: findings_workloads.py OUTDIR [NAME ...]")
    out = sys.argv[1]
    names = sys.argv[2:] or list(WORKLOADS)
    os.makedirs(out, exist_ok=True)
    if not torch.cuda.is_available():
        sys.exit("findings_workloads.py: needs a CUDA GPU")
    for name in names:
        started = time.time()
        WORKLOADS[name](os.path.join(out, name + ".json.gz"))
        size = os.path.getsize(os.path.join(out, name + ".json.gz"))
        print(f"recorded {name}: {size / 1024:.0f} KiB in {time.time() - started:.1f} s", flush=True)


if __name__ == "__main__":
    main()
