// SPDX-License-Identifier: MIT
#include "analysis/intervals.h"

#include <algorithm>

namespace tilescope::analysis {

IntervalSet IntervalSet::fromUnsorted(std::vector<Interval> intervals)
{
    std::erase_if(intervals, [](const Interval& i) { return i.end <= i.start; });
    std::sort(intervals.begin(), intervals.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
    IntervalSet set;
    for (const Interval& i : intervals) {
        if (!set.m_intervals.empty() && i.start <= set.m_intervals.back().end)
            set.m_intervals.back().end = std::max(set.m_intervals.back().end, i.end);
        else
            set.m_intervals.push_back(i);
    }
    return set;
}

int64_t IntervalSet::length() const
{
    int64_t total = 0;
    for (const Interval& i : m_intervals)
        total += i.end - i.start;
    return total;
}

IntervalSet IntervalSet::clippedTo(Interval window) const
{
    IntervalSet out;
    for (const Interval& i : m_intervals) {
        const int64_t s = std::max(i.start, window.start);
        const int64_t e = std::min(i.end, window.end);
        if (s < e)
            out.m_intervals.push_back({s, e});
    }
    return out;
}

int64_t IntervalSet::lengthWithin(Interval w) const
{
    // From the first interval that ends after the window's start.
    auto it = std::upper_bound(m_intervals.begin(), m_intervals.end(), w.start, [](int64_t t, const Interval& i) { return t < i.end; });
    int64_t total = 0;
    for (; it != m_intervals.end() && it->start < w.end; ++it)
        total += std::min(it->end, w.end) - std::max(it->start, w.start);
    return total;
}

IntervalSet IntervalSet::intersection(const IntervalSet& other) const
{
    IntervalSet out;
    size_t a = 0, b = 0;
    const auto& x = m_intervals;
    const auto& y = other.m_intervals;
    while (a < x.size() && b < y.size()) {
        const int64_t s = std::max(x[a].start, y[b].start);
        const int64_t e = std::min(x[a].end, y[b].end);
        if (s < e)
            out.m_intervals.push_back({s, e});
        if (x[a].end < y[b].end)
            ++a;
        else
            ++b;
    }
    return out;
}

IntervalSet IntervalSet::unionWith(const IntervalSet& other) const
{
    std::vector<Interval> all = m_intervals;
    all.insert(all.end(), other.m_intervals.begin(), other.m_intervals.end());
    return fromUnsorted(std::move(all));
}

} // namespace tilescope::analysis
