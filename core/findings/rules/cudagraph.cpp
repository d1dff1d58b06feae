// SPDX-License-Identifier: MIT
#include "findings/rules.h"
#include "findings/rules/ruletext.h"
#include "stats/timetext.h"
#include "trace/trace.h"

namespace tilescope::findings::rules {

// CUDA graph launches: how many kernels each replays, and the launch cost that saves against the trace's
// own ordinary launches.
void cudaGraph(const trace::Trace& t, const DiagnoseInputs& in, std::vector<Finding>& out)
{
    uint64_t graphLaunches = 0, replayed = 0, ordinary = 0;
    int64_t graphNs = 0, ordinaryNs = 0;
    std::vector<uint32_t> launches;
    for (uint32_t i = 0; i < t.events.size(); ++i) {
        const trace::Event& e = t.events[i];
        if (!trace::isLaunchApi(e.kind) || !inWindow(in, e))
            continue;
        const std::string_view n = t.name(e);
        uint64_t kernels = 0;
        for (const uint32_t a : t.activitiesOf(i))
            kernels += t.events[a].kind == trace::EventKind::Kernel;
        if (n.starts_with("cudaGraphLaunch") || n.starts_with("cuGraphLaunch")) {
            ++graphLaunches;
            replayed += kernels;
            graphNs += e.duration;
            launches.push_back(i);
        } else if (kernels == 1) {
            ++ordinary;
            ordinaryNs += e.duration;
        }
    }
    if (graphLaunches == 0)
        return;
    Finding f;
    f.id = "cuda-graph";
    f.title = "CUDA graph launches replay the kernels";
    f.strength = Strength::Strong; // the calls are in the trace
    f.evidence.push_back(countText(graphLaunches, "graph launch", "graph launches") + " replayed "
                         + countText(replayed, "kernel", "kernels") + ", "
                         + stats::formatFixed(static_cast<double>(replayed) / static_cast<double>(graphLaunches), 1)
                         + " per launch; the launch calls took " + stats::formatDuration(graphNs) + " of CPU time.");
    if (ordinary > 0 && replayed > 0) {
        const int64_t perOrdinary = ordinaryNs / static_cast<int64_t>(ordinary);
        const int64_t asOrdinary = perOrdinary * static_cast<int64_t>(replayed);
        const std::string oneByOne = "Launched one by one at this trace's " + stats::formatDuration(perOrdinary) + " per launch ("
            + countText(ordinary, "single-kernel launch", "single-kernel launches") + "), they would have cost "
            + stats::formatDuration(asOrdinary) + " of CPU";
        f.evidence.push_back(asOrdinary >= graphNs
                                 ? oneByOne + ": the graphs save about " + stats::formatDuration(asOrdinary - graphNs) + "."
                                 : oneByOne + ": the graph launches cost " + stats::formatDuration(graphNs - asOrdinary)
                                     + " more, so graphs this small do not pay off.");
    }
    f.columns = {"cuda_runtime cudaGraphLaunch dur", "kernel correlation"};
    f.nextStep = "Nothing to fix: the launch cost is already amortised. Kernels outside the graphs (the single launches) are the "
                 "candidates for capture.";
    for (size_t k = 0; k < launches.size() && k < 20; ++k)
        f.where.push_back({t.events[launches[k]].start, t.events[launches[k]].end(), launches[k]});
    out.push_back(std::move(f));
}

} // namespace tilescope::findings::rules
