// SPDX-License-Identifier: MIT
#include "memory/memoryseriessummary.h"

#include <algorithm>

namespace tilescope::memory {

MemorySeriesSummary::MemorySeriesSummary(std::span<const MemorySample> samples)
{
    const size_t n = samples.size();
    m_times.reserve(n);
    m_tree.resize(2 * n);
    for (size_t i = 0; i < n; ++i) {
        const MemorySample& s = samples[i];
        m_times.push_back(s.time);
        m_tree[n + i] = {s.allocated, s.allocated, s.reserved, s.reserved};
    }
    for (size_t i = n; i-- > 1;) {
        const Range& a = m_tree[2 * i];
        const Range& b = m_tree[2 * i + 1];
        m_tree[i] = {std::min(a.minAllocated, b.minAllocated), std::max(a.maxAllocated, b.maxAllocated),
                     std::min(a.minReserved, b.minReserved), std::max(a.maxReserved, b.maxReserved)};
    }
}

void MemorySeriesSummary::include(Range& r, size_t node) const
{
    const Range& x = m_tree[node];
    r.minAllocated = std::min(r.minAllocated, x.minAllocated);
    r.maxAllocated = std::max(r.maxAllocated, x.maxAllocated);
    r.minReserved = std::min(r.minReserved, x.minReserved);
    r.maxReserved = std::max(r.maxReserved, x.maxReserved);
}

MemorySeriesSummary::Range MemorySeriesSummary::query(size_t lo, size_t hi) const
{
    const size_t n = m_times.size();
    Range r = m_tree[n + lo];
    for (lo += n + 1, hi += n; lo < hi; lo /= 2, hi /= 2) {
        if (lo & 1)
            include(r, lo++);
        if (hi & 1)
            include(r, --hi);
    }
    return r;
}

size_t MemorySeriesSummary::firstAtOrAfter(int64_t time, size_t from) const
{
    // Galloping from `from`: the next column's end is usually a few samples on, so the search stays in
    // the cache lines around it instead of halving the whole series.
    const size_t n = m_times.size();
    size_t step = 1, lo = from, hi = from;
    while (hi < n && m_times[hi] < time) {
        lo = hi + 1;
        hi = std::min(n, hi + step);
        step *= 2;
    }
    return static_cast<size_t>(
        std::lower_bound(m_times.begin() + static_cast<std::ptrdiff_t>(lo), m_times.begin() + static_cast<std::ptrdiff_t>(hi), time)
        - m_times.begin());
}

uint32_t MemorySeriesSummary::sampleAt(int64_t time) const
{
    const auto it = std::upper_bound(m_times.begin(), m_times.end(), time);
    return it == m_times.begin() ? trace::kNoIndex : static_cast<uint32_t>(it - m_times.begin() - 1);
}

void MemorySeriesSummary::summarize(int64_t t0, int64_t t1, int pixels, std::vector<PixelSummary>& out) const
{
    out.clear();
    if (pixels <= 0 || t1 <= t0)
        return;
    out.resize(static_cast<size_t>(pixels));
    const size_t n = m_times.size();
    // t0 + floor(span * p / pixels), exactly and without overflow: span = q * pixels + r.
    const uint64_t span = static_cast<uint64_t>(t1) - static_cast<uint64_t>(t0);
    const uint64_t q = span / static_cast<uint64_t>(pixels), r = span % static_cast<uint64_t>(pixels);
    const auto boundary = [&](int p) {
        const auto up = static_cast<uint64_t>(p);
        return static_cast<int64_t>(static_cast<uint64_t>(t0) + q * up + r * up / static_cast<uint64_t>(pixels));
    };
    // Samples before the column start: lo; the first sample at or after the column's end: hi.
    auto lo = static_cast<size_t>(std::lower_bound(m_times.begin(), m_times.end(), t0) - m_times.begin());
    for (int p = 0; p < pixels; ++p) {
        const int64_t start = boundary(p);
        const int64_t end = boundary(p + 1);
        const size_t hi = firstAtOrAfter(end, lo);
        PixelSummary& px = out[static_cast<size_t>(p)];
        px.hasSamples = hi > lo;
        px.hasValue = hi > 0;
        if (!px.hasValue) {
            px = {0, 0, 0, 0, 0, 0, false, false};
        } else {
            // The value carried in from the left counts unless a sample sits on the column's start.
            const bool carried = lo > 0 && (lo == hi || m_times[lo] > start);
            Range r = px.hasSamples ? query(lo, hi) : m_tree[n + lo - 1];
            if (carried && px.hasSamples)
                include(r, n + lo - 1);
            const Range& last = m_tree[n + hi - 1];
            px.minAllocated = r.minAllocated;
            px.maxAllocated = r.maxAllocated;
            px.lastAllocated = last.minAllocated;
            px.minReserved = r.minReserved;
            px.maxReserved = r.maxReserved;
            px.lastReserved = last.minReserved;
        }
        lo = hi;
    }
}

std::vector<PixelSummary> MemorySeriesSummary::summarize(int64_t t0, int64_t t1, int pixels) const
{
    std::vector<PixelSummary> out;
    summarize(t0, t1, pixels, out);
    return out;
}

} // namespace tilescope::memory
