// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/launchstats.h"

#include <cstddef>
#include <string>

namespace tilescope::trace {
class Trace;
}

namespace tilescope::report {

// `tilescope-cli launches`: {"window_start_us", "window_end_us", "launches", "apis": {NAME: COUNT},
// "definitions": {...}, "all": STREAM, "streams": [STREAM], "short_kernels": {"rule", "count", "outliers":
// [OUTLIER]}, "long_delays": {...}} where STREAM = {"device", "stream", "launches", "cpu_duration": DIST,
// "gpu_duration": DIST, "launch_delay": DIST}, DIST = {"count", "min_us", "p50_us", "p90_us", "p99_us",
// "max_us", "mean_us"} and OUTLIER = {"launch_event", "activity_event", "launch_name", "kernel_name",
// "device", "stream", "launch_start_us", "kernel_start_us", "cpu_duration_us", "gpu_duration_us",
// "launch_delay_us"} (the events as TileScope numbers them, in load order; the start times locate them anywhere).
// At most `outliers` outliers of each kind are listed; "count" is all of them.
std::string launchStatsJson(const trace::Trace& trace, const analysis::LaunchStats& stats, size_t outliers);
// The same as tables: per-stream distributions, then the listed outliers.
std::string launchStatsText(const trace::Trace& trace, const analysis::LaunchStats& stats, size_t outliers);

} // namespace tilescope::report
