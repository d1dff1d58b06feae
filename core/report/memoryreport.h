// SPDX-License-Identifier: MIT
#pragma once

#include "memory/memoryanalysis.h"

#include <string>

namespace tilescope::report {

struct MemoryReportOptions
{
    bool events = false; // --events: every allocation paired with its free
};

// `tilescope-cli memory TRACE`: the JSON of issue #11 (devices, ooms, steps, suspected_leak,
// top_allocators, live_at_end; "events" with --events); times are the trace's `ts` in microseconds, as
// in the file. Steps report the primary device (MemoryAnalysis::primaryDevice).
std::string memoryJson(const trace::Trace& trace, const memory::MemoryAnalysis& analysis, const MemoryReportOptions& options = {});
std::string memoryText(const trace::Trace& trace, const memory::MemoryAnalysis& analysis, const MemoryReportOptions& options = {});

} // namespace tilescope::report
