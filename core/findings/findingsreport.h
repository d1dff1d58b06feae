// SPDX-License-Identifier: MIT
#pragma once

#include "findings/finding.h"

#include <string>
#include <vector>

namespace tilescope::trace {
class Trace;
}

namespace tilescope::findings {

// `tilescope-cli diagnose`: {"findings": [{"id", "title", "strength", "evidence": [...], "columns": [...],
// "next_step", "where": [{"start_us", "end_us", "event"}]}]}; times are the file's ts in microseconds, event
// the event's name or null.
std::string findingsJson(const trace::Trace& trace, const std::vector<Finding>& findings);
// The same findings for people: one block per finding, its evidence, columns, next step and ranges.
std::string findingsText(const trace::Trace& trace, const std::vector<Finding>& findings);

} // namespace tilescope::findings
