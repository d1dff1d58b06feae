# SPDX-License-Identifier: MIT
"""A small training loop for TileScope's script sessions, on CUDA when there is one:

    tilescope-cli capture --script resources/examples/train_mlp.py --schedule 1,1,3,1 --out train-session -- 8

The profiler schedule advances on every optimizer.step(); no change to the script is needed.
"""
import sys

import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024)).to(device)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
steps = int(sys.argv[1]) if len(sys.argv) > 1 else 8
for step in range(steps):
    with torch.autograd.profiler.record_function("train_step"):
        x = torch.randn(256, 1024, device=device)
        loss = model(x).float().pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
print(f"trained {steps} steps on {device}")
