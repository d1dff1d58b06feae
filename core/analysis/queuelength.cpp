// SPDX-License-Identifier: MIT
#include "analysis/queuelength.h"

#include "analysis/streamidle.h"
#include "trace/eventkind.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace tilescope::analysis {

namespace {

struct Change
{
    int64_t time;
    int32_t delta;
};

// The net change per distinct time, as steps; times where the changes cancel add no step.
std::vector<QueueStep> stepsOf(std::vector<Change>& changes)
{
    std::sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) { return a.time < b.time; });
    std::vector<QueueStep> steps;
    int32_t length = 0;
    for (size_t i = 0; i < changes.size();) {
        const int64_t time = changes[i].time;
        int32_t net = 0;
        for (; i < changes.size() && changes[i].time == time; ++i)
            net += changes[i].delta;
        if (net == 0)
            continue;
        length += net;
        steps.push_back({time, length});
    }
    return steps;
}

// The least length at or below which the queue spent `share` of the window.
int32_t quantileLength(const std::vector<std::pair<int32_t, int64_t>>& timeAtLength, int64_t windowNs, double share)
{
    int64_t cumulative = 0;
    for (const auto& [length, ns] : timeAtLength) {
        cumulative += ns;
        if (static_cast<double>(cumulative) >= share * static_cast<double>(windowNs))
            return length;
    }
    return timeAtLength.empty() ? 0 : timeAtLength.back().first;
}

void summarize(StreamQueue& q, const std::vector<Interval>& launchCalls, int32_t limit)
{
    const int64_t windowNs = q.window.end - q.window.start;
    std::map<int32_t, int64_t> atLength;
    std::vector<Interval> full;
    long double weighted = 0;
    for (size_t i = 0; i + 1 < q.series.size(); ++i) {
        const int64_t s = std::max(q.series[i].time, q.window.start);
        const int64_t e = std::min(q.series[i + 1].time, q.window.end);
        if (e <= s)
            continue;
        const int32_t length = q.series[i].length;
        atLength[length] += e - s;
        weighted += static_cast<long double>(length) * static_cast<long double>(e - s);
        if (length >= limit)
            full.push_back({s, e});
    }
    q.timeAtLength.assign(atLength.begin(), atLength.end());
    q.maxLength = q.timeAtLength.empty() ? 0 : q.timeAtLength.back().first;
    q.meanLength = windowNs > 0 ? static_cast<double>(weighted / windowNs) : 0.0;
    q.medianLength = quantileLength(q.timeAtLength, windowNs, 0.5);
    q.p95Length = quantileLength(q.timeAtLength, windowNs, 0.95);
    const IntervalSet fullSet = IntervalSet::fromUnsorted(std::move(full));
    q.fullNs = fullSet.length();
    if (q.fullNs > 0)
        q.blockedNs = fullSet.intersection(IntervalSet::fromUnsorted(launchCalls)).length();
}

} // namespace

QueueReport computeQueueLength(const trace::Trace& t, std::optional<Interval> selection, int32_t limit)
{
    QueueReport r;
    r.selection = selection;
    r.limit = limit;
    std::vector<Change> changes;
    std::vector<Interval> launchCalls;
    for (trace::TrackId track = 0; track < t.tracks.size(); ++track) {
        changes.clear();
        launchCalls.clear();
        StreamQueue q;
        uint64_t linked = 0; // the whole trace's; q.operations counts the selection's
        q.track = track;
        q.device = std::max(t.tracks[track].device, 0);
        q.stream = streamNumberOf(t.tracks[track]);
        for (const uint32_t i : t.tracks[track].events) {
            const trace::Event& e = t.events[i];
            if (!trace::isGpuActivity(e.kind))
                continue;
            const uint32_t launch = t.launchOf(i);
            if (launch == trace::kNoIndex) {
                ++r.activitiesWithoutLaunch;
                continue;
            }
            const trace::Event& l = t.events[launch];
            changes.push_back({l.start, +1});
            changes.push_back({e.start, -1});
            launchCalls.push_back({l.start, l.end()});
            ++linked;
            if (!selection || (l.start >= selection->start && l.start < selection->end)) // as `launches` counts a window
                ++q.operations;
        }
        if (linked == 0)
            continue;
        q.series = stepsOf(changes);
        if (q.series.empty())
            continue; // every launch started at its activity's time: never a pending operation
        q.window = {q.series.front().time, q.series.back().time};
        if (selection) {
            q.window.start = std::max(q.window.start, selection->start);
            q.window.end = std::min(q.window.end, selection->end);
        }
        if (q.window.end <= q.window.start)
            continue;
        summarize(q, launchCalls, limit);
        r.streams.push_back(std::move(q));
    }
    std::sort(r.streams.begin(), r.streams.end(), [](const StreamQueue& a, const StreamQueue& b) {
        return std::tie(a.device, a.stream, a.track) < std::tie(b.device, b.stream, b.track);
    });
    return r;
}

} // namespace tilescope::analysis
