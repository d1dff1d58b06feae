// SPDX-License-Identifier: MIT
// The findings' cost on a large trace against its load (issue #12: diagnose in at most 20% of the load time):
// the rules alone over inputs the app has already computed, and the inputs diagnose needs that the other
// views do not already have (the memory analysis and the classification) as the CLI computes them.
// Usage: bench_findings TRACE   (tools/make_large_trace.py makes a 1 GB trace with --size-mb 1000)
#include "benchtimer.h"

#include "analysis/overlap.h"
#include "findings/diagnose.h"
#include "memory/memoryanalysis.h"
#include "roofline/classify.h"
#include "stats/keyaverages.h"
#include "trace/traceloader.h"

#include <cstdio>

using namespace tilescope;

using bench::timed;

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: bench_findings TRACE\n");
        return 2;
    }
    trace::LoadOptions options;
    options.keepRawArgs = false;
    std::unique_ptr<trace::Trace> t;
    const double load = timed([&] { t = trace::loadTrace(argv[1], options); });
    stats::KeyAverages averages;
    analysis::OverlapReport overlap;
    memory::MemoryAnalysis memoryAnalysis;
    roofline::ClassifyReport classification;
    const double averagesS = timed([&] { averages = stats::computeKeyAverages(*t); });
    const double overlapS = timed([&] { overlap = analysis::computeOverlap(*t); });
    const double memoryS = timed([&] { memoryAnalysis = memory::analyzeMemory(*t); });
    const double classifyS = timed([&] { classification = roofline::classify(*t, {}); });
    std::vector<findings::Finding> found;
    const double rules = timed([&] {
        found = findings::diagnose(*t, {&averages, &overlap, &memoryAnalysis, &classification, nullptr, std::nullopt});
    });
    // A Shift+drag range: the middle tenth of the trace, with its own averages and overlap.
    const int64_t span = t->lastTime() - t->firstTime();
    const analysis::Interval window{t->firstTime() + span * 45 / 100, t->firstTime() + span * 55 / 100};
    std::vector<findings::Finding> inRange;
    const double rangeS = timed([&] {
        stats::KeyAveragesOptions o;
        o.window = std::pair{window.start, window.end};
        const auto rangeAverages = stats::computeKeyAverages(*t, o);
        const auto rangeOverlap = analysis::computeOverlap(*t, window);
        findings::DiagnoseInputs in{&rangeAverages, &rangeOverlap, &memoryAnalysis, &classification, nullptr, window};
        inRange = findings::diagnose(*t, in);
    });
    std::printf("%zu events; load %.3f s\n", t->events.size(), load);
    std::printf("diagnose's rules over computed inputs: %.3f s = %.1f%% of the load (%zu findings)\n", rules, 100.0 * rules / load,
                found.size());
    std::printf("with the memory analysis and classification it needs: %.3f s = %.1f%% of the load\n", rules + memoryS + classifyS,
                100.0 * (rules + memoryS + classifyS) / load);
    std::printf("everything tilescope-cli diagnose computes after the load (+ key averages %.3f s, overlap %.3f s): %.3f s = %.1f%%\n",
                averagesS, overlapS, rules + memoryS + classifyS + averagesS + overlapS,
                100.0 * (rules + memoryS + classifyS + averagesS + overlapS) / load);
    std::printf("a range of a tenth of the trace (its averages, overlap and rules): %.3f s = %.1f%% of the load (%zu findings)\n", rangeS,
                100.0 * rangeS / load, inRange.size());
    return 0;
}
