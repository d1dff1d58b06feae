// SPDX-License-Identifier: MIT
#include "findings/diagnose.h"

#include "findings/rules.h"
#include "analysis/steps.h"
#include "memory/memoryanalysis.h"

#include <algorithm>

namespace tilescope::findings {

std::string_view strengthName(Strength strength)
{
    switch (strength) {
    case Strength::Strong: return "strong";
    case Strength::Weak: return "weak";
    case Strength::Provisional: return "provisional";
    }
    return "provisional";
}

const std::vector<Rule>& allRules()
{
    static const std::vector<Rule> list{
        {"launch-bound", rules::launchBound},       {"gpu-idle", rules::gpuIdle},
        {"dominant-kernel", rules::dominantKernel}, {"warmup-in-window", rules::warmupInWindow},
        {"sync-stall", rules::syncStall},           {"pageable-memcpy", rules::pageableMemcpy},
        {"tiny-kernels", rules::tinyKernels},       {"memory-growth", rules::memoryGrowth},
        {"out-of-memory", rules::outOfMemory},      {"cuda-graph", rules::cudaGraph},
        {"partial-trace", rules::partialTrace},
    };
    return list;
}

std::vector<Finding> diagnose(const trace::Trace& trace, const DiagnoseInputs& inputs)
{
    DiagnoseInputs in = inputs;
    std::vector<analysis::Step> steps;
    if (!in.steps) {
        steps = analysis::findSteps(trace);
        in.steps = &steps;
    }
    // In a window: the steps that start inside it.
    std::vector<analysis::Step> windowSteps;
    if (in.window) {
        for (const analysis::Step& s : *in.steps)
            if (s.start >= in.window->start && s.start < in.window->end)
                windowSteps.push_back(s);
        in.steps = &windowSteps;
    }
    std::vector<Finding> out;
    for (const Rule& rule : allRules())
        rule.run(trace, in, out);
    // By impact: a cut trace first (every other finding is its readable part's), a failed allocation next (the
    // run did not finish), then the most time at stake; ties keep the rules' order.
    std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
        const bool aCut = a.id == "partial-trace", bCut = b.id == "partial-trace";
        if (aCut != bCut)
            return aCut;
        const bool aOom = a.id == "out-of-memory", bOom = b.id == "out-of-memory";
        if (aOom != bOom)
            return aOom;
        return a.impactNs > b.impactNs;
    });
    return out;
}

} // namespace tilescope::findings
