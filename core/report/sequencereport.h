// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/kernelsequences.h"

#include <string>

namespace tilescope::trace {
class Trace;
}

namespace tilescope::report {

// `tilescope-cli sequences`: {"window_start_us", "window_end_us" (null for the whole trace), "kernels", "kernels_with_op",
// "kernel_time_us", "min_length", "max_length", "rule", "sequences": [{"length", "occurrences", "kernels", "gpu_time_us",
// "gpu_time_per_occurrence_us", "share_of_kernel_time", "elementwise", "fusion_candidate", "next_step", "steps": [{"op", "kernel"}],
// "first_occurrences": [{"event", "start_us"}]}]} ("first_occurrences": at most five, by time; "event" is
// the sequence's first kernel as TileScope numbers events; "next_step" is null unless a fusion candidate).
std::string sequencesJson(const trace::Trace& trace, const analysis::KernelSequenceReport& report);
// The same as a table, each sequence's steps listed under it.
std::string sequencesText(const trace::Trace& trace, const analysis::KernelSequenceReport& report);

// The selection rule in words.
std::string sequenceRuleText(const analysis::KernelSequenceOptions& options);

} // namespace tilescope::report
