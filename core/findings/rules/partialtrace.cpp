// SPDX-License-Identifier: MIT
#include "findings/rules.h"
#include "findings/rules/ruletext.h"
#include "trace/trace.h"

#include <algorithm>

namespace tilescope::findings::rules {

// A trace loaded in part (--partial, the app's Open Readable Part): every other finding, and every figure, is
// the readable part's. Kineto writes much of the GPU activity after the host events that launched it, so a cut
// file loses kernels first: launches without them read as an idle GPU, and allocations whose frees came later
// as growth.
void partialTrace(const trace::Trace& t, const DiagnoseInputs&, std::vector<Finding>& out)
{
    if (!t.stats.partial)
        return;
    Finding f;
    f.id = "partial-trace";
    f.title = "The trace is cut off: every figure is its readable part's";
    f.strength = Strength::Strong; // the file ends inside its JSON
    constexpr std::string_view kPrefix = "partial load: ";
    const auto warning = std::find_if(t.stats.warnings.begin(), t.stats.warnings.end(),
                                      [&](const std::string& w) { return w.starts_with(kPrefix); });
    // The loader's words without the file's name ("stopped at FILE: byte N: ..."): the finding is about that file.
    std::string where = warning != t.stats.warnings.end() ? warning->substr(kPrefix.size()) : std::string("ends early");
    if (const size_t byte = where.find("byte "); byte != std::string::npos)
        where = "stopped at " + where.substr(byte);
    f.evidence.push_back("Loading " + where + ".");
    // Calls that always start GPU work (a kernel or a graph's); a synchronize or cudaMalloc starts none.
    uint64_t launches = 0, withoutActivity = 0;
    for (uint32_t i = 0; i < t.events.size(); ++i) {
        const std::string_view n = t.name(t.events[i]);
        if (trace::isLaunchApi(t.events[i].kind)
            && (n.find("LaunchKernel") != std::string_view::npos || n.find("GraphLaunch") != std::string_view::npos)) {
            ++launches;
            withoutActivity += t.activitiesOf(i).empty();
        }
    }
    if (withoutActivity > 0)
        f.evidence.push_back(stats::formatCount(withoutActivity) + " of " + countText(launches, "kernel launch call", "kernel launch calls")
                             + " have no GPU activity in it: the kernels' records lie past the cut; GPU busy, idle and the kernels' "
                               "figures are missing there, not zero.");
    if (!t.memory.empty())
        f.evidence.push_back("Its " + countText(t.memory.size(), "[memory] record", "[memory] records")
                             + " stop where the file does: allocations freed after the cut read as growth.");
    f.columns = {"the file's end (where its JSON stops)", "cuda_runtime/cuda_driver correlation -> kernel, gpu_memcpy, gpu_memset"};
    f.nextStep = "Find the complete file or record again: a trace is cut when the run is killed, or the disk fills, while the "
                 "profiler writes it. Until then read the other findings as the readable part's.";
    f.where.push_back({t.firstTime(), t.lastTime(), trace::kNoIndex});
    out.push_back(std::move(f));
}

} // namespace tilescope::findings::rules
