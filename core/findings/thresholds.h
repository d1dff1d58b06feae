// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>

// Every threshold of the findings rules, each with why it was chosen. Tests cross them on purpose.
namespace tilescope::findings::thresholds {

// gpu-idle: the GPU idle while the CPU works for at least half the window means the GPU waits more than
// it works; below that, idle gaps are usually launch latency between busy kernels.
constexpr double kGpuIdleMinShare = 0.5;
// gpu-idle: a window shorter than this is a start-up blip, not a run.
constexpr int64_t kGpuIdleMinWindowNs = 1'000'000;
// gpu-idle, weaker tiers: a GPU busy less than half the window is underused whatever the CPU does (nsys
// analyze's gpu_time_util rule flags time below 50% utilization too). Weak when the CPU works in at least
// half of the GPU's idle time, provisional when neither works in most of it.
constexpr double kGpuLowUtilization = 0.5;

// dominant-kernel: one name holding at least half of the GPU time is where work pays off first.
constexpr double kDominantMinShare = 0.5;
// dominant-kernel: strong when it runs at least 1.5x the next name (60% against at most 40%); closer, a near tie
// (50.1% against 49.9%) is weak: the two names are the work.
constexpr double kDominantLead = 1.5;

// warmup-in-window: a first step at least 3x the median of the others is far outside run-to-run noise
// (a few percent on a warm GPU), which is what compilation, module loading or a cold cache look like.
constexpr double kWarmupSlowdown = 3.0;
// warmup-in-window: and at least 1 ms slower, so microsecond-scale steps do not trip it on jitter.
constexpr int64_t kWarmupMinExtraNs = 1'000'000;
// warmup-in-window: a median needs at least two other steps.
constexpr uint32_t kWarmupMinSteps = 3;

// sync-stall: a host synchronisation in at least 80% of the steps is a per-step habit (an .item(), a
// print of a loss), not a one-off at the end of the loop.
constexpr double kSyncStallMinStepShare = 0.8;
// sync-stall: "every step" needs at least this many steps.
constexpr uint32_t kSyncStallMinSteps = 3;

// sync-stall: the waits must cost at least 1% of the steps' time; below that a per-step sync (a loss read
// after the GPU has finished anyway) costs less than step-to-step noise.
constexpr double kSyncStallMinWaitShare = 0.01;

// pageable-memcpy: copy kinds moving less than 1 MiB in all are scalars and shapes (.item(), .tolist());
// their cost is the synchronisation (sync-stall), not the bandwidth.
constexpr int64_t kPageableMinBytes = int64_t(1) << 20;

// tiny-kernels: kernels shorter than this run for less than a launch costs on current GPUs (a cudaLaunchKernel
// is 2-5 us of CPU; H100/H200 launch latency is about 3 us).
constexpr int64_t kTinyKernelNs = 3'000;
// tiny-kernels: at least this many of them, and this share of all kernels, before it is a pattern.
constexpr uint64_t kTinyKernelsMinCount = 100;
constexpr double kTinyKernelsMinShare = 0.5;

// memory-growth: growth in at least 6 steps (twice memory::kLeakMinGrowingSteps, the leak rule's minimum) is
// strong; warm-up caches (optimizer state, the allocator's pools) settle within two or three steps.
constexpr uint32_t kMemoryGrowthStrongSteps = 6;

} // namespace tilescope::findings::thresholds
