# SPDX-License-Identifier: MIT
"""A CUDA training loop that allocates in a loop, for tools/gpu/prove_memory.sh (memory snapshot and timeline):

    tilescope-cli capture --script tools/gpu/memory_loop.py --memory-snapshot --memory-timeline --out DIR -- 6

Each step trains a small MLP with Adam (parameters, gradients, optimizer state and activations: the
timeline's categories), makes and frees a 32 MiB temporary, and keeps 4 MiB in a list that is never
returned (a leak that grows every step: the snapshot's live blocks, the trace's steps). After the loop it
asks for 1 PiB once and catches the out-of-memory error (an `oom` entry in the allocator's history and an
[OutOfMemory] instant in the trace). Also the kernel and reference of a kernel-mode session:

    tilescope-cli capture --kernel tools/gpu/memory_loop.py:churn_add --ref tools/gpu/memory_loop.py:torch_add \\
        --inputs f32:4194304,f32:4194304 --memory-snapshot --out DIR
"""
import sys

import torch

KEPT_BYTES_PER_STEP = 4 << 20


def churn_add(a, b):
    """a + b through two temporaries (allocations the snapshot records)."""
    doubled = a * 2
    halved = doubled / 2
    return halved + b


def torch_add(a, b):
    return a + b


def main(steps):
    if not torch.cuda.is_available():
        sys.exit("memory_loop.py needs CUDA")
    device = "cuda"
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024)).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    kept = []
    for step in range(steps):
        with torch.autograd.profiler.record_function(f"step_{step}"):
            x = torch.randn(256, 1024, device=device)
            loss = model(x).float().pow(2).mean()
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            temporary = torch.empty(32 << 20, dtype=torch.uint8, device=device)
            temporary.fill_(1)
            del temporary
            kept.append(torch.full((KEPT_BYTES_PER_STEP,), step, dtype=torch.uint8, device=device))
    torch.cuda.synchronize()
    try:
        torch.empty(1 << 50, dtype=torch.uint8, device=device)  # plain cudaMalloc that fails: no managed memory
    except Exception as e:  # torch.cuda.OutOfMemoryError (a RuntimeError)
        print(f"out of memory as intended: {str(e).splitlines()[0][:100]}")
    print(f"{steps} steps; kept {len(kept) * KEPT_BYTES_PER_STEP >> 20} MiB; "
          f"allocated {torch.cuda.memory_allocated() >> 20} MiB, peak {torch.cuda.max_memory_allocated() >> 20} MiB")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 6)
