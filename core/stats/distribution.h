// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tilescope::stats {

// Count, extremes, nearest-rank percentiles and mean of a set of durations (ns). Percentiles are values
// of the set (no interpolation): the p-th is the smallest value with at least p% of the set at or below
// it, sorted[ceil(p / 100 * n) - 1]. All zero for an empty set.
struct Distribution
{
    uint64_t count = 0;
    int64_t min = 0, p50 = 0, p90 = 0, p99 = 0, max = 0;
    double mean = 0;
};

// The position of the nearest-rank `percent`-th percentile (1..100) in `count` sorted values (count > 0),
// in integers: a double's 0.99 * 200 is not 198.
size_t nearestRankIndex(size_t count, unsigned percent);
// The nearest-rank p-th percentile (0 < p <= 100) of ascending `sorted`; 0 when it is empty.
int64_t nearestRankPercentile(const std::vector<int64_t>& sorted, unsigned p);

// Summarizes `values` (reordering them), in linear time.
Distribution distributionOf(std::vector<int64_t> values);

} // namespace tilescope::stats
