// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/breakdown.h"

#include <string>

namespace tilescope::report {

// `tilescope-cli breakdown`: {"window_start_us", "window_end_us", "devices": [{"device", "compute_us",
// "non_compute_us", "idle_us", "compute_share", "non_compute_share", "idle_share", "kinds": {"computation_us",
// "communication_us", "memory_us", "computation_communication_overlap_us", "computation_memory_overlap_us",
// "communication_memory_overlap_us", "communication_overlapped_share"}}]}.
std::string breakdownJson(const analysis::BreakdownReport& report);
// The same as two tables: the temporal breakdown and the kernel types; a trace without GPU activity gets one sentence.
// `untimed`: why a trace without GPU activity has none, where there is a reason (trace::profilerRangeText).
std::string breakdownText(const analysis::BreakdownReport& report, const std::string& untimed = {});

} // namespace tilescope::report
