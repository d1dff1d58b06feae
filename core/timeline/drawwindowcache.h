// SPDX-License-Identifier: MIT
#pragma once

#include "timeline/timelineindex.h"

#include <compare>
#include <cstdint>
#include <map>
#include <vector>

namespace tilescope::timeline {

// Perfetto-style draw windows: per lane, the draw list of a window three times the view's time span (the
// view plus one span either side), folded at the view's ns per pixel rounded down to a power of two. A pan
// that stays inside the window, or a zoom that stays inside the power of two, reads the cached list
// instead of querying the index again; leaving the window or the power of two builds a new one.
//
// What a request returns is exactly TimelineIndex::query(view, resolution(nsPerPixel)): the index's items
// belong to each depth, not to the window, so the padded window's items that reach into the view are the
// view's own. The power-of-two resolution folds at 3 px of it, which is 1.5 to 3 px on screen.
//
// Disabled (setEnabled(false)), every request queries the view itself at the exact ns per pixel: the
// behaviour before the cache, kept for benchmarks and comparisons.
class DrawWindowCache
{
public:
    // What one lane draws; the index is part of the key so that one cache serves several traces.
    struct Lane
    {
        const TimelineIndex* index = nullptr;
        trace::TrackId track = 0;
        TimelineIndex::Layout layout = TimelineIndex::Layout::Full;
        size_t maxDepths = 0;
        auto operator<=>(const Lane&) const = default;
    };
    struct Stats
    {
        uint64_t requests = 0;
        uint64_t builds = 0; // draw lists built (index queries); requests - builds were served from a window
        double buildMs = 0;  // time spent building them
    };
    static constexpr double kMinPixels = 3.0; // folding width, as TimelineIndex::query's default

    // The largest power of two (2^k ns, k may be negative) at or below nsPerPixel.
    static double powerOfTwoAtOrBelow(double nsPerPixel);
    // The ns per pixel a request at nsPerPixel folds at: its power of two, or itself when disabled.
    double resolution(double nsPerPixel) const { return m_enabled ? powerOfTwoAtOrBelow(nsPerPixel) : nsPerPixel; }

    // The lane's items that intersect [t0, t1), folded at resolution(nsPerPixel).
    DrawList items(const Lane& lane, int64_t t0, int64_t t1, double nsPerPixel);

    void setEnabled(bool enabled);
    bool enabled() const { return m_enabled; }
    // The data or the lanes changed: every window is dropped.
    void clear() { m_windows.clear(); }
    size_t windowCount() const { return m_windows.size(); }
    const Stats& stats() const { return m_stats; }
    void resetStats() { m_stats = {}; }

private:
    struct Window
    {
        int64_t start = 0, end = 0;
        double resolution = 0;
        std::vector<DrawItem> items;    // TimelineIndex::query's order: by depth, then start
        std::vector<size_t> depthBegin; // items of depth d: [depthBegin[d], depthBegin[d + 1])
    };
    static Window build(const Lane& lane, int64_t t0, int64_t t1, double resolution);

    std::map<Lane, Window> m_windows;
    Stats m_stats;
    bool m_enabled = true;
};

} // namespace tilescope::timeline
