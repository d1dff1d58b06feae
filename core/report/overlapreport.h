// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/overlap.h"
#include "io/smalljson.h"

#include <string>

namespace tilescope::report {

struct OverlapReportOptions
{
    bool windowGiven = false; // --window: say so, instead of describing the default window
    bool allDevices = false;  // also list devices with no GPU activity anywhere in the trace
};

// `tilescope-cli overlap`: the JSON holds every figure the table prints.
std::string overlapJson(const trace::Trace& trace, const analysis::OverlapReport& report, const OverlapReportOptions& options = {});
// The object overlapJson prints; `diff` puts one per trace in its JSON.
io::Json overlapJsonObject(const trace::Trace& trace, const analysis::OverlapReport& report, const OverlapReportOptions& options = {});
std::string overlapText(const trace::Trace& trace, const analysis::OverlapReport& report, const OverlapReportOptions& options = {});

// The launch-cost line, with the launch-bound verdict and the counts it rests on in one sentence so they
// cannot disagree: "launch-bound: 5,604 of 8,772 kernel launches cost at least 80% of their kernel's time",
// without the "launch-bound: " prefix when OverlapReport::launchBound() is false, and then, where most
// launches were costly, why not ("..., but the GPU was idle while the CPU worked for only 2.1% of the window");
// "no kernel launches" when there are none. Used by the CLI table, the findings and the app's figures line.
std::string launchCostText(const analysis::OverlapReport& report);
// "the trace spans 365.303ms, most of it with no op, CUDA call or kernel recorded" where the trace's span is
// over twice the first-to-last-activity `window` (a JIT compile or Python code before the first op), so that
// the window's figures are not read as the whole run's; empty otherwise. overlap's text and the GUI's summary.
std::string mostlyUnrecordedText(const trace::Trace& trace, const analysis::Interval& window);

} // namespace tilescope::report
