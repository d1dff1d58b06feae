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

// A suspected leak in one sentence, for memory's text, diagnose's evidence and the app's headline: "cuda:0
// grew 23.0 MiB per step over 25 steps (alloc_round_3 .. alloc_round_27, 9 of them growing, 576.0 MiB in all
// since the end of alloc_round_0) and never gave it back". The growth counts from the end of the step before
// the first growing one: what the first step keeps is not counted (warm-up looks like that).
std::string leakSentence(const trace::Trace& trace, const memory::MemoryAnalysis& analysis, const memory::SuspectedLeak& leak);

} // namespace tilescope::report
