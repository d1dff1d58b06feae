// SPDX-License-Identifier: MIT
#pragma once

#include "findings/diagnose.h"
#include "stats/torchtable.h"
#include "trace/trace.h"

#include <cstdint>
#include <string>

// Number texts the rules' sentences share.
namespace tilescope::findings::rules {

inline double ratio(int64_t part, int64_t whole) { return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0; }
// An event the findings may count: it starts inside the window (DiagnoseInputs::window), or there is none.
inline bool inWindow(const DiagnoseInputs& in, const trace::Event& e)
{
    return !in.window || (e.start >= in.window->start && e.start < in.window->end);
}
inline bool inWindow(const DiagnoseInputs& in, int64_t time) { return !in.window || (time >= in.window->start && time < in.window->end); }
// "42.1%"
inline std::string percentText(double share) { return stats::formatFixed(100.0 * share, 1) + "%"; }
// "1 call", "3 calls" with the count's thousands separators.
inline std::string countText(uint64_t n, const char* one, const char* many) { return stats::formatCount(n) + " " + (n == 1 ? one : many); }
// Bytes over ns as "12.3 GB/s" (decimal, as bandwidth datasheets write it).
inline std::string rateText(double bytes, int64_t ns)
{
    return ns > 0 ? stats::formatFixed(bytes / static_cast<double>(ns), 2) + " GB/s" : std::string("-");
}

} // namespace tilescope::findings::rules
