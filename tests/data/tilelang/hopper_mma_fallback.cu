#include <tl_templates/cuda/gemm.h>
#include <tl_templates/cuda/copy.h>
#include <tl_templates/cuda/reduce.h>
#include <tl_templates/cuda/ldsm.h>
#include <tl_templates/cuda/threadblock_swizzle.h>
#include <tl_templates/cuda/debug.h>

extern "C" __global__ void __launch_bounds__(256, 1) main_kernel(bfloat16_t* __restrict__ KV, bfloat16_t* __restrict__ Q, float* __restrict__ acc_out) {
  extern __shared__ __align__(1024) uchar buf_dyn_shmem[];
  float acc_s[4];
  #pragma unroll
  for (int i = 0; i < 4; ++i) {
    tl::cp_async_gs<16>(buf_dyn_shmem + (((i * 256) + ((int)threadIdx.x)) * 16), Q + (((((int)blockIdx.x) * 8192) + (i * 2048)) + (((int)threadIdx.x) * 8)));
  }
  tl::cp_async_commit();
  tl::fence_proxy_async();
  tl::cp_async_wait<0>();
  __syncthreads();
  tl::gemm_ss<16, 64, 512, 1, 8, 0, 1, 0, 512, 512, 0, 0, false>((&(((bfloat16_t*)buf_dyn_shmem)[0])), (&(((bfloat16_t*)buf_dyn_shmem)[17408])), (&(acc_s[0])));
  tl::cp_async_wait<1>();
  __syncthreads();
  tl::gemm_ss<16, 64, 64, 1, 8, 0, 1, 0, 64, 64, 0, 0, false>((&(((bfloat16_t*)buf_dyn_shmem)[8192])), (&(((bfloat16_t*)buf_dyn_shmem)[50176])), (&(acc_s[0])));
  #pragma unroll
  for (int i_1 = 0; i_1 < 4; ++i_1) {
    acc_out[((((int)blockIdx.x) * 1024) + (((int)threadIdx.x) * 4)) + i_1] = acc_s[i_1];
  }
}

