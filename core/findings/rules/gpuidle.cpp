// SPDX-License-Identifier: MIT
#include "analysis/overlap.h"
#include "findings/rules.h"
#include "findings/rules/ruletext.h"
#include "findings/thresholds.h"
#include "stats/timetext.h"

namespace tilescope::findings::rules {

// The GPU idle while the CPU works for a large share of the overlap window (analysis::OverlapReport).
void gpuIdle(const trace::Trace&, const DiagnoseInputs& in, std::vector<Finding>& out)
{
    if (!in.overlap || in.overlap->activeDevices() == 0)
        return;
    const analysis::OverlapReport& o = *in.overlap;
    const int64_t window = o.window.end - o.window.start;
    if (window < thresholds::kGpuIdleMinWindowNs)
        return;
    const double share = ratio(o.gpuIdleWhileCpuBusyNs, window);
    if (share < thresholds::kGpuIdleMinShare)
        return;
    Finding f;
    f.id = "gpu-idle";
    f.title = "The GPU is idle for most of the window while the CPU works";
    f.strength = Strength::Strong;
    f.evidence.push_back("The GPU was idle while the CPU worked for " + stats::formatDuration(o.gpuIdleWhileCpuBusyNs) + " of the "
                         + stats::formatDuration(window) + " window (" + percentText(share) + ").");
    for (const analysis::DeviceBusy& d : o.devices)
        if (d.hasActivity)
            f.evidence.push_back("GPU " + std::to_string(d.device) + " was busy " + stats::formatDuration(d.busyNs) + " ("
                                 + percentText(d.utilization) + " utilization) with " + countText(d.kernels, "kernel", "kernels") + ", "
                                 + countText(d.memcpys, "memcpy", "memcpys") + " and " + countText(d.memsets, "memset", "memsets") + ".");
    f.evidence.push_back("The CPU was busy " + stats::formatDuration(o.cpuBusyNs) + "; both were idle "
                         + stats::formatDuration(o.bothIdleNs) + ".");
    f.columns = {"kernel/gpu_memcpy/gpu_memset ts, dur", "cpu_op/cuda_runtime/cuda_driver ts, dur"};
    f.nextStep = "Look at the CPU ops in the longest GPU gap (the second range): data preparation, Python overhead or a "
                 "CPU-bound loop. This says where the GPU waits, not why; move that work off the critical path (a DataLoader "
                 "with workers, pinned prefetch, torch.compile).";
    f.impactNs = o.gpuIdleWhileCpuBusyNs;
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
    if (longest.end > longest.start)
        f.where.push_back({longest.start, longest.end, trace::kNoIndex});
    out.push_back(std::move(f));
}

} // namespace tilescope::findings::rules
