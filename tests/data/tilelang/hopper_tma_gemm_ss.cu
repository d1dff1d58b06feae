#include <tl_templates/cuda/gemm.h>
#include <tl_templates/cuda/copy.h>
#include <tl_templates/cuda/reduce.h>
#include <tl_templates/cuda/ldsm.h>
#include <tl_templates/cuda/threadblock_swizzle.h>
#include <tl_templates/cuda/debug.h>

extern "C" __global__ void kernel_kernel(__grid_constant__ const CUtensorMap A_desc, __grid_constant__ const CUtensorMap B_desc, half_t* __restrict__ C, int* __restrict__ batch_offsets, int* __restrict__ batch_padded_offsets, int* __restrict__ batch_sizes);
extern "C" __global__ void __launch_bounds__(256, 1) kernel_kernel(__grid_constant__ const CUtensorMap A_desc, __grid_constant__ const CUtensorMap B_desc, half_t* __restrict__ C, int* __restrict__ batch_offsets, int* __restrict__ batch_padded_offsets, int* __restrict__ batch_sizes) {
  extern __shared__ __align__(1024) uchar buf_dyn_shmem[];
  int cur_batch_idx[1];
  float C_local[32];
  __shared__ uint64_t _mbarrier[4];
  if (((int)threadIdx.x) == 0) {
    tl::prefetch_tma_descriptor(A_desc);
    tl::prefetch_tma_descriptor(B_desc);
    tl::mbarrier_init(_mbarrier[0], 128);
    tl::mbarrier_init(_mbarrier[1], 128);
    tl::mbarrier_init(_mbarrier[2], 128);
    tl::mbarrier_init(_mbarrier[3], 128);
  }
  __syncthreads();
  if (128 <= ((int)threadIdx.x)) {
    tl::warpgroup_reg_dealloc<24>();
    for (int k = 0; k < 3; ++k) {
      tl::mbarrier_wait(_mbarrier[((k & 1) + 2)], ((k >> 1) ^ 1));
      if (((int)threadIdx.x) == 128) {
        tl::mbarrier_expect_tx(_mbarrier[(k & 1)], 8192);
        tl::tma_load(A_desc, _mbarrier[(k & 1)], (&(((half_t*)buf_dyn_shmem)[((k & 1) * 4096)])), (k * 64), (((int)blockIdx.x) * 64));
      }
      tl::mbarrier_cp_async_arrive(_mbarrier[(k & 1)]);
      if (((int)threadIdx.x) == 128) {
        tl::mbarrier_expect_tx(_mbarrier[(k & 1)], 8192);
        tl::tma_load(B_desc, _mbarrier[(k & 1)], (&(((half_t*)buf_dyn_shmem)[(((k & 1) * 4096) + 8192)])), (((int)blockIdx.y) * 64), (k * 64), cur_batch_idx[0]);
      }
      tl::mbarrier_cp_async_arrive(_mbarrier[(k & 1)]);
      tl::mbarrier_arrive(_mbarrier[(k & 1)]);
    }
  } else {
    tl::warpgroup_reg_alloc<240>();
    tl::fence_proxy_async();
    for (int k_1 = 0; k_1 < 3; ++k_1) {
      tl::mbarrier_wait(_mbarrier[(k_1 & 1)], (k_1 >> 1));
      tl::gemm_ss<64, 64, 64, 4, 1, 0, 0, 0, true>((&(((half_t*)buf_dyn_shmem)[((k_1 & 1) * 4096)])), (&(((half_t*)buf_dyn_shmem)[(((k_1 & 1) * 4096) + 8192)])), (&(C_local[0])));
      tl::mbarrier_arrive(_mbarrier[((k_1 & 1) + 2)]);
    }
  }
}


#define ERROR_BUF_SIZE 1024
static char error_buf[ERROR_BUF_SIZE];

extern "C" int call(half_t* __restrict__ A, half_t* __restrict__ B, half_t* __restrict__ C, int* __restrict__ batch_sizes, int* __restrict__ batch_offsets, int* __restrict__ batch_padded_offsets, cudaStream_t stream=cudaStreamDefault) {
	CUtensorMap A_desc;
	CUtensorMapDataType A_desc_type= (CUtensorMapDataType)6;
	kernel_kernel<<<dim3(512, 64, 1), dim3(256, 1, 1), 32768, stream>>>(A_desc, A_desc, C, batch_offsets, batch_padded_offsets, batch_sizes);
	TILELANG_CHECK_LAST_ERROR("kernel_kernel");
	return 0;
}
