#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Scripts a small CUDA MLP for the tilescope-torch GPU proof (prove_torch_capture.sh).

Writes OUT/model.pt: Linear(1024, 4096) -> GELU -> Linear(4096, 1024), float32, parameters on cuda:0,
saved with torch.jit.script. Its input spec is float32:512x1024. Per forward torch runs two
aten::linear (cuBLAS GEMM kernels) and one aten::gelu (an elementwise kernel).
"""
import pathlib
import sys

import torch


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.up = torch.nn.Linear(1024, 4096)
        self.down = torch.nn.Linear(4096, 1024)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(torch.nn.functional.gelu(self.up(x)))


def main():
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    module = torch.jit.script(Mlp().eval().cuda())
    module.save(str(out / "model.pt"))
    print(f"wrote {out / 'model.pt'} (torch {torch.__version__}, CUDA {torch.version.cuda}, {torch.cuda.get_device_name(0)})")


if __name__ == "__main__":
    main()
