// SPDX-License-Identifier: MIT
#pragma once

#include "stats/keyaverages.h"

#include <optional>
#include <string>

namespace tilescope::report {

struct SummarySelection
{
    std::optional<stats::SortKey> sortBy;
    int rowLimit = -1; // -1: all rows
};

// `tilescope-cli summary --format json`: the field names of torch's ref_key_averages.json rows.
std::string summaryJson(const std::string& tracePath, const stats::KeyAverages& averages, const SummarySelection& selection);
// The same rows as CSV with a header line.
std::string summaryCsv(const stats::KeyAverages& averages, const SummarySelection& selection);

} // namespace tilescope::report
