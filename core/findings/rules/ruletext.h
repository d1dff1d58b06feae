// SPDX-License-Identifier: MIT
#pragma once

#include "stats/torchtable.h"

#include <cstdint>
#include <string>

// Number texts the rules' sentences share.
namespace tilescope::findings::rules {

inline double ratio(int64_t part, int64_t whole) { return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0; }
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
