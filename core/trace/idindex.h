// SPDX-License-Identifier: MIT
#pragma once

#include "trace/ids.h"
#include "trace/sortruns.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tilescope::trace {

// Events by a 64-bit id (correlation, External id): one sorted array of (id, event), 16 bytes an entry
// with no node or bucket per id (a hash map of the same took about 40), found by binary search. Entries
// are added in event order and sorted by (id, event), so first() is the earliest event given.
class IdIndex
{
public:
    // Room for `count` entries: set aside before they are added, the array is written once (no moves, no
    // fresh pages for a copy) and seal() has nothing to shrink.
    void reserve(size_t count) { m_entries.reserve(count); }
    void add(int64_t id, uint32_t event) { m_entries.push_back({id, event}); }
    // Once, after the last add().
    void seal()
    {
        // Entries come in event order and ids rise with time on each thread: a few runs, merged.
        sortRuns(m_entries.begin(), m_entries.end(),
                 [](const Entry& a, const Entry& b) { return a.id != b.id ? a.id < b.id : a.event < b.event; });
        m_entries.shrink_to_fit();
    }

    // The earliest event given with `id`, kNoIndex when none.
    uint32_t first(int64_t id) const
    {
        const auto [begin, end] = range(id);
        return begin == end ? kNoIndex : begin->event;
    }
    // Every event given with `id`, in event order.
    template <typename Visit> void forEach(int64_t id, Visit visit) const
    {
        const auto [begin, end] = range(id);
        for (auto it = begin; it != end; ++it)
            visit(it->event);
    }

private:
    struct Entry
    {
        int64_t id;
        uint32_t event;
    };

    std::pair<std::vector<Entry>::const_iterator, std::vector<Entry>::const_iterator> range(int64_t id) const
    {
        const auto begin = std::lower_bound(m_entries.begin(), m_entries.end(), id, [](const Entry& e, int64_t v) { return e.id < v; });
        auto end = begin;
        while (end != m_entries.end() && end->id == id)
            ++end;
        return {begin, end};
    }

    std::vector<Entry> m_entries;
};

} // namespace tilescope::trace
