// SPDX-License-Identifier: MIT
#include "analysis/streamidle.h"

#include "trace/eventkind.h"

#include <algorithm>
#include <tuple>

namespace tilescope::analysis {

int64_t streamNumberOf(const trace::Track& track) { return track.stream.value_or(track.tid.value_or(-1)); }

StreamIdleReport computeStreamIdle(const trace::Trace& t, std::optional<Interval> selection, int64_t kernelWaitThresholdNs)
{
    StreamIdleReport r;
    r.selection = selection;
    r.kernelWaitThresholdNs = kernelWaitThresholdNs;
    for (trace::TrackId track = 0; track < t.tracks.size(); ++track) {
        StreamIdle s;
        s.track = track;
        s.device = std::max(t.tracks[track].device, 0);
        s.stream = streamNumberOf(t.tracks[track]);
        bool any = false;
        int64_t busyEnd = 0;                              // the latest end so far: a gap starts there
        std::vector<std::pair<Interval, uint32_t>> gaps;  // each with the activity that ends it
        for (const uint32_t i : t.tracks[track].events) { // sorted by start
            const trace::Event& e = t.events[i];
            if (!trace::isGpuActivity(e.kind))
                continue;
            if (!any) {
                s.window.start = e.start;
                busyEnd = e.end();
                any = true;
                continue;
            }
            if (e.start > busyEnd)
                gaps.push_back({{busyEnd, e.start}, i});
            busyEnd = std::max(busyEnd, e.end());
        }
        if (!any)
            continue;
        s.window.end = busyEnd;
        if (selection) {
            s.window.start = std::max(s.window.start, selection->start);
            s.window.end = std::min(s.window.end, selection->end);
            if (s.window.end <= s.window.start)
                continue;
        }
        for (const auto& [gap, next] : gaps) {
            const int64_t clipped = std::min(gap.end, s.window.end) - std::max(gap.start, s.window.start);
            if (clipped <= 0)
                continue;
            const uint32_t launch = t.launchOf(next);
            if (launch != trace::kNoIndex && t.events[launch].start > gap.start) {
                s.hostWaitNs += clipped;
                ++s.hostWaitGaps;
            } else if (gap.end - gap.start < kernelWaitThresholdNs) {
                s.kernelWaitNs += clipped;
                ++s.kernelWaitGaps;
            } else {
                s.otherNs += clipped;
                ++s.otherGaps;
            }
        }
        s.idleNs = s.hostWaitNs + s.kernelWaitNs + s.otherNs;
        s.busyNs = (s.window.end - s.window.start) - s.idleNs;
        r.streams.push_back(s);
    }
    std::sort(r.streams.begin(), r.streams.end(), [](const StreamIdle& a, const StreamIdle& b) {
        return std::tie(a.device, a.stream, a.track) < std::tie(b.device, b.stream, b.track);
    });
    return r;
}

} // namespace tilescope::analysis
