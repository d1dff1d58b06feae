// SPDX-License-Identifier: MIT
#include "timeline/drawwindowcache.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace tilescope::timeline {

double DrawWindowCache::powerOfTwoAtOrBelow(double nsPerPixel)
{
    if (!(nsPerPixel > 0) || !std::isfinite(nsPerPixel))
        return nsPerPixel;
    int exponent = 0;
    std::frexp(nsPerPixel, &exponent); // nsPerPixel = m * 2^exponent with m in [0.5, 1)
    return std::ldexp(1.0, exponent - 1);
}

void DrawWindowCache::setEnabled(bool enabled)
{
    m_enabled = enabled;
    m_windows.clear();
}

DrawWindowCache::Window DrawWindowCache::build(const Lane& lane, int64_t t0, int64_t t1, double resolution)
{
    Window w;
    const int64_t span = t1 - t0;
    w.start = t0 - span;
    w.end = t1 + span;
    w.resolution = resolution;
    w.items = lane.index->query(lane.track, w.start, w.end, resolution, kMinPixels, lane.layout, lane.maxDepths).items;
    const size_t depths = std::min(lane.index->depthCount(lane.track, lane.layout), lane.maxDepths);
    w.depthBegin.assign(depths + 1, w.items.size());
    for (size_t i = w.items.size(); i-- > 0;)
        w.depthBegin[w.items[i].depth] = i;
    for (size_t d = depths; d-- > 0;) // depths without items start where the next one does
        w.depthBegin[d] = std::min(w.depthBegin[d], w.depthBegin[d + 1]);
    return w;
}

DrawList DrawWindowCache::items(const Lane& lane, int64_t t0, int64_t t1, double nsPerPixel)
{
    ++m_stats.requests;
    DrawList out;
    if (!lane.index || t1 <= t0)
        return out;
    const auto started = std::chrono::steady_clock::now();
    auto countBuild = [&] {
        ++m_stats.builds;
        m_stats.buildMs += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    };
    if (!m_enabled) {
        out = lane.index->query(lane.track, t0, t1, nsPerPixel, kMinPixels, lane.layout, lane.maxDepths);
        countBuild();
        return out;
    }
    const double r = resolution(nsPerPixel);
    auto it = m_windows.find(lane);
    if (it == m_windows.end() || it->second.resolution != r || t0 < it->second.start || t1 > it->second.end) {
        it = m_windows.insert_or_assign(lane, build(lane, t0, t1, r)).first;
        countBuild();
    }
    const Window& w = it->second;
    // Per depth, items are ordered by start and by end (ends are running maxima): the view's are a range.
    for (size_t d = 0; d + 1 < w.depthBegin.size(); ++d) {
        const auto begin = w.items.begin() + static_cast<ptrdiff_t>(w.depthBegin[d]);
        const auto end = w.items.begin() + static_cast<ptrdiff_t>(w.depthBegin[d + 1]);
        const auto first = std::upper_bound(begin, end, t0, [](int64_t t, const DrawItem& item) { return t < item.end; });
        const auto last = std::lower_bound(first, end, t1, [](const DrawItem& item, int64_t t) { return item.start < t; });
        for (auto item = first; item != last; ++item)
            out.eventsCovered += item->count;
        out.items.insert(out.items.end(), first, last);
    }
    return out;
}

} // namespace tilescope::timeline
