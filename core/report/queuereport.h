// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/queuelength.h"

#include <string>

namespace tilescope::report {

struct QueueReportOptions
{
    bool series = false; // add each stream's step series
};

// `tilescope-cli queue`: {"selection": null | {"start_us", "end_us"}, "limit", "activities_without_launch",
// "streams": [{"device", "stream", "operations", "window_start_us", "window_end_us", "max", "mean", "median",
// "p95", "full_us", "blocked_us", "time_at_length": [{"length", "us", "share"}], "series": [[ts_us, length], …]
// (with --series)}]}.
std::string queueJson(const analysis::QueueReport& report, QueueReportOptions options = {});
// The summary as a table; with --series each stream's changes follow, one "ts_us length" line each.
std::string queueText(const analysis::QueueReport& report, QueueReportOptions options = {});

} // namespace tilescope::report
