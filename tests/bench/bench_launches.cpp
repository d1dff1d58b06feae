// SPDX-License-Identifier: MIT
// Launch statistics and repeated kernel sequences on a large trace against its load (issue #13: every
// analysis in at most 20% of the load time), each with its JSON report as the CLI prints it.
// Usage: bench_launches TRACE   (tools/make_large_trace.py makes one with --size-mb N)
#include "benchtimer.h"

#include "analysis/kernelsequences.h"
#include "analysis/launchstats.h"
#include "report/launchreport.h"
#include "report/sequencereport.h"
#include "trace/traceloader.h"

#include <cstdio>

using namespace tilescope;

using bench::timed;

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: bench_launches TRACE\n");
        return 2;
    }
    trace::LoadOptions options;
    options.keepRawArgs = false;
    std::unique_ptr<trace::Trace> t;
    const double load = timed([&] { t = trace::loadTrace(argv[1], options); });
    size_t bytes = 0, launches = 0, sequences = 0, kernels = 0;
    const double launchS = timed([&] {
        const analysis::LaunchStats s = analysis::computeLaunchStats(*t);
        launches = s.launches.size();
        bytes += report::launchStatsJson(*t, s, 10).size();
    });
    const double sequenceS = timed([&] {
        const analysis::KernelSequenceReport r = analysis::findKernelSequences(*t);
        sequences = r.sequences.size();
        kernels = r.kernels;
        bytes += report::sequencesJson(*t, r).size();
    });
    std::printf("%zu events, %zu kernels; load %.3f s\n", t->events.size(), kernels, load);
    std::printf("launches: %.3f s = %.1f%% of the load (%zu launches)\n", launchS, 100.0 * launchS / load, launches);
    std::printf("sequences: %.3f s = %.1f%% of the load (%zu sequences)\n", sequenceS, 100.0 * sequenceS / load, sequences);
    std::printf("(%zu bytes of JSON)\n", bytes);
    return 0;
}
