#!/usr/bin/env python3
"""Records one small torch.profiler trace per roofline class on a CUDA machine:
fp32_mm (TF32 off: CUDA-core bound), bf16_mm (tensor-core bound), elementwise (IO bound on a large
tensor), tiny (latency bound: many tiny kernels). Usage: make_class_traces.py OUT_DIR"""
import gzip, json, os, shutil, sys
import torch
from torch.profiler import profile, ProfilerActivity, record_function

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
dev = "cuda"
torch.backends.cuda.matmul.allow_tf32 = False
n = 8192
a32 = torch.randn(n, n, device=dev); b32 = torch.randn(n, n, device=dev)
a16 = a32.bfloat16(); b16 = b32.bfloat16()
big = torch.randn(1 << 28, device=dev)  # 1 GiB fp32
tiny = torch.randn(256, device=dev)
work = {
    "fp32_mm": lambda: torch.mm(a32, b32),
    "bf16_mm": lambda: torch.mm(a16, b16),
    "elementwise": lambda: big.mul_(1.0001),
    "tiny": lambda: [tiny.add_(1.0) for _ in range(200)],
}
for name, fn in work.items():
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True, with_flops=True) as prof:
        for _ in range(3 if name != "tiny" else 1):
            with record_function(name):
                fn()
        torch.cuda.synchronize()
    path = os.path.join(out, name + ".json")
    prof.export_chrome_trace(path)
    with open(path, "rb") as f, gzip.open(path + ".gz", "wb") as g:
        shutil.copyfileobj(f, g)
    os.remove(path)
    print(name, "->", path + ".gz", os.path.getsize(path + ".gz"), "bytes")
