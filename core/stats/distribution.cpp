// SPDX-License-Identifier: MIT
#include "stats/distribution.h"

#include <algorithm>
#include <array>

namespace tilescope::stats {

size_t nearestRankIndex(size_t count, unsigned percent)
{
    const size_t rank = (static_cast<size_t>(percent) * count + 99) / 100; // ceil(percent * count / 100), in integers
    return std::min(count, std::max<size_t>(rank, 1)) - 1;
}

int64_t nearestRankPercentile(const std::vector<int64_t>& sorted, unsigned p)
{
    return sorted.empty() ? 0 : sorted[nearestRankIndex(sorted.size(), p)];
}

Distribution distributionOf(std::vector<int64_t> values)
{
    Distribution d;
    if (values.empty())
        return d;
    d.count = values.size();
    // Selection instead of a full sort: each rank is put in place with the ranks below it to its left, so
    // the next selection only needs the part to its right (linear time; launch statistics run it per stream).
    const std::array<std::pair<unsigned, int64_t*>, 3> ranks{{{50, &d.p50}, {90, &d.p90}, {99, &d.p99}}};
    auto from = values.begin();
    for (const auto& [p, out] : ranks) {
        const auto at = values.begin() + static_cast<std::ptrdiff_t>(nearestRankIndex(values.size(), p));
        if (at >= from) {
            std::nth_element(from, at, values.end());
            from = at;
        }
        *out = *at;
    }
    const auto [lowest, highest] = std::minmax_element(values.begin(), values.end());
    d.min = *lowest;
    d.max = *highest;
    long double sum = 0;
    for (const int64_t v : values)
        sum += static_cast<long double>(v);
    d.mean = static_cast<double>(sum / static_cast<long double>(values.size()));
    return d;
}

} // namespace tilescope::stats
