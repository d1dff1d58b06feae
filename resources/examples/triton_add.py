# SPDX-License-Identifier: MIT
"""A Triton elementwise add and its torch reference (Triton launches through the driver API as TileLang
does): a memory-bound custom kernel for kernel-vs-reference sessions.

    tilescope-cli capture --kernel resources/examples/triton_add.py:triton_add \
        --ref resources/examples/triton_add.py:torch_add --inputs f32:67108864,f32:67108864 \
        --bytes 805306368 --out add-session
"""
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask), mask=mask)


def triton_add(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    add_kernel[(triton.cdiv(n, 4096),)](x, y, out, n, BLOCK=4096)
    return out


def torch_add(x, y):
    return x + y
