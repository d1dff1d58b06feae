// SPDX-License-Identifier: MIT
#include "analysis/overlap.h"
#include "findings/rules.h"
#include "findings/rules/ruletext.h"
#include "findings/thresholds.h"
#include "stats/timetext.h"

#include <algorithm>

namespace tilescope::findings::rules {

namespace {

// What the CPU was doing in a stretch of GPU idle time, of any thread: among the ops and CUDA calls covering
// nearly as much of it as the one covering most (90% of that), the shortest, the most specific name for it (a
// call inside an op covers the same gap in less time). kNoIndex when none ran.
struct GapWork
{
    uint32_t event = trace::kNoIndex;
    int64_t overlapNs = 0;
};

GapWork workIn(const trace::Trace& t, analysis::Interval gap)
{
    const auto overlapOf = [&](const trace::Event& e) { return std::min(e.end(), gap.end) - std::max(e.start, gap.start); };
    const auto counts = [](const trace::Event& e) { return e.kind == trace::EventKind::CpuOp || trace::isLaunchApi(e.kind); };
    int64_t most = 0;
    for (const trace::Event& e : t.events)
        if (counts(e))
            most = std::max(most, overlapOf(e));
    GapWork best;
    if (most <= 0)
        return best;
    for (uint32_t i = 0; i < t.events.size(); ++i) {
        const trace::Event& e = t.events[i];
        const int64_t overlap = counts(e) ? overlapOf(e) : 0;
        if (overlap <= 0 || overlap * 10 < most * 9)
            continue;
        if (best.event == trace::kNoIndex || e.duration < t.events[best.event].duration)
            best = {i, overlap};
    }
    return best;
}

} // namespace

// The GPU idle while the CPU works for a large share of the overlap window (analysis::OverlapReport); or, weaker,
// the GPU busy less than half the window, with what the CPU did in the idle time deciding how sure it is.
void gpuIdle(const trace::Trace& t, const DiagnoseInputs& in, std::vector<Finding>& out)
{
    if (!in.overlap || in.overlap->activeDevices() == 0)
        return;
    const analysis::OverlapReport& o = *in.overlap;
    const int64_t window = o.window.end - o.window.start;
    if (window < thresholds::kGpuIdleMinWindowNs)
        return;
    // The window is the CPU's and GPU's work plus the time both idle, so the GPU idles while the CPU works or
    // while both idle.
    const int64_t gpuIdleNs = o.gpuIdleWhileCpuBusyNs + o.bothIdleNs;
    const double share = ratio(o.gpuIdleWhileCpuBusyNs, window);
    const bool waitsOnCpu = share >= thresholds::kGpuIdleMinShare;
    const bool underused = ratio(window - gpuIdleNs, window) < thresholds::kGpuLowUtilization;
    if (!waitsOnCpu && !underused)
        return;
    const bool cpuWorksInIdle = o.gpuIdleWhileCpuBusyNs * 2 >= gpuIdleNs;
    Finding f;
    f.id = "gpu-idle";
    f.columns = {"kernel/gpu_memcpy/gpu_memset ts, dur", "cpu_op/cuda_runtime/cuda_driver ts, dur"};
    const std::string cpuNextStep = "Look at the CPU ops in the longest GPU gap (the second range): data preparation, Python overhead or a "
                                    "CPU-bound loop. This says where the GPU waits, not why; move that work off the critical path (a "
                                    "DataLoader with workers, pinned prefetch, torch.compile).";
    if (waitsOnCpu) {
        f.title = "The GPU is idle for most of the window while the CPU works";
        f.strength = Strength::Strong;
        f.evidence.push_back("The GPU was idle while the CPU worked for " + stats::formatDuration(o.gpuIdleWhileCpuBusyNs) + " of the "
                             + stats::formatDuration(window) + " window (" + percentText(share) + ").");
        f.nextStep = cpuNextStep;
        f.impactNs = o.gpuIdleWhileCpuBusyNs;
    } else {
        f.evidence.push_back("The GPU was idle " + stats::formatDuration(gpuIdleNs) + " of the " + stats::formatDuration(window)
                             + " window (" + percentText(ratio(gpuIdleNs, window)) + "): the CPU worked during "
                             + stats::formatDuration(o.gpuIdleWhileCpuBusyNs) + " of it (" + percentText(share)
                             + " of the window), neither during " + stats::formatDuration(o.bothIdleNs) + " ("
                             + percentText(ratio(o.bothIdleNs, window)) + ").");
        if (cpuWorksInIdle) {
            // Likely the CPU, but under half the window: the other reading is many short gaps of launch latency
            // between kernels rather than CPU phases the GPU waits through.
            f.title = "The GPU is idle more than half of the window, mostly while the CPU works";
            f.strength = Strength::Weak;
            f.nextStep = cpuNextStep
                + " If the idle time is many short gaps between kernels instead (see launches), launch fewer, larger kernels "
                  "(fusion, CUDA graphs).";
            f.impactNs = o.gpuIdleWhileCpuBusyNs;
        } else {
            // The trace holds no record of what the GPU waited for: only a guess is possible.
            f.title = "The GPU is idle more than half of the window, mostly while the CPU is idle too";
            f.strength = Strength::Provisional;
            f.nextStep = "In most of the GPU's idle time no op, CUDA call or kernel is recorded: the wait is outside what the "
                         "profiler saw (input from DataLoader worker processes, disk or network, another rank, Python code that "
                         "calls no op). Look at the longest GPU gap (the second range); record with with_stack=True to see the "
                         "Python code there.";
            f.impactNs = o.bothIdleNs;
        }
    }
    for (const analysis::DeviceBusy& d : o.devices)
        if (d.hasActivity)
            f.evidence.push_back("GPU " + std::to_string(d.device) + " was busy " + stats::formatDuration(d.busyNs) + " ("
                                 + percentText(d.utilization) + " utilization) with " + countText(d.kernels, "kernel", "kernels") + ", "
                                 + countText(d.memcpys, "memcpy", "memcpys") + " and " + countText(d.memsets, "memset", "memsets") + ".");
    f.evidence.push_back(waitsOnCpu ? "The CPU was busy " + stats::formatDuration(o.cpuBusyNs) + "; both were idle "
                                 + stats::formatDuration(o.bothIdleNs) + "."
                                    : "The CPU was busy " + stats::formatDuration(o.cpuBusyNs) + " in all.");
    f.where.push_back({o.window.start, o.window.end, trace::kNoIndex});
    // The longest gap between GPU busy intervals inside the window.
    analysis::Interval longest{0, 0};
    int64_t previousEnd = o.window.start;
    const analysis::IntervalSet clipped = o.gpuBusy.clippedTo(o.window);
    const auto& busy = clipped.intervals();
    for (size_t i = 0; i <= busy.size(); ++i) {
        const int64_t gapEnd = i < busy.size() ? busy[i].start : o.window.end;
        if (gapEnd - previousEnd > longest.end - longest.start)
            longest = {previousEnd, gapEnd};
        if (i < busy.size())
            previousEnd = busy[i].end;
    }
    if (longest.end > longest.start) {
        f.where.push_back({longest.start, longest.end, trace::kNoIndex});
        // What filled that gap on the CPU, by name: the place to start (a 42 ms cudaHostAlloc under aten::to
        // says more than "data preparation or Python overhead").
        const int64_t gapNs = longest.end - longest.start;
        const GapWork work = workIn(t, longest);
        std::string line = "The longest GPU gap (the second range) lasted " + stats::formatDuration(gapNs) + "; ";
        if (work.event == trace::kNoIndex) {
            line += "no op or CUDA call of any thread ran in it.";
        } else {
            const trace::Event& e = t.events[work.event];
            const bool most = work.overlapNs * 2 >= gapNs;
            line += (most ? "the CPU was in " : "no op or CUDA call ran through most of it; the longest there was ")
                + std::string(t.name(e));
            // Its op, and the op the program called (the outermost one) when that is another.
            uint32_t inner = trace::kNoIndex, outer = trace::kNoIndex;
            for (uint32_t p = e.parent; p != trace::kNoIndex && t.events[p].kind == trace::EventKind::CpuOp; p = t.events[p].parent) {
                if (inner == trace::kNoIndex)
                    inner = p;
                outer = p;
            }
            if (inner != trace::kNoIndex)
                line += " (in " + std::string(t.name(t.events[inner]))
                    + (outer != inner ? ", called from " + std::string(t.name(t.events[outer])) : std::string()) + ")";
            line += (most ? " for " : ", ") + stats::formatDuration(work.overlapNs) + " of it (" + percentText(ratio(work.overlapNs, gapNs))
                + ").";
            f.where.push_back({e.start, e.end(), work.event});
        }
        f.evidence.insert(f.evidence.begin() + 1, line);
    }
    out.push_back(std::move(f));
}

} // namespace tilescope::findings::rules
