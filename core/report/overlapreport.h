// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/overlap.h"

#include <string>

namespace tilescope::report {

// `tilescope-cli overlap`: the JSON, and a table for people.
std::string overlapJson(const analysis::OverlapReport& report);
std::string overlapText(const trace::Trace& trace, const analysis::OverlapReport& report);

} // namespace tilescope::report
