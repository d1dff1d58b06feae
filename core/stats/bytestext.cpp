// SPDX-License-Identifier: MIT
#include "stats/bytestext.h"

#include <cstdio>
#include <cstdlib>

namespace tilescope::stats {

std::string formatBytes(int64_t bytes)
{
    static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    const char* sign = bytes < 0 ? "-" : "";
    // The magnitude as unsigned so INT64_MIN has one too.
    const uint64_t magnitude = bytes < 0 ? uint64_t(0) - uint64_t(bytes) : uint64_t(bytes);
    if (magnitude < 1024)
        return sign + std::to_string(magnitude) + " B";
    double value = double(magnitude);
    int unit = 0;
    while (value >= 1024 && unit < 6) {
        value /= 1024;
        ++unit;
    }
    // Rounding may reach the next unit: 1023.96 KiB prints as "1.00 MiB", not "1024 KiB".
    if (value >= 999.95 && unit < 6) {
        value /= 1024;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, value >= 10 ? "%s%.1f %s" : "%s%.2f %s", sign, value, kUnits[unit]);
    return text;
}

} // namespace tilescope::stats
