// SPDX-License-Identifier: MIT
#pragma once

#include "trace/trace.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

// The two rules that lay a lane's slices out in rows, shared by the loader's rows (Trace::sortAndNestTracks)
// and the timeline's compact layout (timeline::TimelineIndex): where a slice that overlaps another without
// nesting belongs, and which row is free.
namespace tilescope::trace {

// The innermost slice on `stack` (the open slices of a lane, outermost first, walked in start order) that holds
// `e` whole, kNoIndex when none. Slices that ended stay buried under open ones: they are closed for good (later
// slices start no earlier), so they are dropped first; else a long run of overlapping steps, whose stack never
// empties, would have every step walk past all the earlier ones.
inline uint32_t innermostHolding(std::vector<uint32_t>& stack, const std::vector<Event>& events, const Event& e)
{
    std::erase_if(stack, [&](uint32_t s) { return events[s].end() <= e.start; });
    for (size_t k = stack.size(); k-- > 0;)
        if (events[stack[k]].end() >= e.end())
            return stack[k];
    return kNoIndex;
}

// Rows of a lane, each with the end of the last slice placed on it: place() puts a slice on the first row at or
// below `from` that is free from its start (never past `last`).
class FreeRows
{
public:
    void clear() { m_end.clear(); }
    size_t place(size_t from, int64_t start, int64_t end, size_t last)
    {
        size_t row = from;
        while (row < m_end.size() && m_end[row] > start)
            ++row;
        row = std::min(row, last);
        if (row >= m_end.size())
            m_end.resize(row + 1, std::numeric_limits<int64_t>::min());
        m_end[row] = std::max(m_end[row], end);
        return row;
    }

private:
    std::vector<int64_t> m_end;
};

} // namespace tilescope::trace
