// SPDX-License-Identifier: MIT
#include "findings/rules.h"
#include "findings/rules/ruletext.h"
#include "trace/trace.h"

namespace tilescope::findings::rules {

// A trace loaded in part (--partial, the app's Open Readable Part): every other finding, and every figure, is
// the readable part's. Kineto writes much of the GPU activity after the host events that launched it, so a cut
// file loses kernels first: launches without them read as an idle GPU, and allocations whose frees came later
// as growth. With a window, the launches counted are those that start in it; the cut is the file's.
void partialTrace(const trace::Trace& t, const DiagnoseInputs& in, std::vector<Finding>& out)
{
    if (!t.stats.partial)
        return;
    Finding f;
    f.id = "partial-trace";
    f.title = "The trace is cut off: every figure is its readable part's";
    f.strength = Strength::Strong; // the file ends inside its JSON
    std::string stop = "Loading stopped";
    if (t.stats.partialStopOffset)
        stop += " at byte " + std::to_string(*t.stats.partialStopOffset); // as the loader writes offsets
    if (!t.stats.partialStopReason.empty())
        stop += ": " + t.stats.partialStopReason;
    f.evidence.push_back(stop + "; " + countText(t.events.size() + t.memory.size(), "complete event was", "complete events were")
                         + " kept.");
    uint64_t launches = 0, withoutActivity = 0;
    for (uint32_t i = 0; i < t.events.size(); ++i) {
        const trace::Event& e = t.events[i];
        if (trace::isLaunchApi(e.kind) && trace::launchesGpuWork(t.name(e)) && inWindow(in, e)) {
            ++launches;
            withoutActivity += t.activitiesOf(i).empty();
        }
    }
    f.columns = {"the file's end (where its JSON stops)"};
    if (withoutActivity > 0) {
        f.evidence.push_back(stats::formatCount(withoutActivity) + " of " + countText(launches, "kernel launch call", "kernel launch calls")
                             + (in.window ? " in the window" : "")
                             + " have no GPU activity in the readable part: their kernels' records lie past the cut; GPU busy, "
                               "idle and the kernels' figures are missing there, not zero.");
        f.columns.push_back("cuda_runtime/cuda_driver correlation -> kernel, gpu_memcpy, gpu_memset");
    }
    if (!t.memory.empty()) {
        f.evidence.push_back("The trace's " + countText(t.memory.size(), "[memory] record", "[memory] records")
                             + " stop where the file does: allocations freed after the cut read as growth.");
        f.columns.push_back("[memory] Total Allocated");
    }
    f.nextStep = "Find the complete file or record again: a trace is cut when the run is killed, or the disk fills, while the "
                 "profiler writes it. Until then read the other findings as the readable part's.";
    if (!t.events.empty() || !t.memory.empty())
        f.where.push_back({t.firstTime(), t.lastTime(), trace::kNoIndex});
    out.push_back(std::move(f));
}

} // namespace tilescope::findings::rules
