// SPDX-License-Identifier: MIT
// The memory graph's costs on a large trace: analyzeMemory against the load, the per-pixel summaries'
// build, and one frame (every device, 3840 px) at several zoom levels.
// Usage: bench_memory TRACE   (tools/make_large_trace.py makes a 1 GB trace with --size-mb 1000)
#include "benchtimer.h"

#include "memory/memoryanalysis.h"
#include "memory/memoryseriessummary.h"
#include "trace/traceloader.h"

#include <algorithm>
#include <cstdio>
#include <ctime>

using namespace tilescope;

using bench::secondsSince;

namespace {
// This thread's CPU time: on a shared machine the wall time of a few milliseconds includes other
// processes' time slices.
double threadCpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1000.0 + static_cast<double>(ts.tv_nsec) / 1e6;
}
} // namespace

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: bench_memory TRACE\n");
        return 2;
    }
    trace::LoadOptions options;
    options.keepRawArgs = false;
    const auto load0 = bench::Clock::now();
    const auto t = trace::loadTrace(argv[1], options);
    const double load = secondsSince(load0);
    const auto analysis0 = bench::Clock::now();
    const auto analysis = memory::analyzeMemory(*t);
    const double analyze = secondsSince(analysis0);
    const auto summary0 = bench::Clock::now();
    std::vector<memory::MemorySeriesSummary> summaries;
    size_t samples = 0;
    for (const auto& d : analysis.devices) {
        summaries.emplace_back(d.samples);
        samples += d.samples.size();
    }
    const double summarize = secondsSince(summary0);
    std::printf("%zu events, %zu memory records, %zu devices, %zu blocks, %zu steps; load %.3f s, analyzeMemory %.3f s (%.1f%% of the "
                "load), summaries %.3f s (%.1f%%)\n",
                t->events.size(), t->memory.size(), analysis.devices.size(), analysis.blocks.size(), analysis.steps.size(), load, analyze,
                100.0 * analyze / load, summarize, 100.0 * summarize / load);
    const int pixels = 3840;
    const int64_t span = t->lastTime() - t->firstTime();
    std::vector<memory::PixelSummary> columns;
    for (const double zoom : {1.0, 0.1, 0.01, 1e-3, 1e-4, 1e-5, 1e-6}) {
        const auto visible = std::max<int64_t>(1000, static_cast<int64_t>(static_cast<double>(span) * zoom));
        double total = 0, worst = 0, cpuTotal = 0, cpuWorst = 0;
        const int frames = 50;
        size_t withSamples = 0;
        for (int f = 0; f < frames; ++f) {
            const int64_t t0 = t->firstTime() + static_cast<int64_t>(static_cast<double>(span - visible) * f / (frames - 1));
            const auto s = bench::Clock::now();
            const double cpu0 = threadCpuMs();
            for (const auto& summary : summaries) {
                summary.summarize(t0, t0 + visible, pixels, columns);
                for (const auto& c : columns)
                    withSamples += c.hasSamples;
            }
            const double ms = 1000.0 * secondsSince(s);
            const double cpuMs = threadCpuMs() - cpu0;
            cpuTotal += cpuMs;
            cpuWorst = std::max(cpuWorst, cpuMs);
            total += ms;
            worst = std::max(worst, ms);
        }
        std::printf("zoom %-7g (%14.3f us visible): wall %6.3f ms/frame avg, %6.3f worst; CPU %6.3f avg, %6.3f worst; %5zu columns with "
                    "samples/frame (%zu samples)\n",
                    zoom, static_cast<double>(visible) / 1000.0, total / frames, worst, cpuTotal / frames, cpuWorst, withSamples / frames,
                    samples);
    }
    return 0;
}
