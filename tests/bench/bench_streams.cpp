// SPDX-License-Identifier: MIT
// The per-stream analyses' cost on a large trace against its load (issue #13: each in at most 20% of the load
// time): idle time per stream and the launch queue length, each alone over the loaded trace, best of three.
// Usage: bench_streams TRACE   (tools/make_large_trace.py makes one with --size-mb N)
#include "benchtimer.h"

#include "analysis/queuelength.h"
#include "analysis/streamidle.h"
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
    std::printf("events %zu, streams %zu, queue changes %zu\n", t->events.size(), streams, steps);
    std::printf("load %.3f s\nidle %.3f s (%.1f%% of load)\nqueue %.3f s (%.1f%% of load)\n", load, idle, 100 * idle / load, queue,
                100 * queue / load);
    return 0;
}
