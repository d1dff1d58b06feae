// SPDX-License-Identifier: MIT
#include "analysis/launchstats.h"

#include "analysis/overlap.h"
#include "stats/timetext.h"
#include "stats/torchtable.h"
#include "trace/eventkind.h"
#include "trace/trace.h"

#include <algorithm>
#include <tuple>
#include <unordered_map>

namespace tilescope::analysis {

namespace {

struct Pending
{
    uint32_t launch;
    uint32_t first; // activity with the earliest start
    uint32_t activities;
    int64_t gpuNs;
};

std::vector<int64_t> column(const std::vector<LaunchRecord>& launches, const std::vector<uint32_t>& which, int64_t LaunchRecord::*field)
{
    std::vector<int64_t> out;
    out.reserve(which.size());
    for (const uint32_t i : which)
        out.push_back(launches[i].*field);
    return out;
}

} // namespace

LaunchStats computeLaunchStats(const trace::Trace& t, std::optional<Interval> window)
{
    LaunchStats r;
    if (!window)
        window = defaultOverlapWindow(t);
    if (!window)
        return r;
    r.window = *window;

    // Every GPU activity with a launch, grouped by that launch: calls outside the window are skipped here.
    std::vector<uint32_t> slotByLaunch(t.events.size(), trace::kNoIndex);
    std::vector<Pending> pending;
    for (uint32_t i = 0; i < t.events.size(); ++i) {
        const trace::Event& e = t.events[i];
        if (!trace::isGpuActivity(e.kind) || e.correlation == trace::kNoId)
            continue;
        const uint32_t launch = t.launchOf(i);
        if (launch == trace::kNoIndex)
            continue;
        const trace::Event& call = t.events[launch];
        if (call.start < window->start || call.start >= window->end)
            continue;
        if (slotByLaunch[launch] == trace::kNoIndex) {
            slotByLaunch[launch] = static_cast<uint32_t>(pending.size());
            pending.push_back({launch, i, 1, e.duration});
            continue;
        }
        Pending& p = pending[slotByLaunch[launch]];
        ++p.activities;
        p.gpuNs += e.duration;
        const trace::Event& first = t.events[p.first];
        if (e.start < first.start || (e.start == first.start && i < p.first))
            p.first = i;
    }
    std::sort(pending.begin(), pending.end(), [&](const Pending& a, const Pending& b) {
        const int64_t sa = t.events[a.launch].start, sb = t.events[b.launch].start;
        return sa != sb ? sa < sb : a.launch < b.launch;
    });

    // Streams: the tracks of the launches' first activities, by device, then stream.
    std::vector<uint32_t> streamOfTrack(t.tracks.size(), trace::kNoIndex);
    std::vector<trace::TrackId> tracks;
    for (const Pending& p : pending) {
        const trace::TrackId track = t.events[p.first].track;
        if (streamOfTrack[track] == trace::kNoIndex) {
            streamOfTrack[track] = 0;
            tracks.push_back(track);
        }
    }
    std::sort(tracks.begin(), tracks.end(), [&](trace::TrackId a, trace::TrackId b) {
        return std::make_tuple(t.tracks[a].device, t.tracks[a].stream.value_or(-1), a)
            < std::make_tuple(t.tracks[b].device, t.tracks[b].stream.value_or(-1), b);
    });
    for (const trace::TrackId track : tracks) {
        streamOfTrack[track] = static_cast<uint32_t>(r.streams.size());
        StreamLaunchStats s;
        s.device = t.tracks[track].device;
        s.stream = t.tracks[track].stream;
        s.track = track;
        r.streams.push_back(s);
    }

    std::unordered_map<trace::StringId, uint64_t> launchesByApi;
    r.launches.reserve(pending.size());
    std::vector<std::vector<uint32_t>> byStream(r.streams.size());
    for (const Pending& p : pending) {
        const trace::Event& call = t.events[p.launch];
        const trace::Event& first = t.events[p.first];
        LaunchRecord l;
        l.launch = p.launch;
        l.activity = p.first;
        l.activities = p.activities;
        l.stream = streamOfTrack[first.track];
        l.cpuNs = call.duration;
        l.gpuNs = p.gpuNs;
        l.delayNs = first.start - call.start;
        byStream[l.stream].push_back(static_cast<uint32_t>(r.launches.size()));
        r.launches.push_back(l);
        ++launchesByApi[call.name];
    }
    for (const auto& [name, count] : launchesByApi)
        r.apis.emplace_back(std::string(t.strings.view(name)), count);
    std::sort(r.apis.begin(), r.apis.end(),
              [](const auto& a, const auto& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });

    std::vector<uint32_t> all(r.launches.size());
    for (uint32_t i = 0; i < all.size(); ++i)
        all[i] = i;
    r.cpu = stats::distributionOf(column(r.launches, all, &LaunchRecord::cpuNs));
    r.gpu = stats::distributionOf(column(r.launches, all, &LaunchRecord::gpuNs));
    r.delay = stats::distributionOf(column(r.launches, all, &LaunchRecord::delayNs));
    for (size_t s = 0; s < r.streams.size(); ++s) {
        r.streams[s].cpu = stats::distributionOf(column(r.launches, byStream[s], &LaunchRecord::cpuNs));
        r.streams[s].gpu = stats::distributionOf(column(r.launches, byStream[s], &LaunchRecord::gpuNs));
        r.streams[s].delay = stats::distributionOf(column(r.launches, byStream[s], &LaunchRecord::delayNs));
    }

    for (uint32_t i = 0; i < r.launches.size(); ++i) {
        const LaunchRecord& l = r.launches[i];
        const bool kernel = t.events[l.activity].kind == trace::EventKind::Kernel;
        if (kernel && static_cast<double>(l.gpuNs) < kShortKernelShareOfCpu * static_cast<double>(l.cpuNs))
            r.shortKernels.push_back(i);
        const stats::Distribution& delays = r.streams[l.stream].delay;
        if (l.delayNs > kLongLaunchDelayNs && (delays.count < kMinLaunchesForP99 || l.delayNs > delays.p99))
            r.longDelays.push_back(i);
    }
    std::stable_sort(r.shortKernels.begin(), r.shortKernels.end(), [&](uint32_t a, uint32_t b) {
        return r.launches[a].cpuNs - r.launches[a].gpuNs > r.launches[b].cpuNs - r.launches[b].gpuNs;
    });
    std::stable_sort(r.longDelays.begin(), r.longDelays.end(),
                     [&](uint32_t a, uint32_t b) { return r.launches[a].delayNs > r.launches[b].delayNs; });
    return r;
}

std::string shortKernelRuleText()
{
    return "a kernel whose GPU duration is below " + stats::formatFixed(kShortKernelShareOfCpu * 100, 0)
        + "% of its launch call's CPU duration";
}

std::string longDelayRuleText()
{
    return "a launch delay (first activity start - call start) above " + stats::formatDuration(kLongLaunchDelayNs)
        + " and, on a stream with " + std::to_string(kMinLaunchesForP99) + " launches or more, above its p99";
}

} // namespace tilescope::analysis
