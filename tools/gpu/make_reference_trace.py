#!/usr/bin/env python3
"""Makes a fresh torch.profiler trace on a CUDA machine plus torch's own key_averages for it, in the
form of ../shared/traces/h200/*/ref_key_averages*.json, so tilescope-cli summary can be checked
against torch on data it has never seen.  Usage: make_reference_trace.py OUT_DIR"""
import json, os, sys
import torch

from reference_rows import write_reference_rows
from torch.profiler import profile, ProfilerActivity, record_function

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
dev = "cuda"
a = torch.randn(2048, 2048, device=dev, dtype=torch.bfloat16)
b = torch.randn(2048, 2048, device=dev, dtype=torch.bfloat16)
lin = torch.nn.Linear(1024, 1024, device=dev)
x = torch.randn(64, 1024, device=dev)
side = torch.cuda.Stream()

def step():
    with record_function("gemm_region"):
        c = torch.mm(a, b)
        c = c * 1.5 + 1.0
    with record_function("mlp_region"):
        y = torch.relu(lin(x)).sum()
        y.backward()
    with torch.cuda.stream(side):
        h = torch.ones(1 << 20, pin_memory=True)
        d = h.to(dev, non_blocking=True)
        d.mul_(2.0)
    torch.cuda.synchronize()
    return c

for _ in range(10):  # warm-up outside the measured window
    step()
torch.cuda.synchronize()
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True, profile_memory=True,
             with_flops=True) as prof:
    for _ in range(5):
        step()
prof.export_chrome_trace(os.path.join(out, "trace.json"))

write_reference_rows(prof, out)
ka = prof.key_averages()
with open(os.path.join(out, "ref_table.txt"), "w") as f:
    f.write(ka.table(sort_by="self_cuda_time_total", row_limit=-1, max_name_column_width=80))
    f.write("\n\n# sorted by self_cpu_time_total\n")
    f.write(ka.table(sort_by="self_cpu_time_total", row_limit=-1, max_name_column_width=80))
print("torch", torch.__version__, torch.cuda.get_device_name(0), "->", out)
