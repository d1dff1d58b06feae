// SPDX-License-Identifier: MIT
#include "analysis/launchstats.h"

#include "analysis/overlap.h"
#include "stats/timetext.h"
#include "stats/torchtable.h"
#include "trace/eventkind.h"
#include "trace/trace.h"

#include <algorithm>
#include <map>
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
    std::unordered_map<uint32_t, uint32_t> slotByLaunch;
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
        const auto [it, added] = slotByLaunch.emplace(launch, static_cast<uint32_t>(pending.size()));
        if (added) {
            pending.push_back({launch, i, 1, e.duration});
            continue;
        }
        Pending& p = pending[it->second];
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

    // Streams by (device, stream, track) of each launch's first activity.
    std::map<std::tuple<int, int64_t, uint32_t>, uint32_t> streamByKey;
    for (const Pending& p : pending) {
        const trace::Track& track = t.tracks[t.events[p.first].track];
        streamByKey.emplace(std::make_tuple(track.device, track.stream.value_or(-1), t.events[p.first].track), 0);
    }
    for (auto& [key, index] : streamByKey) {
        index = static_cast<uint32_t>(r.streams.size());
        StreamLaunchStats s;
        s.device = std::get<0>(key);
        s.track = std::get<2>(key);
        s.stream = t.tracks[s.track].stream;
        r.streams.push_back(s);
    }

    std::map<std::string_view, uint64_t> apis;
    r.launches.reserve(pending.size());
    std::vector<std::vector<uint32_t>> byStream(r.streams.size());
    for (const Pending& p : pending) {
        const trace::Event& call = t.events[p.launch];
        const trace::Event& first = t.events[p.first];
        const trace::Track& track = t.tracks[first.track];
        LaunchRecord l;
        l.launch = p.launch;
        l.activity = p.first;
        l.activities = p.activities;
        l.stream = streamByKey.at(std::make_tuple(track.device, track.stream.value_or(-1), first.track));
        l.cpuNs = call.duration;
        l.gpuNs = p.gpuNs;
        l.delayNs = first.start - call.start;
        byStream[l.stream].push_back(static_cast<uint32_t>(r.launches.size()));
        r.launches.push_back(l);
        ++apis[t.name(call)];
    }

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

    for (const auto& [name, count] : apis)
        r.apis.emplace_back(std::string(name), count);
    std::stable_sort(r.apis.begin(), r.apis.end(), [](const auto& a, const auto& b) { return a.second > b.second; });

    for (uint32_t i = 0; i < r.launches.size(); ++i) {
        const LaunchRecord& l = r.launches[i];
        const bool kernel = t.events[l.activity].kind == trace::EventKind::Kernel;
        if (kernel && static_cast<double>(l.gpuNs) < kShortKernelShareOfCpu * static_cast<double>(l.cpuNs))
            r.shortKernels.push_back(i);
        if (l.delayNs > r.streams[l.stream].delay.p99 && l.delayNs > kLongLaunchDelayNs)
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
    return "a launch delay (first activity start - call start) above its stream's p99 and above "
        + stats::formatDuration(kLongLaunchDelayNs);
}

} // namespace tilescope::analysis
