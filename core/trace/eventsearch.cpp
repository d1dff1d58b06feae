// SPDX-License-Identifier: MIT
#include "trace/eventsearch.h"

#include <algorithm>
#include <cctype>

namespace tilescope::trace {

namespace {

bool containsIgnoringCase(std::string_view haystack, std::string_view needle)
{
    const auto equal = [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
    };
    return std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(), equal) != haystack.end();
}

// Time order of the search: start, then index (events of one start are visited in file order).
bool before(const Event& a, uint32_t ia, const Event& b, uint32_t ib) { return a.start < b.start || (a.start == b.start && ia < ib); }

} // namespace

EventSearch::EventSearch(const Trace& trace, std::string_view text)
    : m_trace(trace)
    , m_matching(trace.strings.size(), false)
{
    if (text.empty())
        return;
    for (StringId id = 0; id < trace.strings.size(); ++id)
        if (containsIgnoringCase(trace.strings.view(id), text)) {
            m_matching[id] = true;
            ++m_matchCount;
        }
}

uint32_t EventSearch::next(uint32_t current, bool forward) const
{
    if (empty())
        return kNoIndex;
    const auto& events = m_trace.events;
    const bool hasCurrent = current < events.size();
    uint32_t best = kNoIndex;
    for (uint32_t i = 0; i < events.size(); ++i) {
        const Event& e = events[i];
        if (!matches(e) || i == current)
            continue;
        if (hasCurrent && (forward ? !before(events[current], current, e, i) : !before(e, i, events[current], current)))
            continue;
        if (best == kNoIndex || (forward ? before(e, i, events[best], best) : before(events[best], best, e, i)))
            best = i;
    }
    return best;
}

EventSearch::Position EventSearch::positionOf(uint32_t event) const
{
    Position p;
    const auto& events = m_trace.events;
    const bool has = event < events.size() && matches(events[event]);
    for (uint32_t i = 0; i < events.size(); ++i)
        if (matches(events[i])) {
            ++p.count;
            if (has && before(events[i], i, events[event], event))
                ++p.index;
        }
    if (!has)
        p.index = p.count;
    return p;
}

uint32_t firstEventNamed(const Trace& trace, std::string_view name, const std::function<bool(const Event&)>& accept)
{
    const StringId id = trace.strings.find(name);
    if (id == kNoIndex)
        return kNoIndex;
    uint32_t best = kNoIndex;
    for (uint32_t i = 0; i < trace.events.size(); ++i) {
        const Event& e = trace.events[i];
        if (e.name == id && (!accept || accept(e)) && (best == kNoIndex || e.start < trace.events[best].start))
            best = i;
    }
    return best;
}

uint32_t innermostEventAt(const Trace& trace, TrackId track, int64_t time, const std::function<bool(const Event&)>& accept)
{
    if (track >= trace.tracks.size())
        return kNoIndex;
    const std::vector<uint32_t>& list = trace.tracks[track].events;
    const auto startsAfter = [&](int64_t t, uint32_t e) { return t < trace.events[e].start; };
    // Sorted by start, longer first: the last event starting at or before `time` is the deepest candidate,
    // and every event containing `time` was still open when it was nested, so it is on its parent chain.
    auto it = std::upper_bound(list.begin(), list.end(), time, startsAfter);
    while (it != list.begin()) {
        uint32_t e = *(it - 1);
        for (;;) {
            const Event& event = trace.events[e];
            if ((time < event.end() || time == event.start) && (!accept || accept(event)))
                return e;
            if (event.parent == kNoIndex)
                break;
            e = event.parent;
        }
        // The chain ended at a top-level event: everything before it ended by its start, so nothing else
        // contains `time`. A slice that overlaps an earlier one without nesting has no parent either, yet
        // an event before it may still contain `time`: go on from the event just before it.
        if (!(trace.events[e].flags & PartialOverlap))
            return kNoIndex;
        it = std::upper_bound(list.begin(), list.end(), trace.events[e].start, startsAfter);
        while (it != list.begin() && *(it - 1) != e)
            --it;
        if (it != list.begin())
            --it;
    }
    return kNoIndex;
}

bool isHostOp(const Event& e) { return e.kind == EventKind::CpuOp || e.kind == EventKind::UserAnnotation; }

bool isProfilerStepName(std::string_view name) { return name.starts_with("ProfilerStep#"); }

uint32_t innermostHostOpAt(const Trace& trace, TrackId track, int64_t time) { return innermostEventAt(trace, track, time, isHostOp); }

} // namespace tilescope::trace
