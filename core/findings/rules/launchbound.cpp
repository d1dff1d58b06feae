// SPDX-License-Identifier: MIT
#include "analysis/overlap.h"
#include "findings/rules.h"
#include "findings/rules/ruletext.h"
#include "findings/thresholds.h"
#include "report/overlapreport.h"
#include "stats/timetext.h"

namespace tilescope::findings::rules {

// Many launches whose CPU call costs at least 80% of their kernels' time while the GPU waits on the CPU
// (OverlapReport::launchBound, the same verdict the overlap report prints).
void launchBound(const trace::Trace&, const DiagnoseInputs& in, std::vector<Finding>& out)
{
    if (!in.overlap || in.overlap->activeDevices() == 0)
        return;
    const analysis::LaunchCost& l = in.overlap->launches;
    if (!in.overlap->launchBound())
        return;
    Finding f;
    f.id = "launch-bound";
    f.title = "Most kernel launches cost about as much CPU time as their kernels run, and the GPU waits on the CPU";
    // More CPU in the calls than GPU in the kernels leaves no other reading. Less, and the launch-costly
    // calls are those of the short kernels while the long ones may keep the GPU busy: the GPU idle share
    // settles it (weak when the GPU does idle while the CPU works, provisional when it does not).
    const int64_t window = in.overlap->window.end - in.overlap->window.start;
    const bool gpuIdles = static_cast<double>(in.overlap->gpuIdleWhileCpuBusyNs)
        >= thresholds::kGpuIdleMinShare * static_cast<double>(window);
    f.strength = l.cpuNs >= l.kernelNs ? Strength::Strong : gpuIdles ? Strength::Weak : Strength::Provisional;
    f.evidence.push_back(report::launchCostText(*in.overlap) + ".");
    f.evidence.push_back("The " + stats::formatCount(l.count) + " launch calls took " + stats::formatDuration(l.cpuNs) + " of CPU time for "
                         + stats::formatDuration(l.kernelNs) + " of kernel time (" + stats::formatFixed(ratio(l.cpuNs, l.kernelNs), 2)
                         + "x); the average kernel ran " + stats::formatDuration(l.kernelNs / static_cast<int64_t>(l.count)) + ".");
    if (l.cpuNs < l.kernelNs)
        f.evidence.push_back("In all the kernels ran longer than their launches took, so the costly launches are those of the short "
                             "kernels; the GPU was idle while the CPU worked for "
                             + percentText(ratio(in.overlap->gpuIdleWhileCpuBusyNs, window)) + " of the window.");
    f.columns = {"cuda_runtime/cuda_driver launch dur", "kernel dur", "correlation"};
    f.nextStep = "Launch fewer, larger kernels: fuse the small ops (torch.compile, a fused TileLang kernel) or capture the loop "
                 "with CUDA graphs so one launch replays them all.";
    f.impactNs = l.cpuNs;
    f.where.push_back({in.overlap->window.start, in.overlap->window.end, trace::kNoIndex});
    out.push_back(std::move(f));
}

} // namespace tilescope::findings::rules
