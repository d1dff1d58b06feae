// SPDX-License-Identifier: MIT
#pragma once

#include "memory/memoryanalysis.h"

#include <cstdint>
#include <span>
#include <vector>

namespace tilescope::memory {

// What one pixel column of a device's memory graph draws: the range of the allocated and reserved step
// functions over the column's time interval, and where they stand at its right edge.
struct PixelSummary
{
    int64_t minAllocated, maxAllocated, lastAllocated;
    int64_t minReserved, maxReserved, lastReserved;
    bool hasSamples; // a record falls in the column
    bool hasValue;   // a record at or before the column's end: false left of the first record (nothing to draw)
};

// Per-pixel level of detail for drawing one device's memory series at any zoom: a min/max pyramid over
// the samples (a tree of blocks of 2^k samples) built once, so a frame costs O(pixels * log n) whatever
// the number of samples in view.
//
// Column p of summarize(t0, t1, pixels) covers [t0 + (t1 - t0) * p / pixels, t0 + (t1 - t0) * (p + 1) /
// pixels) (integer division). Its range is that of the step function over the column: every sample in
// it, plus the value carried in from the left unless a sample sits exactly on the column's start. A
// column without samples carries the value from the left (min = max = last), as does an empty one (the
// view spans fewer nanoseconds than pixels).
class MemorySeriesSummary
{
public:
    MemorySeriesSummary() = default;
    explicit MemorySeriesSummary(std::span<const MemorySample> samples);

    size_t size() const { return m_times.size(); }
    // `out` is resized to `pixels` (its storage is reused from frame to frame). Nothing when pixels <= 0
    // or t1 <= t0.
    void summarize(int64_t t0, int64_t t1, int pixels, std::vector<PixelSummary>& out) const;
    std::vector<PixelSummary> summarize(int64_t t0, int64_t t1, int pixels) const;

    // The last sample at or before `time` (the step function's value there), kNoIndex before the first.
    uint32_t sampleAt(int64_t time) const;

private:
    struct Range
    {
        int64_t minAllocated, maxAllocated, minReserved, maxReserved;
    };
    Range query(size_t lo, size_t hi) const;                // samples [lo, hi), lo < hi
    size_t firstAtOrAfter(int64_t time, size_t from) const; // the first sample at or after `time`, searching from `from`
    void include(Range& r, size_t sample) const;

    std::vector<int64_t> m_times;
    std::vector<Range> m_tree; // bottom-up segment tree: leaves at [n, 2n), node i covers 2i and 2i + 1
};

} // namespace tilescope::memory
