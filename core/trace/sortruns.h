// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <vector>

namespace tilescope::trace {

// Sorts [first, last) by `less` (a strict weak order), stably, and much faster than std::sort when the
// range is a few ascending runs laid end to end, as a trace's ids are (each thread issues them in order)
// and as the lanes of a trace are once each is in time order: the runs are found in one pass and merged
// pairwise, n log(runs) moves instead of n log(n) comparisons. With many runs it is std::stable_sort.
template <typename It, typename Less> void sortRuns(It first, It last, Less less)
{
    const auto n = static_cast<size_t>(std::distance(first, last));
    if (n < 2)
        return;
    const size_t maxRuns = std::max<size_t>(16, n / 256); // beyond this a plain sort wins
    std::vector<size_t> bounds{0};
    for (size_t i = 1; i < n; ++i) {
        if (!less(first[i], first[i - 1]))
            continue;
        if (bounds.size() == maxRuns) {
            std::stable_sort(first, last, less);
            return;
        }
        bounds.push_back(i);
    }
    bounds.push_back(n);
    // bounds: the runs' starts and then n. Adjacent runs merged in place, a run without a partner carried.
    std::vector<size_t> merged;
    while (bounds.size() > 2) {
        merged.assign(1, 0);
        const size_t runs = bounds.size() - 1;
        for (size_t k = 0; k + 2 <= runs; k += 2) {
            std::inplace_merge(first + bounds[k], first + bounds[k + 1], first + bounds[k + 2], less);
            merged.push_back(bounds[k + 2]);
        }
        if (runs % 2 == 1)
            merged.push_back(n);
        bounds.swap(merged);
    }
}

} // namespace tilescope::trace
