# SPDX-License-Identifier: MIT
"""A TileLang GEMM and its torch reference, for TileScope's kernel-vs-reference sessions:

    tilescope-cli capture --kernel resources/examples/tilelang_gemm.py:build_gemm --kernel-factory \
        --ref resources/examples/tilelang_gemm.py:torch_gemm --inputs f16:4096x4096,f16:4096x4096 \
        --flops 137438953472 --bytes 100663296 --out gemm-session

build_gemm() compiles (outside the profiled window) and returns the JITKernel, whose generated CUDA
source TileScope saves next to the trace. The kernel follows TileLang's own GEMM example.
"""
import os

M = N = K = int(os.environ.get("TILESCOPE_GEMM_SIZE", "4096"))


def matmul(M, N, K, block_M=128, block_N=128, block_K=32, dtype="float16", accum_dtype="float"):
    import tilelang.language as T

    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
                T.copy(A[by * block_M, ko * block_K], A_shared)
                T.copy(B[ko * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


def build_gemm():
    import tilelang
    return tilelang.compile(matmul(M, N, K), out_idx=[2], target="cuda")


def torch_gemm(a, b):
    return a @ b
