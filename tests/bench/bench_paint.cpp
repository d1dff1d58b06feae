// SPDX-License-Identifier: MIT
// The timeline's paint itself: TimelineView frames rendered offscreen into a QImage while panning (A/D
// steps, an eighth of the canvas) and zooming (W/S steps, 0.7x) at several zoom levels, with the
// draw-window cache on and off in the same run, with the draw lists each frame built.
// Usage: QT_QPA_PLATFORM=offscreen bench_paint TRACE [REPEATS]   (best of REPEATS runs per row, default 3)
#include "timeline/busywindowcache.h"
#include "timelineview.h"
#include "tracedocument.h"

#include <QApplication>
#include <QImage>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace {

struct Run
{
    double avgMs = 0, worstMs = 0;
    double listMs = 0; // of the average frame, building draw lists
    uint64_t builds = 0, requests = 0;
};

// One sequence of frames: `start` places the view, then each frame applies `step` and paints.
struct Sequence
{
    std::string name;
    std::function<void(TimelineView&)> start;
    std::function<void(TimelineView&)> step;
    int frames;
};

Run play(TimelineView& view, QImage& image, const Sequence& s, bool cached)
{
    view.setDrawCacheEnabled(cached); // drops every window: each run starts cold
    s.start(view);
    view.render(&image); // the first frame builds every window; it is not a pan or zoom frame
    const auto stats0 = view.drawCacheStats();
    Run run;
    for (int f = 0; f < s.frames; ++f) {
        s.step(view);
        const auto a = std::chrono::steady_clock::now();
        view.render(&image);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count();
        run.avgMs += ms / s.frames;
        run.worstMs = std::max(run.worstMs, ms);
    }
    run.builds = view.drawCacheStats().builds - stats0.builds;
    run.requests = view.drawCacheStats().requests - stats0.requests;
    run.listMs = (view.drawCacheStats().buildMs - stats0.buildMs) / s.frames;
    return run;
}

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    if (argc < 2 || argc > 3) {
        std::fprintf(stderr, "usage: bench_paint TRACE [REPEATS]\n");
        return 2;
    }
    const int repeats = argc == 3 ? std::max(1, std::atoi(argv[2])) : 3;
    tilescope::trace::LoadOptions options;
    options.keepRawArgs = false;
    const auto l0 = std::chrono::steady_clock::now();
    const auto doc = TraceDocument::build(QString::fromLocal8Bit(argv[1]), {}, options);
    const double loadS = std::chrono::duration<double>(std::chrono::steady_clock::now() - l0).count();

    TimelineView view;
    view.resize(1920 + view.labelWidth(), 1000);
    view.show();
    QApplication::processEvents();
    view.setDocument(doc);
    QApplication::processEvents();
    QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
    int trackLanes = 0, shown = 0, busyLanes = 0;
    using Kind = TimelineView::Lane::Kind;
    for (const auto& lane : view.lanes()) {
        trackLanes += lane.kind == Kind::Track;
        shown += lane.kind == Kind::Track && lane.y < view.height();
        busyLanes += lane.kind == Kind::DeviceBusy || lane.kind == Kind::CpuBusy || lane.kind == Kind::ThreadBusy
            || lane.kind == Kind::Overlap;
    }
    std::printf("%zu events, %d event lanes (%d in the %dx%d frame), %d busy lanes; document built in %.1f s\n", doc->trace->events.size(),
                trackLanes, shown, view.width(), view.height(), busyLanes, loadS);

    const int64_t first = doc->contentStart, span = doc->contentEnd - doc->contentStart;
    const int canvas = view.canvasWidth();
    {
        // What the busy lanes computed each frame before BusyWindowCache (drawBusy's per-pixel coverage), at the whole trace.
        view.fitAll();
        const auto& ov = doc->overlap;
        std::vector<const tilescope::analysis::IntervalSet*> sets{&ov.cpuBusy, &ov.gpuBusy, &ov.cpuBusy, &doc->cpuAndGpu};
        for (const auto& d : ov.devices)
            sets.push_back(&d.busy);
        for (const auto& t : ov.threads)
            sets.push_back(&t.busy);
        size_t intervals = 0;
        for (const auto* set : sets)
            intervals += set->intervals().size();
        double coverageMs = 1e9;
        for (int r = 0; r < 5; ++r) { // best of 5
            const auto a = std::chrono::steady_clock::now();
            for (const auto* set : sets)
                (void)tilescope::timeline::TimelineIndex::coverage(*set, view.viewStart(), view.nsPerPixel(), canvas);
            coverageMs = std::min(coverageMs, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
        }
        std::printf("busy-lane coverage at the whole trace: %.2f ms a frame, best of 5 (%zu sets, %zu intervals)\n", coverageMs,
                    sets.size(), intervals);
        // The same through BusyWindowCache: a frame that builds every window (3x the view), and one that reuses them.
        tilescope::timeline::BusyWindowCache cache;
        double buildMs = 1e9, reuseMs = 1e9;
        for (int r = 0; r < 5; ++r) {
            cache.clear();
            for (double* best : {&buildMs, &reuseMs}) {
                const auto a = std::chrono::steady_clock::now();
                for (const auto* set : sets)
                    (void)cache.coverage(*set, view.viewStart(), view.nsPerPixel(), canvas);
                *best = std::min(*best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
            }
        }
        std::printf("the same from BusyWindowCache: %.2f ms building the windows, %.2f ms from built windows, best of 5\n", buildMs,
                    reuseMs);
    }
    const int middle = view.canvasLeft() + canvas / 2;
    std::vector<Sequence> sequences;
    for (const double zoom : {1.0, 0.1, 0.01, 1e-3, 1e-4, 1e-5}) {
        const int64_t visible = std::max<int64_t>(2000, int64_t(double(span) * zoom));
        const int64_t at = zoom == 1.0 ? first : first + span / 3;
        auto place = [at, visible](TimelineView& v) { v.zoomToRange(at, at + visible); };
        char name[64];
        if (zoom < 1.0) { // the whole trace cannot pan
            std::snprintf(name, sizeof name, "pan, 1/%g of the trace", 1 / zoom);
            sequences.push_back({name, place, [canvas](TimelineView& v) { v.panByPixels(canvas / 8.0); }, 24});
        }
        std::snprintf(name, sizeof name, "zoom in and out, from 1/%g", 1 / zoom);
        int frame = 0;
        sequences.push_back(
            {name, place, [middle, frame](TimelineView& v) mutable { v.zoomBy(frame++ % 12 < 6 ? 0.7 : 1 / 0.7, middle); }, 24});
    }

    std::printf("\n| frames | cached: avg ms (lists) | worst | lists built | not cached: avg ms (lists) | worst | lists built |\n"
                "|---|---|---|---|---|---|---|\n");
    double sumCached = 0, sumDirect = 0, listsCached = 0, listsDirect = 0;
    for (const Sequence& s : sequences) {
        Run best[2];
        for (int r = 0; r < repeats; ++r)
            for (const bool cached : {true, false}) { // interleaved, so a busy moment hits both
                const Run run = play(view, image, s, cached);
                Run& b = best[cached ? 0 : 1];
                if (r == 0 || run.avgMs < b.avgMs)
                    b = run;
            }
        sumCached += best[0].avgMs;
        sumDirect += best[1].avgMs;
        listsCached += best[0].listMs;
        listsDirect += best[1].listMs;
        std::printf("| %s (%d) | %.2f (%.3f) | %.2f | %llu of %llu | %.2f (%.3f) | %.2f | %llu of %llu |\n", s.name.c_str(), s.frames,
                    best[0].avgMs, best[0].listMs, best[0].worstMs, static_cast<unsigned long long>(best[0].builds),
                    static_cast<unsigned long long>(best[0].requests), best[1].avgMs, best[1].listMs, best[1].worstMs,
                    static_cast<unsigned long long>(best[1].builds), static_cast<unsigned long long>(best[1].requests));
    }
    const double rows = double(sequences.size());
    std::printf("\nmean over the rows: %.2f ms a frame cached, %.2f ms not cached (%.2fx); draw lists %.3f ms a frame cached, "
                "%.3f ms not cached (%.1fx); best of %d runs\n",
                sumCached / rows, sumDirect / rows, sumDirect / std::max(sumCached, 1e-9), listsCached / rows, listsDirect / rows,
                listsDirect / std::max(listsCached, 1e-9), repeats);
    return 0;
}
