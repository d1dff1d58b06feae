// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/intervals.h"
#include "trace/trace.h"

#include <cstdint>
#include <limits>
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
    uint64_t eventsCovered = 0; // events in the items, folded ones included (a fold may reach past the window)
};

// Level-of-detail queries over a trace's tracks (after Tracy's zone folding).
//
// Contract: for track T, window [t0, t1) and scale ns/px, query() returns, per depth in start order, the
// depth's items that intersect the window. The items belong to the depth, not to the window: scanning the
// whole depth in start order, an event at least `minPixels` px wide is an item of its own, and any other
// event starts a fold that takes in every following event ending less than `minPixels` px after the one
// before it (start of the first, end of the last, count). So a fold reaching into the window keeps the
// events outside it, and a wider window (DrawWindowCache's padded one) holds the same items as a narrower
// one where they overlap. Within one depth events do not overlap, so their ends are sorted and each fold is
// found by binary search on the ends, forward and back to where it starts: the cost is
// O(depths x (pixels / minPixels) x log n), not O(events).
// Invariants: items of one depth are disjoint and ordered; the counts add up to eventsCovered; every event
// of the window is in exactly one item.
// Two row layouts per track. Full: an event's row is its nesting depth. Compact: a Python stack
// (python_function events, often 25 frames deep above the ops) keeps only its outer kPythonLevels
// frames; deeper frames are left out and every other event moves up by the frames left out above it.
// Nesting order is kept (a descendant is always on a lower row than its ancestor), so rows stay
// disjoint; with no Python frames on a track both layouts are the same.
class TimelineIndex
{
public:
    enum class Layout : uint8_t { Full, Compact };
    static constexpr int kPythonLevels = 3;
    static constexpr uint16_t kHidden = std::numeric_limits<uint16_t>::max();

    explicit TimelineIndex(const trace::Trace& trace);

    // Rows at or below `maxDepths` are not queried (a lane capped to its first rows).
    DrawList query(trace::TrackId track, int64_t t0, int64_t t1, double nsPerPixel, double minPixels = 3.0, Layout layout = Layout::Full,
                   size_t maxDepths = std::numeric_limits<size_t>::max()) const;
    size_t depthCount(trace::TrackId track, Layout layout = Layout::Full) const { return levels(track, layout).size(); }
    // The event's row in the compact layout, kHidden for a Python frame it leaves out.
    uint16_t compactDepth(uint32_t event) const { return m_compactDepth[event]; }
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
        void add(int64_t start, int64_t end, uint32_t event);
    };
    const std::vector<Level>& levels(trace::TrackId track, Layout layout) const
    {
        return layout == Layout::Compact && !m_compactLevels[track].empty() ? m_compactLevels[track] : m_levels[track];
    }
    std::vector<std::vector<Level>> m_levels;        // per track, per depth
    std::vector<std::vector<Level>> m_compactLevels; // per track, empty where it equals m_levels
    std::vector<uint16_t> m_compactDepth;            // per event
};

} // namespace tilescope::timeline
