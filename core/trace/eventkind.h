// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string_view>

namespace tilescope::trace {

// What an event is, from its Kineto category (1.8-era names mapped to modern ones).
enum class EventKind : uint8_t {
    CpuOp,
    UserAnnotation,
    CudaRuntime,
    CudaDriver,
    Overhead,
    PythonFunction,
    Kernel,
    GpuMemcpy,
    GpuMemset,
    GpuUserAnnotation,
    CudaSync,
    TraceSpan,
    Instant, // a thread/process instant that is not a memory record
    Other,   // any other category (or none): a generic Chrome-trace slice
    Count
};

EventKind eventKindFromCategory(std::string_view category);
std::string_view eventKindName(EventKind kind);

// GPU-side activity shown on a device stream.
constexpr bool isGpuActivity(EventKind k) { return k == EventKind::Kernel || k == EventKind::GpuMemcpy || k == EventKind::GpuMemset; }
constexpr bool isGpuSide(EventKind k) { return isGpuActivity(k) || k == EventKind::GpuUserAnnotation || k == EventKind::CudaSync; }
constexpr bool isLaunchApi(EventKind k) { return k == EventKind::CudaRuntime || k == EventKind::CudaDriver; }
// A CUDA call by name that always starts GPU work: a kernel (cudaLaunchKernel, cuLaunchKernelEx,
// cudaLaunchCooperativeKernel...) or a graph (cudaGraphLaunch); a synchronize or cudaMalloc starts none.
constexpr bool launchesGpuWork(std::string_view name)
{
    return name.find("LaunchKernel") != std::string_view::npos || name.find("LaunchCooperativeKernel") != std::string_view::npos
        || name.find("GraphLaunch") != std::string_view::npos;
}

// A NCCL collective kernel by its name (ncclKernel_*, ncclDevKernel_*, with or without "void "): the one rule
// for communication kernels, used by the roofline's classification and the kernel-type breakdown.
bool isCommunicationKernel(std::string_view kernelName);

// A pointwise kernel by its name: ATen's elementwise kernels (vectorized_elementwise_kernel,
// unrolled_elementwise_kernel, elementwise_kernel) and Triton pointwise kernels (triton_poi_*). The one
// rule for "elementwise", used by the repeated-sequence analysis to name fusion candidates.
bool isElementwiseKernel(std::string_view kernelName);

} // namespace tilescope::trace
