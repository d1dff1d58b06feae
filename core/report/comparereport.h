// SPDX-License-Identifier: MIT
#pragma once

#include "compare/compare.h"

#include <string>
#include <vector>

namespace tilescope::report {

// `tilescope-cli compare`: JSON {"a": SIDE, "b": SIDE, "ratio_b_over_a", "verdict"}, a SIDE being {"name",
// "calls", "gpu_us_per_call": {"mean", "median", "min", "max"}, "achieved_flops_per_s",
// "achieved_bytes_per_s", "class", "strength", then "kind", "total_gpu_us", "roof", "roof_share",
// "kernels", "call_ranges"}; ratio_b_over_a is b's mean GPU time per call over a's.
std::string compareJson(const compare::Comparison& c);
// One figure of both sides as text: the rows compareText prints and the app's Compare dock shows.
struct CompareRow
{
    std::string label, a, b;
};
std::vector<CompareRow> compareRows(const compare::Comparison& c);

// The compare as the shared report's lines (answer::AnswerInputs::compareLines): the verdict, the two
// sides, one line per figure, the ratio.
std::vector<std::string> compareLines(const compare::Comparison& c);

// The two sides in columns, each region's kernels, then the verdict.
std::string compareText(const compare::Comparison& c);

} // namespace tilescope::report
