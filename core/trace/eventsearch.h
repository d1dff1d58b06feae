// SPDX-License-Identifier: MIT
#pragma once

#include "trace/trace.h"

#include <functional>
#include <string_view>
#include <vector>

namespace tilescope::trace {

// Event search by name, shared by the app's search field and its "select this kernel" links. Names are
// matched once per distinct string (the pool is far smaller than the event list), then events are
// compared by id, so a search over millions of events costs one pass of integer compares.
class EventSearch
{
public:
    // Case-insensitive substring match of `text` (ASCII case folding, as kernel and op names are ASCII).
    EventSearch(const Trace& trace, std::string_view text);
    bool empty() const { return m_matchCount == 0; }
    bool matches(const Event& e) const { return e.name < m_matching.size() && m_matching[e.name]; }

    // The next match after `current` in time order (start, then index), wrapping never; kNoIndex when
    // there is none. `current` kNoIndex: the first (forward) or the last (backward) match.
    uint32_t next(uint32_t current, bool forward) const;
    // Where `event` stands among the matches in that order: index from 0 (count when it is not a match) of count.
    struct Position
    {
        size_t index = 0, count = 0;
    };
    Position positionOf(uint32_t event) const;

private:
    const Trace& m_trace;
    std::vector<bool> m_matching; // by StringId
    size_t m_matchCount = 0;
};

// The first event (lowest start, then index) named exactly `name` for which `accept` holds; kNoIndex
// when there is none.
uint32_t firstEventNamed(const Trace& trace, std::string_view name, const std::function<bool(const Event&)>& accept = {});

// The innermost event on `track` that contains `time` ([start, end), as the loader nests them; an
// instant contains its own time) and for which `accept` holds (every event when empty); kNoIndex when
// none. O(log n + depth): a binary search for the last event starting at or before `time`, then up its
// parent chain, where every event containing `time` lies, innermost first.
uint32_t innermostEventAt(const Trace& trace, TrackId track, int64_t time, const std::function<bool(const Event&)>& accept = {});

// The innermost host op (cpu_op or user_annotation) running on `track` at `time`: what a `[memory]`
// record or a click on the memory graph is attributed to. kNoIndex when none.
uint32_t innermostHostOpAt(const Trace& trace, TrackId track, int64_t time);
bool isHostOp(const Event& e);
// torch's step marker, ProfilerStep#N: a user_annotation, or an Operator in traces of torch 1.8-1.9.
bool isProfilerStepName(std::string_view name);

} // namespace tilescope::trace
