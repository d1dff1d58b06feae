// SPDX-License-Identifier: MIT
#include "timeline/busywindowcache.h"

#include "timeline/drawwindowcache.h"
#include "timeline/timelineindex.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace tilescope::timeline {

namespace {

int64_t floorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

} // namespace

int64_t BusyWindowCache::bucketWidth(double nsPerPixel)
{
    const double width = DrawWindowCache::powerOfTwoAtOrBelow(nsPerPixel) / kBucketsPerPixel;
    if (!(width >= 1))
        return 1;
    return width >= 0x1p62 ? int64_t(1) << 62 : static_cast<int64_t>(width);
}

void BusyWindowCache::setEnabled(bool enabled)
{
    m_enabled = enabled;
    m_windows.clear();
}

BusyWindowCache::Window BusyWindowCache::build(const analysis::IntervalSet& set, int64_t t0, int64_t t1, int64_t width)
{
    Window w;
    w.width = width;
    const int64_t span = t1 - t0;
    w.firstBucket = floorDiv(t0 - span, width);
    const int64_t lastBucket = floorDiv(t1 + span - 1, width); // inclusive
    w.busy.assign(size_t(lastBucket - w.firstBucket + 1), 0);
    const int64_t start = w.start(), end = w.end();
    const auto& all = set.intervals();
    auto it = std::upper_bound(all.begin(), all.end(), start, [](int64_t t, const analysis::Interval& i) { return t < i.end; });
    for (; it != all.end() && it->start < end; ++it) {
        // Integer ns relative to the window start: exact at any absolute time.
        const int64_t a = std::max(it->start, start) - start, b = std::min(it->end, end) - start;
        if (b <= a)
            continue;
        const int64_t first = a / width, last = (b - 1) / width;
        if (first == last) {
            w.busy[size_t(first)] += b - a;
            continue;
        }
        w.busy[size_t(first)] += (first + 1) * width - a;
        for (int64_t k = first + 1; k < last; ++k) // the set's intervals are disjoint: O(buckets) in all
            w.busy[size_t(k)] += width;
        w.busy[size_t(last)] += b - last * width;
    }
    w.busyBefore.assign(w.busy.size() + 1, 0);
    for (size_t k = 0; k < w.busy.size(); ++k)
        w.busyBefore[k + 1] = w.busyBefore[k] + w.busy[k];
    return w;
}

std::vector<float> BusyWindowCache::coverage(const analysis::IntervalSet& set, int64_t t0, double nsPerPixel, int pixels)
{
    ++m_stats.requests;
    if (pixels <= 0 || !(nsPerPixel > 0) || !std::isfinite(nsPerPixel))
        return {};
    const auto started = std::chrono::steady_clock::now();
    auto countBuild = [&] {
        ++m_stats.builds;
        m_stats.buildMs += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    };
    const int64_t t1 = t0 + static_cast<int64_t>(std::ceil(nsPerPixel * pixels)) + 1;
    const auto& all = set.intervals();
    const auto firstInView = std::upper_bound(all.begin(), all.end(), t0, [](int64_t t, const analysis::Interval& i) { return t < i.end; });
    const auto endOfView = std::lower_bound(firstInView, all.end(), t1, [](const analysis::Interval& i, int64_t t) { return i.start < t; });
    if (!m_enabled || double(endOfView - firstInView) < m_directBelow * pixels) {
        auto out = TimelineIndex::coverage(set, t0, nsPerPixel, pixels);
        countBuild();
        return out;
    }
    const int64_t width = bucketWidth(nsPerPixel);
    auto it = m_windows.find(&set);
    if (it != m_windows.end() && width > it->second.width && width % it->second.width == 0) {
        // A zoom out: the coarser buckets are sums of the finer ones (both on the absolute grid), without
        // another pass over the intervals; only the coarse buckets the old window covers whole are kept.
        Window& old = it->second;
        const int64_t factor = width / old.width;
        const int64_t first = -floorDiv(-old.firstBucket, factor);
        const int64_t end = floorDiv(old.firstBucket + int64_t(old.busy.size()), factor);
        if (end > first && first * width <= t0 && t1 <= end * width) {
            Window merged;
            merged.width = width;
            merged.firstBucket = first;
            merged.busy.assign(size_t(end - first), 0);
            for (size_t j = 0; j < merged.busy.size(); ++j)
                for (int64_t i = 0; i < factor; ++i)
                    merged.busy[j] += old.busy[size_t((first + int64_t(j)) * factor - old.firstBucket + i)];
            merged.busyBefore.assign(merged.busy.size() + 1, 0);
            for (size_t k = 0; k < merged.busy.size(); ++k)
                merged.busyBefore[k + 1] = merged.busyBefore[k] + merged.busy[k];
            old = std::move(merged);
            countBuild();
        }
    }
    if (it == m_windows.end() || it->second.width != width || t0 < it->second.start() || t1 > it->second.end()) {
        it = m_windows.insert_or_assign(&set, build(set, t0, t1, width)).first;
        countBuild();
    }
    const Window& w = it->second;
    // Pixel edges are measured from the start of t0's bucket, so every quantity below is the same in any
    // window that holds the view (the busy-before difference of two edges is an exact integer).
    const int64_t t0Bucket = floorDiv(t0, width);
    const double t0Offset = double(t0 - t0Bucket * width);
    const int64_t lastIndex = int64_t(w.busy.size());
    struct Edge
    {
        int64_t index; // bucket, relative to the window
        double inside; // busy ns of that bucket before the edge
    };
    auto edgeAt = [&](int x) {
        const double offset = t0Offset + x * nsPerPixel;
        const double bucket = std::floor(offset / double(width));
        int64_t index = t0Bucket + int64_t(bucket) - w.firstBucket;
        double inside = 0;
        if (index >= lastIndex)
            index = lastIndex;
        else
            inside = double(w.busy[size_t(index)]) * ((offset - bucket * double(width)) / double(width));
        return Edge{index, inside};
    };
    std::vector<float> out(static_cast<size_t>(pixels));
    Edge left = edgeAt(0);
    for (int x = 0; x < pixels; ++x) {
        const Edge right = edgeAt(x + 1);
        const double busy = double(w.busyBefore[size_t(right.index)] - w.busyBefore[size_t(left.index)]) + right.inside - left.inside;
        out[size_t(x)] = float(std::clamp(busy / nsPerPixel, 0.0, 1.0));
        left = right;
    }
    return out;
}

} // namespace tilescope::timeline
