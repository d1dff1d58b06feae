// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <iterator>

namespace tilescope::trace {

// std::lower_bound over the sorted range [first, last), searched outward from `hint` (in [first, last])
// by doubling steps, then by bisection inside the bracket found: log(distance from the hint) comparisons
// instead of log(n), and the probes stay near the hint in memory. For lookups whose keys mostly rise, as
// a trace's events in file order do against a time- or id-sorted array: the previous answer is the hint.
template <typename It, typename T, typename Less> It gallopLowerBound(It first, It last, It hint, const T& value, Less less)
{
    using Diff = typename std::iterator_traits<It>::difference_type;
    It low = first, high = last; // the answer is in [low, high]
    if (hint != last && less(*hint, value)) {
        low = std::next(hint);
        const Diff ahead = std::distance(hint, last);
        for (Diff step = 1; step < ahead; step *= 2) {
            const It probe = std::next(hint, step);
            if (!less(*probe, value)) {
                high = probe;
                break;
            }
            low = std::next(probe);
        }
    } else {
        high = hint;
        const Diff behind = std::distance(first, hint);
        for (Diff step = 1; step <= behind; step *= 2) {
            const It probe = std::prev(hint, step);
            if (less(*probe, value)) {
                low = std::next(probe);
                break;
            }
            high = probe;
        }
    }
    return std::lower_bound(low, high, value, less);
}

// std::upper_bound the same way: the first element greater than `value`.
template <typename It, typename T, typename Less> It gallopUpperBound(It first, It last, It hint, const T& value, Less less)
{
    return gallopLowerBound(first, last, hint, value, [&less](const auto& element, const T& v) { return !less(v, element); });
}

} // namespace tilescope::trace
