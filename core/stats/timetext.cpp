// SPDX-License-Identifier: MIT
#include "stats/timetext.h"

#include "stats/torchtable.h"

namespace tilescope::stats {

std::string formatDuration(int64_t ns) { return formatTorchTime(static_cast<double>(ns) / 1000.0); }

std::string formatMicroseconds(int64_t ns)
{
    const bool negative = ns < 0;
    const uint64_t magnitude = negative ? uint64_t(0) - uint64_t(ns) : uint64_t(ns);
    std::string fraction = std::to_string(magnitude % 1000);
    fraction.insert(0, 3 - fraction.size(), '0');
    return (negative ? "-" : "") + std::to_string(magnitude / 1000) + "." + fraction;
}

} // namespace tilescope::stats
