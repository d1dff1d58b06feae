// SPDX-License-Identifier: MIT
// Time to build one frame of draw lists (every track, 1920 px wide) at several zoom levels.
// Usage: bench_timeline TRACE   (tools/make_large_trace.py makes a 3.5M-event trace with --size-mb 1000)
#include "benchtimer.h"

#include "analysis/overlap.h"
#include "timeline/timelineindex.h"
#include "trace/traceloader.h"

#include <algorithm>
#include <cstdio>

using namespace tilescope;

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: bench_timeline TRACE\n");
        return 2;
    }
    const auto load0 = bench::Clock::now();
    const auto t = trace::loadTrace(argv[1]);
    const auto load1 = bench::Clock::now();
    const timeline::TimelineIndex index(*t);
    const auto overlap = analysis::computeOverlap(*t);
    const auto load2 = bench::Clock::now();
    std::printf("%zu events, %zu tracks; load %.2f s, index + overlap %.2f s\n", t->events.size(), t->tracks.size(),
                bench::secondsBetween(load0, load1), bench::secondsBetween(load1, load2));
    const double width = 1920;
    const int64_t span = t->lastTime() - t->firstTime();
    for (const double zoom : {1.0, 0.1, 0.01, 1e-3, 1e-4, 1e-5, 1e-6}) {
        const auto visible = std::max<int64_t>(1000, static_cast<int64_t>(static_cast<double>(span) * zoom));
        const double nsPerPixel = static_cast<double>(visible) / width;
        double total = 0, worst = 0;
        size_t items = 0;
        uint64_t covered = 0;
        const int frames = 20;
        for (int f = 0; f < frames; ++f) {
            // Pan across the trace: each frame a different window.
            const int64_t t0 = t->firstTime() + static_cast<int64_t>(static_cast<double>(span - visible) * f / (frames - 1));
            const auto s = bench::Clock::now();
            size_t frameItems = 0;
            for (trace::TrackId track = 0; track < t->tracks.size(); ++track) {
                const auto list = index.query(track, t0, t0 + visible, nsPerPixel);
                frameItems += list.items.size();
                covered += list.eventsCovered;
            }
            for (const auto& d : overlap.devices)
                frameItems += timeline::TimelineIndex::foldIntervals(d.busy, t0, t0 + visible, nsPerPixel).size();
            frameItems += timeline::TimelineIndex::foldIntervals(overlap.cpuBusy, t0, t0 + visible, nsPerPixel).size();
            const double ms = bench::millisecondsSince(s);
            total += ms;
            worst = std::max(worst, ms);
            items += frameItems;
        }
        std::printf("zoom %-7g (%12.3f us visible): %7.3f ms/frame avg, %7.3f ms worst, %7zu items/frame, %10llu events/frame\n", zoom,
                    static_cast<double>(visible) / 1000.0, total / frames, worst, items / frames,
                    static_cast<unsigned long long>(covered / frames));
    }
    return 0;
}
