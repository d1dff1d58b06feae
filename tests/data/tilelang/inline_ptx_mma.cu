#include <tl_templates/cuda/gemm.h>
#include <tl_templates/cuda/copy.h>
#include <tl_templates/cuda/reduce.h>
#include <tl_templates/cuda/ldsm.h>
#include <tl_templates/cuda/threadblock_swizzle.h>
#include <tl_templates/cuda/debug.h>

extern "C" __global__ void __launch_bounds__(128, 1) main_kernel(half_t* __restrict__ A, half_t* __restrict__ B, half_t* __restrict__ C) {
  extern __shared__ __align__(1024) uchar buf_dyn_shmem[];
  half_t C_local[8];
  half_t A_local[8];
  half_t B_local[4];
  for (int ko = 0; ko < 32; ++ko) {
    {
      unsigned int addr = __cvta_generic_to_shared((void*)(((half_t*)buf_dyn_shmem) + (((int)threadIdx.x) * 8)));
      __asm__ __volatile__(
        "cp.async.cg.shared.global [%0], [%1], %2;"
        :: "r"(addr), "l"((void*)(A + ((ko * 32) + (((int)threadIdx.x) * 8)))), "n"(16)
      );
    }
    __asm__ __volatile__("cp.async.commit_group;");
    __asm__ __volatile__("cp.async.wait_group 0;");
    __syncthreads();
    {
      unsigned int addr_1 = __cvta_generic_to_shared((void*)(((half_t*)buf_dyn_shmem) + ((((int)threadIdx.x) & 15) * 40)));
      __asm__ __volatile__(
        "ldmatrix.sync.aligned.m8n8.x4.shared.b16"
        "{%0, %1, %2, %3}, [%4];\n"
        : "=r"(((unsigned *)(A_local + 0))[0]), "=r"(((unsigned *)(A_local + 0))[1]), "=r"(((unsigned *)(A_local + 0))[2]), "=r"(((unsigned *)(A_local + 0))[3])
        : "r"(addr_1)
      );
    }
    {
      __asm__ __volatile__(
        "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"
        "{%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%8, %9};\n"
        :  "=r"(((unsigned *)(C_local + 0))[0]), "=r"(((unsigned *)(C_local + 0))[1])
        : "r"(((unsigned *)(A_local + 0))[0]), "r"(((unsigned *)(A_local + 0))[1]), "r"(((unsigned *)(A_local + 0))[2]), "r"(((unsigned *)(A_local + 0))[3]), "r"(((unsigned *)(B_local + 0))[0]), "r"(((unsigned *)(B_local + 0))[1]), "r"(((unsigned *)(C_local + 0))[0]), "r"(((unsigned *)(C_local + 0))[1]));
    }
  }
  *(uint4*)(C + (((int)threadIdx.x) * 8)) = *(uint4*)(C_local + 0);
}

