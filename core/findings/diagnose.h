// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/intervals.h"
#include "findings/finding.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace tilescope::trace {
class Trace;
}
namespace tilescope::stats {
struct KeyAverages;
}
namespace tilescope::analysis {
struct OverlapReport;
struct Step;
} // namespace tilescope::analysis
namespace tilescope::memory {
struct MemoryAnalysis;
}
namespace tilescope::roofline {
struct ClassifyReport;
}

namespace tilescope::findings {

// What the caller has already computed for the trace (the CLI and TraceDocument compute each once); a rule
// whose input is missing (nullptr) says nothing.
struct DiagnoseInputs
{
    const stats::KeyAverages* averages = nullptr;
    const analysis::OverlapReport* overlap = nullptr; // computeOverlap with the default window
    const memory::MemoryAnalysis* memory = nullptr;
    const roofline::ClassifyReport* classification = nullptr;
    // The steps by start (analysis::findSteps); nullptr: diagnose finds them.
    const std::vector<analysis::Step>* steps = nullptr;
    // The time range the findings are about (a Shift+drag range, --window); unset: the whole trace. Events
    // are counted when they start inside it; `averages` and `overlap` must be computed for the same range.
    std::optional<analysis::Interval> window;
};

using RuleFunction = void (*)(const trace::Trace&, const DiagnoseInputs&, std::vector<Finding>&);

struct Rule
{
    std::string_view id;
    RuleFunction run;
};

// The rules; their findings are listed by impact (Finding::impactNs), ties in this order.
const std::vector<Rule>& allRules();

// Every rule over the trace (or DiagnoseInputs::window): zero or more findings each, a partial trace first, out-of-memory next,
// then by the time at stake.
std::vector<Finding> diagnose(const trace::Trace& trace, const DiagnoseInputs& inputs);

} // namespace tilescope::findings
