// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/streamidle.h"

#include <string>

namespace tilescope::report {

// `tilescope-cli idle`: {"selection": null | {"start_us", "end_us"}, "kernel_wait_threshold_us", "streams":
// [{"device", "stream", "window_start_us", "window_end_us", "busy_us", "idle_us", "idle_share", "host_wait_us",
// "kernel_wait_us", "other_us", "host_wait_share", "kernel_wait_share", "other_share", "gaps": {"host_wait",
// "kernel_wait", "other"}}]}; idle_share is of the window, the three part shares are of the idle time.
std::string streamIdleJson(const analysis::StreamIdleReport& report);
// The same as a table; a trace without GPU activity gets one sentence.
// `untimed`: why a trace without GPU activity has none, where there is a reason (trace::profilerRangeText).
std::string streamIdleText(const analysis::StreamIdleReport& report, const std::string& untimed = {});

} // namespace tilescope::report
