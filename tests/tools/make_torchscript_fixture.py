#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes tests/data/torchscript/mlp.pt, the TorchScript fixture of tst_torchcapture.

A 3-layer MLP (32 -> 64 -> 64 -> 16, ReLU between) scripted with torch.jit.script, so its graph calls
aten::linear three times and aten::relu twice per forward. Run it with Debian's torch:
    /usr/bin/python3 tests/tools/make_torchscript_fixture.py
The file must stay loadable by the oldest LibTorch TileScope builds against (Debian's 1.13).
"""
import pathlib
import sys

import torch


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(32, 64)
        self.fc2 = torch.nn.Linear(64, 64)
        self.fc3 = torch.nn.Linear(64, 16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.fc1(x))
        x = torch.relu(self.fc2(x))
        return self.fc3(x)


def main():
    out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[1] / "data/torchscript/mlp.pt"
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    module = torch.jit.script(Mlp().eval())
    module.save(str(out))
    print(f"wrote {out} ({out.stat().st_size} bytes, torch {torch.__version__}); input float32:8x32")


if __name__ == "__main__":
    main()
