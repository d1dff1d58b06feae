// SPDX-License-Identifier: MIT
#include "analysis/ranks.h"

#include "analysis/breakdown.h"
#include "analysis/overlap.h"
#include "analysis/steps.h"
#include "trace/rankset.h"
#include "trace/trace.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <exception>
#include <thread>

namespace tilescope::analysis {

namespace {

// The lower median of whole nanoseconds (an observed value, never an average of two).
int64_t medianOf(std::vector<int64_t> values)
{
    if (values.empty())
        return 0;
    const size_t mid = (values.size() - 1) / 2;
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
    return values[mid];
}

std::string formatRatio(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
}

} // namespace

RankFigures computeRankFigures(const trace::Trace& t)
{
    RankFigures r;
    const StepTable table = computeStepTable(t);
    std::vector<Interval> windows;
    int64_t gpuBusy = 0;
    for (const StepRow& s : table.steps) {
        windows.push_back({s.start, s.end});
        gpuBusy += s.gpuBusyNs;
    }
    r.hasSteps = !windows.empty();
    if (!r.hasSteps) {
        const auto whole = defaultOverlapWindow(t);
        if (!whole)
            return r;
        windows.push_back(*whole);
        gpuBusy = computeOverlap(t, *whole).gpuBusy.length();
    }
    r.steps = static_cast<uint32_t>(windows.size());
    r.gpuBusyNs = gpuBusy;

    const Collectives collectives = findCollectives(t);
    r.collectiveSource = collectives.source;
    const IntervalSet computation = kernelTypeSets(t).computation;
    const IntervalSet collectivesOnCompute = collectives.time.intersection(computation);
    int64_t computeNs = 0, collectiveNs = 0, overlapNs = 0;
    for (const Interval& w : windows) {
        r.stepNs.push_back(w.end - w.start);
        r.collectiveNs.push_back(collectives.time.lengthWithin(w));
        collectiveNs += r.collectiveNs.back();
        computeNs += computation.lengthWithin(w);
        overlapNs += collectivesOnCompute.lengthWithin(w);
    }
    const auto steps = static_cast<int64_t>(r.steps);
    r.stepMedianNs = medianOf(r.stepNs);
    r.computeNsPerStep = computeNs / steps;
    r.collectiveNsPerStep = collectiveNs / steps;
    r.collectiveMedianNs = medianOf(r.collectiveNs);
    r.commCompOverlap = collectiveNs > 0 ? double(overlapNs) / double(collectiveNs) : 0.0;
    return r;
}

StragglerVerdict findStragglers(const std::vector<RankFigures>& ranks)
{
    StragglerVerdict v;
    v.rule = "a rank whose time inside collectives per step is below " + formatRatio(kStragglerWaitRatio)
        + "x the median of the other ranks' and at least " + formatRatio(kStragglerMinGapOfStep * 100)
        + "% of the median step shorter: the others wait for it";
    v.applicable = ranks.size() >= 2
        && std::all_of(ranks.begin(), ranks.end(), [](const RankFigures& r) { return r.collectiveSource != CollectiveSource::None; });
    std::vector<int64_t> stepMedians;
    for (const RankFigures& r : ranks)
        stepMedians.push_back(r.stepMedianNs);
    const int64_t stepMedian = medianOf(stepMedians);
    for (size_t i = 0; i < ranks.size(); ++i) {
        std::vector<int64_t> others;
        for (size_t j = 0; j < ranks.size(); ++j)
            if (j != i)
                others.push_back(ranks[j].collectiveNsPerStep);
        StragglerEvidence e;
        e.rank = ranks[i].rank;
        // The upper median of the others: with two others, the larger (a lone slow partner cannot hide it).
        if (!others.empty()) {
            std::sort(others.begin(), others.end());
            e.othersMedianNs = others[others.size() / 2];
        }
        const int64_t wait = ranks[i].collectiveNsPerStep;
        e.waitRatio = e.othersMedianNs > 0 ? double(wait) / double(e.othersMedianNs) : 0.0;
        e.gapOfStep = stepMedian > 0 ? double(e.othersMedianNs - wait) / double(stepMedian) : 0.0;
        e.straggler = v.applicable && e.othersMedianNs > 0 && e.waitRatio < kStragglerWaitRatio && e.gapOfStep >= kStragglerMinGapOfStep;
        if (e.straggler)
            v.stragglers.push_back(e.rank);
        v.evidence.push_back(e);
    }
    std::sort(v.stragglers.begin(), v.stragglers.end());
    return v;
}

RanksReport computeRanks(const trace::RankSet& set)
{
    RanksReport report;
    report.worldSize = set.worldSize;
    report.skipped = set.skipped;
    report.ranks.resize(set.ranks.size());
    std::atomic<size_t> next{0};
    std::vector<std::exception_ptr> errors(set.ranks.size()); // (bad_alloc) rethrown on this thread
    const auto worker = [&] {
        for (size_t i = next++; i < set.ranks.size(); i = next++) {
            try {
                report.ranks[i] = computeRankFigures(*set.ranks[i].trace);
            } catch (...) {
                errors[i] = std::current_exception();
            }
            report.ranks[i].rank = set.ranks[i].rank;
            report.ranks[i].file = set.ranks[i].file;
        }
    };
    const unsigned threads = std::min<unsigned>(std::max(1u, std::thread::hardware_concurrency()), static_cast<unsigned>(set.ranks.size()));
    std::vector<std::thread> pool;
    for (unsigned k = 1; k < threads; ++k)
        pool.emplace_back(worker);
    worker();
    for (std::thread& t : pool)
        t.join();
    for (const std::exception_ptr& e : errors)
        if (e)
            std::rethrow_exception(e);
    report.verdict = findStragglers(report.ranks);
    return report;
}

} // namespace tilescope::analysis
