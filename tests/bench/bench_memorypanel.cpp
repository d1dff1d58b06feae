// SPDX-License-Identifier: MIT
// One frame of the memory graph as the app draws it (MemoryPanel: per-pixel summaries handed to QCustomPlot,
// then the plot painted), on a large trace at zoom levels from the whole trace down to microseconds, against
// the 8 ms frame budget. Offscreen: QT_QPA_PLATFORM=offscreen bench_memorypanel TRACE
#include "benchtimer.h"

#include "memorypanel.h"
#include "tracedocument.h"

#include "memory/memoryanalysis.h"
#include "trace/traceloader.h"

#undef QT_NO_FOREACH
#include <qcustomplot.h>

#include <QApplication>

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace tilescope;

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    if (argc != 2) {
        std::fprintf(stderr, "usage: bench_memorypanel TRACE\n");
        return 2;
    }
    auto clock = [] { return bench::Clock::now(); };
    auto ms = [](auto a, auto b) { return bench::millisecondsBetween(a, b); };
    trace::LoadOptions options;
    options.keepRawArgs = false;
    auto doc = std::make_shared<TraceDocument>();
    const auto l0 = clock();
    doc->trace = trace::loadTrace(argv[1], options);
    const auto l1 = clock();
    doc->memory = memory::analyzeMemory(*doc->trace);
    const auto l2 = clock();
    doc->contentStart = doc->trace->firstTime();
    doc->contentEnd = doc->trace->lastTime();
    MemoryPanel panel;
    panel.resize(1920, 300);
    panel.setCanvas(200, 0);
    const auto p0 = clock();
    panel.setDocument(doc); // builds the per-pixel summaries
    const auto p1 = clock();
    panel.show(); // lays the plot out at the panel's width
    QApplication::processEvents();
    panel.setView(doc->contentStart, doc->contentEnd);
    panel.plot()->replot(QCustomPlot::rpImmediateRefresh); // the first paint sets up the plot's buffers
    std::printf("%zu memory records; load %.0f ms; analyzeMemory %.0f ms + panel summaries %.0f ms = %.1f%% of the load (goal <= 10%%)\n",
                doc->trace->memory.size(), ms(l0, l1), ms(l1, l2), ms(p0, p1), 100.0 * (ms(l1, l2) + ms(p0, p1)) / ms(l0, l1));
    const int64_t first = doc->trace->firstTime(), span = doc->trace->lastTime() - first;
    double worstOverall = 0;
    for (const double zoom : {1.0, 0.1, 0.01, 1e-3, 1e-4, 1e-5, 1e-6}) {
        const int64_t visible = std::max<int64_t>(2000, int64_t(double(span) * zoom));
        std::vector<double> frames, data;
        for (int f = 0; f < 20; ++f) {
            const int64_t start = first + int64_t(double(span - visible) * f / 19);
            const auto s = clock();
            panel.setView(start, start + visible);
            data.push_back(ms(s, clock()));
            panel.plot()->replot(QCustomPlot::rpImmediateRefresh);
            frames.push_back(ms(s, clock()));
        }
        std::sort(frames.begin(), frames.end());
        std::sort(data.begin(), data.end());
        worstOverall = std::max(worstOverall, frames.back());
        std::printf("zoom %-6g (%13.3f us visible): frame median %6.2f ms (summaries %5.2f), worst %6.2f ms, %5d points, %d items\n", zoom,
                    double(visible) / 1000, frames[frames.size() / 2], data[data.size() / 2], frames.back(), panel.drawnPoints(),
                    panel.plot()->itemCount());
    }
    // Where a full-view frame goes: each part of the plot alone.
    panel.setView(first, first + span);
    for (int mode = 0; mode < 3; ++mode) {
        for (int i = 0; i < panel.plot()->plottableCount(); ++i)
            panel.plot()->plottable(i)->setVisible(mode != 1);
        panel.plot()->xAxis->grid()->setVisible(mode != 2);
        panel.plot()->yAxis->grid()->setVisible(mode != 2);
        const auto s = clock();
        panel.plot()->replot(QCustomPlot::rpImmediateRefresh);
        std::printf("full view, %s: %.2f ms\n", mode == 0 ? "everything" : mode == 1 ? "no plottables" : "no grid", ms(s, clock()));
    }
    std::printf("plot data area %d px wide\n", panel.plot()->axisRect()->width());
    std::printf("worst frame %.2f ms = %.2fx the 8 ms budget\n", worstOverall, worstOverall / 8.0);
    return 0;
}
