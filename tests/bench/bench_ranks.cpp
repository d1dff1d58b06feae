// SPDX-License-Identifier: MIT
// A folder of per-rank traces loaded in parallel against the same files loaded one after another (issue #13:
// 8 ranks in at most 0.7x the serial time on the 2-core build machine). Each mode runs `repeats` times,
// alternating, and the best time of each counts (the least disturbed by other work on the machine).
// Then the per-rank figures and the straggler verdict (analysis::computeRanks) against the parallel load.
// Usage: bench_ranks FOLDER [REPEATS]   (tools/make_rank_set.sh makes 8 ranks from a fixture)
#include "benchtimer.h"

#include "analysis/ranks.h"
#include "trace/rankset.h"

#include <cstdio>
#include <cstdlib>
#include <thread>

using namespace tilescope;

namespace {
double loadSeconds(const std::vector<std::string>& files, unsigned threads)
{
    trace::RankSetLoadOptions options;
    options.load.keepRawArgs = false; // as the CLI loads
    options.threads = threads;
    const auto start = bench::Clock::now();
    const trace::RankSet set = trace::loadRankSet(files, options);
    const double seconds = bench::secondsSince(start);
    if (set.ranks.size() != files.size())
        std::abort();
    return seconds;
}
} // namespace

int main(int argc, char** argv)
{
    if (argc < 2 || argc > 3) {
        std::fprintf(stderr, "usage: bench_ranks FOLDER [REPEATS]\n");
        return 2;
    }
    const int repeats = argc == 3 ? std::atoi(argv[2]) : 3;
    const std::vector<std::string> files = trace::traceFilesInFolder(argv[1]);
    double serial = 1e300, parallel = 1e300;
    for (int r = 0; r < repeats; ++r) {
        serial = std::min(serial, loadSeconds(files, 1));
        parallel = std::min(parallel, loadSeconds(files, 0));
    }
    std::printf("ranks: %zu files, %u hardware threads\n", files.size(), std::thread::hardware_concurrency());
    std::printf("serial (one after another): %.3f s\n", serial);
    std::printf("parallel (all cores):       %.3f s\n", parallel);
    std::printf("parallel / serial:          %.2fx\n", parallel / serial);
    trace::RankSetLoadOptions options;
    options.load.keepRawArgs = false;
    const trace::RankSet set = trace::loadRankSet(files, options);
    double analysis = 1e300;
    for (int r = 0; r < repeats; ++r) {
        const auto start = bench::Clock::now();
        const analysis::RanksReport report = analysis::computeRanks(set);
        analysis = std::min(analysis, bench::secondsSince(start));
        if (report.ranks.size() != files.size())
            std::abort();
    }
    std::printf("ranks analysis:             %.3f s (%.0f%% of the parallel load)\n", analysis, 100.0 * analysis / parallel);
    return 0;
}
