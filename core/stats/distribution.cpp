// SPDX-License-Identifier: MIT
#include "stats/distribution.h"

#include <algorithm>
#include <cmath>

namespace tilescope::stats {

int64_t nearestRankPercentile(const std::vector<int64_t>& sorted, double p)
{
    if (sorted.empty())
        return 0;
    const double rank = std::ceil(p / 100.0 * static_cast<double>(sorted.size()));
    const size_t index = rank < 1 ? 0 : std::min(sorted.size(), static_cast<size_t>(rank)) - 1;
    return sorted[index];
}

Distribution distributionOf(std::vector<int64_t> values)
{
    Distribution d;
    if (values.empty())
        return d;
    std::sort(values.begin(), values.end());
    d.count = values.size();
    d.min = values.front();
    d.max = values.back();
    d.p50 = nearestRankPercentile(values, 50);
    d.p90 = nearestRankPercentile(values, 90);
    d.p99 = nearestRankPercentile(values, 99);
    long double sum = 0;
    for (const int64_t v : values)
        sum += static_cast<long double>(v);
    d.mean = static_cast<double>(sum / static_cast<long double>(values.size()));
    return d;
}

} // namespace tilescope::stats
