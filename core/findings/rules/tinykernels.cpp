// SPDX-License-Identifier: MIT
#include "findings/rules.h"
#include "findings/rules/ruletext.h"
#include "findings/thresholds.h"
#include "stats/timetext.h"
#include "trace/trace.h"

#include <algorithm>
#include <map>

namespace tilescope::findings::rules {

// Many kernels shorter than the launch latency: each costs more to launch than to run.
void tinyKernels(const trace::Trace& t, const DiagnoseInputs& in, std::vector<Finding>& out)
{
    uint64_t kernels = 0, tiny = 0;
    int64_t tinyNs = 0, launchNs = 0;
    uint32_t first = trace::kNoIndex, last = trace::kNoIndex;
    std::map<std::string_view, uint64_t> byName;
    for (uint32_t i = 0; i < t.events.size(); ++i) {
        const trace::Event& e = t.events[i];
        if (e.kind != trace::EventKind::Kernel || !inWindow(in, e))
            continue;
        ++kernels;
        if (e.duration >= thresholds::kTinyKernelNs)
            continue;
        ++tiny;
        tinyNs += e.duration;
        ++byName[t.name(e)];
        if (const uint32_t launch = t.launchOf(i); launch != trace::kNoIndex)
            launchNs += t.events[launch].duration;
        if (first == trace::kNoIndex || e.start < t.events[first].start)
            first = i;
        if (last == trace::kNoIndex || e.end() > t.events[last].end())
            last = i;
    }
    if (tiny < thresholds::kTinyKernelsMinCount
        || static_cast<double>(tiny) < thresholds::kTinyKernelsMinShare * static_cast<double>(kernels))
        return;
    Finding f;
    f.id = "tiny-kernels";
    f.title = "Many kernels run shorter than a launch takes";
    // Launch calls that cost more CPU than the kernels run leave no other reading; otherwise the launches may
    // be hidden behind longer kernels queued earlier.
    f.strength = launchNs >= tinyNs ? Strength::Strong : Strength::Weak;
    f.evidence.push_back(stats::formatCount(tiny) + " of " + countText(kernels, "kernel", "kernels") + " ("
                         + percentText(ratio(static_cast<int64_t>(tiny), static_cast<int64_t>(kernels))) + ") ran shorter than "
                         + stats::formatDuration(thresholds::kTinyKernelNs) + ", " + stats::formatDuration(tinyNs)
                         + " of GPU time in all; their launch calls took " + stats::formatDuration(launchNs) + " of CPU time.");
    std::vector<std::pair<std::string_view, uint64_t>> names(byName.begin(), byName.end());
    std::stable_sort(names.begin(), names.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    std::string most;
    for (size_t k = 0; k < names.size() && k < 3; ++k)
        most += (k ? "; " : "") + std::string(names[k].first) + " x" + stats::formatCount(names[k].second);
    f.evidence.push_back("Most frequent: " + most + ".");
    f.columns = {"kernel dur", "cuda_runtime/cuda_driver launch dur", "correlation"};
    f.nextStep = "Fuse the small ops into fewer kernels (torch.compile, a fused TileLang kernel) or capture them in a CUDA graph; "
                 "batch the work so each kernel does more.";
    f.impactNs = launchNs;
    f.where.push_back({t.events[first].start, t.events[last].end(), trace::kNoIndex});
    f.where.push_back({t.events[first].start, t.events[first].end(), first});
    out.push_back(std::move(f));
}

} // namespace tilescope::findings::rules
