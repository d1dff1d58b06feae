// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/ranks.h"

#include <string>

namespace tilescope::report {

// `tilescope-cli ranks`: {"world_size", "ranks": [{"rank", "file", "steps", "step_us_median", "gpu_busy_us",
// "compute_us_per_step", "collective_wait_us_per_step", and the evidence: "collective_wait_us_median",
// "collective_source", "comm_comp_overlap", "wait_vs_others", "straggler"}], "stragglers": [RANK, ...], "rule"}.
// "wait_vs_others" is null where the rule does not apply (one rank, or a rank without collectives).
std::string ranksJson(const analysis::RanksReport& report);
// The same as a table, the rule and its verdict in words.
std::string ranksText(const analysis::RanksReport& report);

} // namespace tilescope::report
