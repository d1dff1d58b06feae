// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/intervals.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace tilescope::trace {
class Trace;
}

namespace tilescope::analysis {

struct DeviceBusy
{
    int device = 0;
    int64_t busyNs = 0; // union of kernel, memcpy and memset intervals on all streams of the device
    int64_t idleNs = 0;
    double utilization = 0;
    uint64_t kernels = 0;     // kernels that start inside the window
    uint64_t memcpys = 0;     // memcpys that start inside the window
    uint64_t memsets = 0;     // memsets that start inside the window
    bool hasActivity = false; // any kernel, memcpy or memset on the device anywhere in the trace
    IntervalSet busy;
};

struct ThreadBusy
{
    uint32_t track = 0;
    int64_t busyNs = 0;
    IntervalSet busy;
};

struct LaunchCost
{
    uint64_t count = 0;          // launch calls with at least one kernel, starting in the window
    int64_t cpuNs = 0;           // their CPU duration
    int64_t kernelNs = 0;        // the GPU duration of the kernels they launched
    uint64_t costlyLaunches = 0; // launches whose CPU time is at least 80% of their kernels' time
    // Many launches cost about as much CPU as their kernels run (at least half of 100 or more). Not a verdict
    // by itself: a launch also takes long when it waits for room in a full launch queue, the GPU busy
    // (OverlapReport::launchBound).
    bool mostlyCostly() const { return count >= 100 && costlyLaunches * 2 >= count; }
};

// The GPU idle while the CPU works for at least this share of the window: the GPU waited on the CPU. Below,
// costly launches did not starve it (HTA's trace_diff_test: 96% GPU busy, half its launches costly).
constexpr double kLaunchBoundMinGpuWaitShare = 0.1;

// CPU/GPU overlap over a window of the trace (issue #3).
//
// Contract, per window W = [start, end) in trace ns:
//   device busy  = |union(kernel, memcpy, memset on any stream of the device) ∩ W|
//   cpu busy     = |union over host threads(cpu_op, cuda_runtime, cuda_driver, leaf user_annotation) ∩ W|;
//                  an annotation with a CPU op or CUDA API call of its thread within its time is a label,
//                  not work, and is left out; one with none within (c10d's gloo:all_reduce on gloo's threads, an optimizer's
//                  zero_grad) is the only record of what the thread did, so it counts. Python frames are
//                  labels, and so is ProfilerStep#N when torch 1.8-1.9 wrote it as a cpu_op. A synchronize call counts as busy
//   overlap      = |cpu busy set ∩ union of all devices' busy sets|
//   gpu idle while cpu works = |cpu busy − gpu busy|;  both idle = |W| − |cpu ∪ gpu|
// Default window: the first start to the last end of those activities (the Trace span includes the
// profiler's own start-up and warm-up gaps, so it would understate utilization).
struct OverlapReport
{
    // Devices with GPU activity anywhere in the trace (0: a CPU-only trace, so GPU idle means nothing).
    int activeDevices() const;
    // Launch-bound: most launches cost about as much CPU as their kernels run, and the GPU waited on the CPU
    // for at least kLaunchBoundMinGpuWaitShare of the window.
    bool launchBound() const;
    // The share of the window the GPU was idle while the CPU worked.
    double gpuWaitShare() const;

    Interval window{0, 0};
    std::vector<DeviceBusy> devices;
    std::vector<ThreadBusy> threads;
    IntervalSet cpuBusy;
    IntervalSet gpuBusy;
    int64_t cpuBusyNs = 0;
    int64_t overlapNs = 0;
    int64_t gpuIdleWhileCpuBusyNs = 0;
    int64_t bothIdleNs = 0;
    LaunchCost launches;
};

std::optional<Interval> defaultOverlapWindow(const trace::Trace& trace);
OverlapReport computeOverlap(const trace::Trace& trace, std::optional<Interval> window = std::nullopt);

} // namespace tilescope::analysis

namespace tilescope::analysis {

// Overlap figures for any window in O(log n + intervals in the window), from sets built once: what the
// timeline needs on every pan and zoom without walking all events. figures(w) equals computeOverlap(t, w)
// in every field except the per-thread and interval-set members, which it leaves empty.
class OverlapIndex
{
public:
    explicit OverlapIndex(const trace::Trace& trace);
    // Reuses a whole-trace report (computeOverlap with the default window covers every activity).
    OverlapIndex(const trace::Trace& trace, const OverlapReport& whole);
    OverlapReport figures(Interval window) const;

private:
    struct Launch
    {
        int64_t start, cpuNs, kernelNs;
    };
    std::vector<int> m_devices;
    std::vector<IntervalSet> m_deviceBusy;
    struct Starts
    {
        std::vector<int64_t> kernels, memcpys, memsets; // sorted
    };
    std::vector<Starts> m_starts; // per device
    std::vector<bool> m_hasActivity;
    IntervalSet m_cpuBusy, m_gpuBusy, m_both, m_either;
    std::vector<Launch> m_launches; // sorted by start
};

} // namespace tilescope::analysis
