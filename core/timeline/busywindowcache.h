// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/intervals.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace tilescope::timeline {

// The busy lanes' per-pixel coverage from cached, padded windows (the busy counterpart of
// DrawWindowCache): per interval set, the busy nanoseconds of each bucket of a window three times the
// view's span, with buckets of a quarter of the view's ns per pixel rounded down to a power of two (at
// least 1 ns). Bucket edges lie on multiples of the bucket width in absolute time and bucket sums are
// integer ns, so a bucket's content does not depend on the window that holds it: a frame from a kept
// window equals one from a window built for this view, bit for bit.
//
// A pixel's coverage is the busy time between its edges over its width, the busy time up to an edge
// interpolated linearly inside the edge's bucket. Against the exact coverage (TimelineIndex::coverage)
// that errs by at most a quarter of a bucket per edge: |difference| <= bucketWidth / (2 * nsPerPixel),
// at most 1/8 of a pixel, and none at all below 4 ns per pixel (1 ns buckets on integer ns intervals).
//
// A view with fewer than directBelow() intervals per pixel (2 by default) is computed directly and
// exactly (TimelineIndex::coverage): there a pass over its few intervals costs less than the buckets.
// The choice depends on the view alone, so kept and fresh windows still give the same floats.
//
// Disabled, every request computes TimelineIndex::coverage directly: the behaviour before the cache.
class BusyWindowCache
{
public:
    struct Stats
    {
        uint64_t requests = 0;
        uint64_t builds = 0; // windows built (or direct computations when disabled)
        double buildMs = 0;
    };
    static constexpr int kBucketsPerPixel = 4; // at least this many buckets per pixel

    // The bucket width at nsPerPixel: powerOfTwoAtOrBelow(nsPerPixel) / kBucketsPerPixel, at least 1 ns.
    static int64_t bucketWidth(double nsPerPixel);

    // Busy fraction (0..1) of each of `pixels` pixels of nsPerPixel from t0 on.
    std::vector<float> coverage(const analysis::IntervalSet& set, int64_t t0, double nsPerPixel, int pixels);

    void setDirectBelow(double intervalsPerPixel) { m_directBelow = intervalsPerPixel; }
    double directBelow() const { return m_directBelow; }
    void setEnabled(bool enabled);
    bool enabled() const { return m_enabled; }
    // The sets changed (they are keyed by address): every window is dropped.
    void clear() { m_windows.clear(); }
    size_t windowCount() const { return m_windows.size(); }
    const Stats& stats() const { return m_stats; }
    void resetStats() { m_stats = {}; }

private:
    struct Window
    {
        int64_t width = 0;               // bucket width, ns
        int64_t firstBucket = 0;         // absolute index of bucket 0 (its start is firstBucket * width)
        std::vector<int64_t> busy;       // busy ns of each bucket
        std::vector<int64_t> busyBefore; // busy ns before each bucket edge; one more than busy
        int64_t start() const { return firstBucket * width; }
        int64_t end() const { return (firstBucket + int64_t(busy.size())) * width; }
    };
    static Window build(const analysis::IntervalSet& set, int64_t t0, int64_t t1, int64_t width);

    std::map<const analysis::IntervalSet*, Window> m_windows;
    Stats m_stats;
    bool m_enabled = true;
    double m_directBelow = 2;
};

} // namespace tilescope::timeline
