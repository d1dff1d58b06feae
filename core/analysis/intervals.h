// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <vector>

namespace tilescope::analysis {

struct Interval
{
    int64_t start;
    int64_t end;
};

// Sorted, non-overlapping, non-touching intervals: the union of what went in.
// Contract: normalize() sorts by start and merges overlapping or adjacent intervals, O(n log n);
// the set operations then run in one linear merge pass.
class IntervalSet
{
public:
    IntervalSet() = default;
    static IntervalSet fromUnsorted(std::vector<Interval> intervals);

    const std::vector<Interval>& intervals() const { return m_intervals; }
    int64_t length() const;
    IntervalSet clippedTo(Interval window) const;
    // |this ∩ window| in O(log n + intervals in the window), without building the clipped set.
    int64_t lengthWithin(Interval window) const;
    IntervalSet intersection(const IntervalSet& other) const;
    IntervalSet unionWith(const IntervalSet& other) const;

private:
    std::vector<Interval> m_intervals;
};

} // namespace tilescope::analysis
