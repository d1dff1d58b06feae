// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/intervals.h"
#include "stats/distribution.h"
#include "trace/ids.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilescope::trace {
class Trace;
}

namespace tilescope::analysis {

// Launch statistics (issue #13). A launch is a CUDA runtime or driver API call (cudaLaunchKernel,
// cudaLaunchKernelExC, cuLaunchKernel, cuLaunchKernelEx, cudaMemcpyAsync, cudaGraphLaunch...) whose
// correlation id links it to GPU activities (kernels, memcpy, memset) - every such call, by link, not by
// name. For each launch whose call starts inside the window:
//   CPU duration = the API call's duration
//   GPU duration = the sum of its activities' durations (one activity for all but graph launches)
//   launch delay = the first activity's start - the call's start (may be negative on clock skew)
// and belongs to the stream of its first activity.
// HTA 0.5's cuda_kernel_launch_stats differs: it matches only cudaLaunchKernel, cudaLaunchKernelExC,
// cudaMemcpyAsync and cudaMemsetAsync by name (no driver API), one row per (call, activity) pair, and
// its launch delay is activity start - call END, clipped at 0.

// Kernels much shorter than their launch: a kernel launch whose GPU duration is below this share of
// its CPU duration (HTA flags gpu < cpu for calls up to 50 us).
constexpr double kShortKernelShareOfCpu = 0.5;
// A long launch delay: above this (HTA's launch_delay_cutoff) and, on a stream with kMinLaunchesForP99
// launches or more, above its p99 launch delay (with fewer the nearest-rank p99 is the maximum itself).
constexpr int64_t kLongLaunchDelayNs = 100'000;
constexpr uint64_t kMinLaunchesForP99 = 100;

struct LaunchRecord
{
    uint32_t launch = trace::kNoIndex;   // the API call
    uint32_t activity = trace::kNoIndex; // its first activity by start
    uint32_t activities = 0;
    uint32_t stream = 0; // index into LaunchStats::streams
    int64_t cpuNs = 0, gpuNs = 0, delayNs = 0;
};

struct StreamLaunchStats
{
    int device = -1;
    std::optional<int64_t> stream;
    uint32_t track = trace::kNoIndex;
    stats::Distribution cpu, gpu, delay;
};

struct LaunchStats
{
    Interval window{0, 0};
    std::vector<LaunchRecord> launches;                 // by call start
    std::vector<StreamLaunchStats> streams;             // by device, then stream
    stats::Distribution cpu, gpu, delay;                // over every stream
    std::vector<std::pair<std::string, uint64_t>> apis; // launches per API name, most first
    std::vector<uint32_t> shortKernels;                 // indices into launches: the short-kernel rule, most CPU - GPU first
    std::vector<uint32_t> longDelays;                   // indices into launches: the long-delay rule, longest first
};

// Over `window`, by default analysis::defaultOverlapWindow.
LaunchStats computeLaunchStats(const trace::Trace& trace, std::optional<Interval> window = std::nullopt);

// The two outlier rules in words, for the reports.
std::string shortKernelRuleText();
std::string longDelayRuleText();

} // namespace tilescope::analysis
