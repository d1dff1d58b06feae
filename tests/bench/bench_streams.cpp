// SPDX-License-Identifier: MIT
// The #13 analyses' cost on a large trace against its load (issue #13: each in at most 20% of the load time):
// idle time per stream, the launch queue length, the per-step table, the temporal breakdown with kernel
// types, and the key-averages diff of two summaries (the trace against itself: the diff's own cost, the
// summaries apart), each alone over the loaded trace, best of three.
// Usage: bench_streams TRACE   (tools/make_large_trace.py makes one with --size-mb N)
#include "benchtimer.h"

#include "analysis/breakdown.h"
#include "analysis/queuelength.h"
#include "analysis/steps.h"
#include "analysis/streamidle.h"
#include "stats/keyaveragesdiff.h"
#include "trace/traceloader.h"

#include <algorithm>
#include <cstdio>

using namespace tilescope;

using bench::bestOfThree;
using bench::timed;

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: bench_streams TRACE\n");
        return 2;
    }
    trace::LoadOptions options;
    options.keepRawArgs = false;
    std::unique_ptr<trace::Trace> t;
    const double load = timed([&] { t = trace::loadTrace(argv[1], options); });
    size_t streams = 0, steps = 0;
    const double idle = bestOfThree([&] { streams = analysis::computeStreamIdle(*t).streams.size(); });
    const double queue = bestOfThree([&] {
        steps = 0;
        for (const auto& q : analysis::computeQueueLength(*t).streams)
            steps += q.series.size();
    });
    size_t stepRows = 0, devices = 0, diffRows = 0;
    const double stepTable = bestOfThree([&] { stepRows = analysis::computeStepTable(*t).steps.size(); });
    const double breakdown = bestOfThree([&] { devices = analysis::computeBreakdown(*t).devices.size(); });
    stats::KeyAverages averages;
    const double summary = timed([&] { averages = stats::computeKeyAverages(*t); });
    const double diff = bestOfThree([&] { diffRows = stats::diffKeyAverages(averages, averages).rows.size(); });
    std::printf("events %zu, streams %zu, queue changes %zu, steps %zu, devices %zu, diff rows %zu\n", t->events.size(), streams, steps,
                stepRows, devices, diffRows);
    const auto line = [&](const char* name, double s) { std::printf("%-10s %.3f s (%.1f%% of load)\n", name, s, 100 * s / load); };
    std::printf("load       %.3f s\n", load);
    line("idle", idle);
    line("queue", queue);
    line("steps", stepTable);
    line("breakdown", breakdown);
    line("summary", summary);
    line("diff", diff);
    return 0;
}
