// SPDX-License-Identifier: MIT
#include "findings/diagnose.h"

#include "findings/rules.h"
#include "memory/memoryanalysis.h"

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
    };
    return list;
}

std::vector<Finding> diagnose(const trace::Trace& trace, const DiagnoseInputs& inputs)
{
    DiagnoseInputs in = inputs;
    std::vector<uint32_t> steps;
    if (!in.steps) {
        steps = memory::findStepEvents(trace);
        in.steps = &steps;
    }
    std::vector<Finding> out;
    for (const Rule& rule : allRules())
        rule.run(trace, in, out);
    return out;
}

} // namespace tilescope::findings
