// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/intervals.h"
#include "trace/trace.h"

#include <cstdint>
#include <vector>

namespace tilescope::timeline {

// One box to draw: a single event, or `count` events folded into one block because each was narrower
// than the minimum visible width.
struct DrawItem
{
    int64_t start;
    int64_t end;
    uint32_t event; // the event when count == 1
    uint32_t count;
    uint16_t depth;
};

struct DrawList
{
    std::vector<DrawItem> items;
    uint64_t eventsCovered = 0; // events in the window, folded ones included
};

// Level-of-detail queries over a trace's tracks (after Tracy's zone folding).
//
// Contract: for track T, window [t0, t1) and scale ns/px, query() returns, per depth, the events that
// intersect the window in start order, where every run of consecutive events that each end less than
// `minPixels` px after the previous one is folded into one item (start of the first, end of the last,
// count). Within one depth events do not overlap, so their ends are sorted and each fold is found by
// binary search on the ends: the cost is O(depths x (pixels / minPixels) x log n), not O(events).
// Invariants: items of one depth are disjoint and ordered; the counts add up to eventsCovered; no event
// of the window is dropped.
class TimelineIndex
{
public:
    explicit TimelineIndex(const trace::Trace& trace);

    DrawList query(trace::TrackId track, int64_t t0, int64_t t1, double nsPerPixel, double minPixels = 3.0) const;
    size_t depthCount(trace::TrackId track) const { return m_levels[track].size(); }
    // Merges a busy set into pixel-sized boxes: gaps under one pixel are closed.
    static std::vector<analysis::Interval> foldIntervals(const analysis::IntervalSet& set, int64_t t0, int64_t t1, double nsPerPixel);
    // Busy fraction of each pixel column [t0 + i*nsPerPixel, t0 + (i+1)*nsPerPixel) (Perfetto-style
    // per-pixel summary): O(intervals in the window + pixels).
    static std::vector<float> coverage(const analysis::IntervalSet& set, int64_t t0, double nsPerPixel, int pixels);

private:
    struct Level
    {
        std::vector<int64_t> starts;
        std::vector<int64_t> ends; // running maximum, so binary search stays valid with overlaps
        std::vector<uint32_t> events;
    };
    std::vector<std::vector<Level>> m_levels; // per track, per depth
};

} // namespace tilescope::timeline
