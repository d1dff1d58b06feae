#!/usr/bin/env python3
"""Records a large real training trace on a CUDA machine, for the loader's speed goals (issue #14: real
traces, not only generated ones): a 4-layer bf16 transformer (as the bundled sample) trained under
torch.profiler with record_shapes, profile_memory, with_stack and with_flops, for ACTIVE profiled steps
(default 80: 160 MB of JSON, 11.5 MB gzipped, on torch 2.11 and an H200, 2026-12-05). Writes
OUT_DIR/trace.json.gz (gzip, to travel back from the GPU machine under its 16 MiB a file), torch's
key_averages (plain and by input shape, the form of ../shared/traces/h200/*/ref_key_averages*.json) and
meta.json. Through the device tool: run `python3 tools/gpu/record_large_trace.py $OUT 80` (45 s there).
Then here: tools/bench_floor.sh on the gunzipped trace, and ../shared/tools/compare_key_averages.py on
`tilescope-cli summary --format json` against ref_key_averages.json (and by shape).
Usage: record_large_trace.py OUT_DIR [ACTIVE]"""
import gzip, json, os, shutil, sys, time
import torch

from reference_rows import write_reference_rows
from torch.profiler import profile, ProfilerActivity, schedule

out = sys.argv[1]
active = int(sys.argv[2]) if len(sys.argv) > 2 else 80
os.makedirs(out, exist_ok=True)
dev = "cuda"
torch.manual_seed(0)
d, T, B, layers = 1024, 512, 8, 4
model = torch.nn.TransformerEncoder(
    torch.nn.TransformerEncoderLayer(d, 16, 4 * d, batch_first=True, device=dev, dtype=torch.bfloat16), layers).to(dev)
head = torch.nn.Linear(d, 1000, device=dev, dtype=torch.bfloat16)
opt = torch.optim.AdamW(list(model.parameters()) + list(head.parameters()), lr=1e-4)
x = torch.randn(B, T, d, device=dev, dtype=torch.bfloat16)
y = torch.randint(0, 1000, (B, T), device=dev)


def step():
    logits = head(model(x))
    loss = torch.nn.functional.cross_entropy(logits.float().view(-1, 1000), y.view(-1))
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)


for _ in range(5):  # warm-up outside the profiler
    step()
torch.cuda.synchronize()
raw = os.path.join(out, "trace.json")
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True, profile_memory=True,
             with_stack=True, with_flops=True, schedule=schedule(wait=1, warmup=1, active=active, repeat=1)) as prof:
    for _ in range(active + 2):
        step()
        prof.step()
torch.cuda.synchronize()
started = time.time()
prof.export_chrome_trace(raw)
exported = time.time() - started
size = os.path.getsize(raw)
with open(raw, "rb") as src, gzip.open(raw + ".gz", "wb", compresslevel=6) as dst:
    shutil.copyfileobj(src, dst, 1 << 22)
started = time.time()
with open(raw) as f:
    json.load(f)
json_load = time.time() - started
os.remove(raw)


write_reference_rows(prof, out)
props = torch.cuda.get_device_properties(0)
meta = {"what": f"{layers}-layer transformer (d={d}, T={T}, B={B}, bf16) training, schedule wait/warmup/active/repeat="
                f"(1, 1, {active}, 1), record_shapes, profile_memory, with_stack, with_flops",
        "torch": torch.__version__, "gpu": torch.cuda.get_device_name(0), "sms": props.multi_processor_count,
        "json_bytes": size, "export_s": round(exported, 2), "json_load_s_on_gpu_box": round(json_load, 2)}
json.dump(meta, open(os.path.join(out, "meta.json"), "w"), indent=1)
print(json.dumps(meta))
