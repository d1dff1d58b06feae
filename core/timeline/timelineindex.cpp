// SPDX-License-Identifier: MIT
#include "timeline/timelineindex.h"

#include "trace/nesting.h"

#include <algorithm>
#include <cmath>

namespace tilescope::timeline {

namespace {

// First index in [from, to) with values[index] >= target: exponential steps from `from`, then a binary
// search in the last step. Folds usually end a few events on, so this touches a few cache lines where a
// plain lower_bound over the rest of the level would touch log2(n).
size_t gallop(const std::vector<int64_t>& values, size_t from, size_t to, int64_t target)
{
    size_t step = 1;
    size_t low = from;
    while (from + step < to && values[from + step] < target) {
        low = from + step;
        step *= 2;
    }
    const size_t high = std::min(from + step + 1, to);
    return static_cast<size_t>(
        std::lower_bound(values.begin() + static_cast<ptrdiff_t>(low), values.begin() + static_cast<ptrdiff_t>(high), target)
        - values.begin());
}

// First index in [0, to) with values[index] > target, given values[to - 1] > target: exponential steps back
// from `to`, then a binary search in the last step.
size_t gallopBack(const std::vector<int64_t>& values, size_t to, int64_t target)
{
    size_t high = to - 1; // values[high] > target
    size_t step = 1;
    while (step <= high && values[high - step] > target) {
        high -= step;
        step *= 2;
    }
    const size_t low = step <= high ? high - step : 0;
    return static_cast<size_t>(
        std::upper_bound(values.begin() + static_cast<ptrdiff_t>(low), values.begin() + static_cast<ptrdiff_t>(high), target)
        - values.begin());
}

// The last break at or before `index`: 0, or an event that ends at least minNs after the one before it. No
// fold runs across a break, so the level's items can be found by scanning from there. Every event ending
// within minNs before ends[index] is no break, so each step jumps over all of them: a fold that reaches far
// to the left costs O(its width in minNs x log), as a fold to the right does.
size_t lastBreak(const std::vector<int64_t>& ends, size_t index, int64_t minNs)
{
    while (index > 0 && ends[index] - ends[index - 1] < minNs)
        index = gallopBack(ends, index, ends[index] - minNs);
    return index;
}

} // namespace

void TimelineIndex::Level::add(int64_t start, int64_t end, uint32_t event)
{
    starts.push_back(start);
    ends.push_back(ends.empty() ? end : std::max(ends.back(), end));
    events.push_back(event);
}

TimelineIndex::TimelineIndex(const trace::Trace& trace)
    : m_levels(trace.tracks.size())
    , m_compactLevels(trace.tracks.size())
    , m_compactDepth(trace.events.size())
{
    // Python frames and other events above each event: those on its chain of containers, as the loader nests
    // them (the parent; for a slice that overlaps another without nesting, the innermost open one that holds
    // it whole, so that a long run of such slices does not push each one a row deeper).
    std::vector<uint16_t> pythonAbove(trace.events.size(), 0), otherAbove(trace.events.size(), 0);
    std::vector<uint32_t> containerOf(trace.events.size(), trace::kNoIndex);
    std::vector<uint32_t> stack;
    trace::FreeRows rows;                                // the compact rows
    std::vector<int> anchorRow(trace.events.size(), -1); // compact row of the event, or of its nearest shown container
    for (trace::TrackId t = 0; t < trace.tracks.size(); ++t) {
        auto& levels = m_levels[t];
        levels.resize(trace.tracks[t].events.empty() ? 0 : trace.tracks[t].maxDepth + 1u);
        bool anyPython = false;
        stack.clear();
        for (const uint32_t index : trace.tracks[t].events) {
            const trace::Event& e = trace.events[index];
            levels[e.depth].add(e.start, e.end(), index);
            anyPython = anyPython || e.kind == trace::EventKind::PythonFunction;
            while (!stack.empty() && e.start >= trace.events[stack.back()].end())
                stack.pop_back();
            uint32_t container = e.parent;
            if (container == trace::kNoIndex && (e.flags & trace::PartialOverlap))
                container = trace::innermostHolding(stack, trace.events, e);
            containerOf[index] = container;
            if (container != trace::kNoIndex) {
                const bool containerIsPython = trace.events[container].kind == trace::EventKind::PythonFunction;
                pythonAbove[index] = static_cast<uint16_t>(pythonAbove[container] + (containerIsPython ? 1 : 0));
                otherAbove[index] = static_cast<uint16_t>(otherAbove[container] + (containerIsPython ? 0 : 1));
            }
            stack.push_back(index);
            m_compactDepth[index] = e.depth;
        }
        if (!anyPython)
            continue;
        auto& compact = m_compactLevels[t];
        rows.clear();
        for (const uint32_t index : trace.tracks[t].events) {
            const trace::Event& e = trace.events[index];
            const int python = pythonAbove[index];
            // The row of the nearest shown event on its container chain: a hidden frame passes its container's on.
            const uint32_t container = containerOf[index];
            const int above = container == trace::kNoIndex ? -1 : anchorRow[container];
            if (e.kind == trace::EventKind::PythonFunction && python >= kPythonLevels) {
                m_compactDepth[index] = kHidden;
                anchorRow[index] = above;
                continue;
            }
            // Under its shown containers (as many rows as they are), and under the nearest one's row, on the first
            // row free from its start (the next one unless a slice that overlaps without nesting holds it).
            const size_t depth = rows.place(static_cast<size_t>(std::max(std::min(python, kPythonLevels) + otherAbove[index], above + 1)),
                                            e.start, e.end(), kHidden - 1);
            m_compactDepth[index] = static_cast<uint16_t>(depth);
            anchorRow[index] = static_cast<int>(depth);
            if (compact.size() <= depth)
                compact.resize(depth + 1u);
            compact[depth].add(e.start, e.end(), index);
        }
    }
}

DrawList TimelineIndex::query(trace::TrackId track, int64_t t0, int64_t t1, double nsPerPixel, double minPixels, Layout layout,
                              size_t maxDepths) const
{
    DrawList out;
    if (track >= m_levels.size() || t1 <= t0)
        return out;
    const auto minNs = static_cast<int64_t>(std::ceil(nsPerPixel * minPixels));
    const std::vector<Level>& rows = levels(track, layout);
    for (size_t depth = 0; depth < std::min(rows.size(), maxDepths); ++depth) {
        const Level& level = rows[depth];
        const size_t count = level.ends.size();
        // First event ending after t0 (an event that ends exactly at t0 is not visible).
        const size_t firstVisible = static_cast<size_t>(std::upper_bound(level.ends.begin(), level.ends.end(), t0) - level.ends.begin());
        const size_t last = static_cast<size_t>(std::lower_bound(level.starts.begin(), level.starts.end(), t1) - level.starts.begin());
        if (firstVisible >= last)
            continue;
        // Items start at breaks, so scanning from the last break before the window gives the level's own items.
        size_t i = lastBreak(level.ends, firstVisible, minNs);
        while (i < last) {
            const int64_t end = level.ends[i];
            if (end - level.starts[i] >= minNs) {
                if (end > t0) {
                    out.items.push_back({level.starts[i], end, level.events[i], 1, static_cast<uint16_t>(depth)});
                    ++out.eventsCovered;
                }
                ++i;
                continue;
            }
            // Fold: extend while the next event ends less than minNs after the previous one, past t1 too.
            size_t next = i + 1;
            int64_t nextTime = end + minNs;
            for (;;) {
                next = gallop(level.ends, next, count, nextTime);
                if (next >= count)
                    break;
                if (level.ends[next] - level.ends[next - 1] >= minNs)
                    break;
                nextTime = level.ends[next] + minNs;
            }
            const auto folded = static_cast<uint32_t>(next - i);
            if (level.ends[next - 1] > t0) {
                out.items.push_back({level.starts[i], level.ends[next - 1], level.events[i], folded, static_cast<uint16_t>(depth)});
                out.eventsCovered += folded;
            }
            i = next;
        }
    }
    return out;
}

std::vector<analysis::Interval> TimelineIndex::foldIntervals(const analysis::IntervalSet& set, int64_t t0, int64_t t1, double nsPerPixel)
{
    std::vector<analysis::Interval> out;
    const auto& all = set.intervals();
    const auto px = static_cast<int64_t>(std::ceil(nsPerPixel));
    auto it = std::upper_bound(all.begin(), all.end(), t0, [](int64_t t, const analysis::Interval& i) { return t < i.end; });
    while (it != all.end() && it->start < t1) {
        analysis::Interval box = *it;
        ++it;
        // Jump over every interval that starts less than a pixel after the box: ends are sorted.
        while (it != all.end() && it->start < t1 && it->start - box.end < px) {
            auto far = std::lower_bound(it, all.end(), box.end + px, [](const analysis::Interval& i, int64_t t) { return i.start < t; });
            box.end = std::max(box.end, (far - 1)->end);
            it = far;
        }
        out.push_back({std::max(box.start, t0), std::min(box.end, t1)});
    }
    return out;
}

std::vector<float> TimelineIndex::coverage(const analysis::IntervalSet& set, int64_t t0, double nsPerPixel, int pixels)
{
    std::vector<double> busy(size_t(std::max(pixels, 0)), 0.0);
    if (pixels <= 0 || nsPerPixel <= 0)
        return {};
    const int64_t t1 = t0 + static_cast<int64_t>(nsPerPixel * pixels);
    const auto& all = set.intervals();
    auto it = std::upper_bound(all.begin(), all.end(), t0, [](int64_t t, const analysis::Interval& i) { return t < i.end; });
    for (; it != all.end() && it->start < t1; ++it) {
        const double a = double(std::max(it->start, t0) - t0) / nsPerPixel;
        const double b = double(std::min(it->end, t1) - t0) / nsPerPixel;
        const int first = std::min(pixels - 1, int(a));
        const int last = std::min(pixels - 1, int(b));
        if (first == last) {
            busy[size_t(first)] += b - a;
            continue;
        }
        busy[size_t(first)] += (first + 1) - a;
        for (int p = first + 1; p < last; ++p)
            busy[size_t(p)] += 1.0;
        busy[size_t(last)] += b - last;
    }
    std::vector<float> out(busy.size());
    for (size_t i = 0; i < busy.size(); ++i)
        out[i] = float(std::min(1.0, busy[i]));
    return out;
}

} // namespace tilescope::timeline
