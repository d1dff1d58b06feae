// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/collectives.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tilescope::trace {
class Trace;
struct RankSet;
} // namespace tilescope::trace

namespace tilescope::analysis {

// One rank's figures over its steps (analysis/steps: ProfilerStep#N or a repeated region). A trace without
// steps counts as one step: defaultOverlapWindow. "Per step" is the total over the steps / their count.
struct RankFigures
{
    int64_t rank = 0;
    std::string file;
    uint32_t steps = 0;
    bool hasSteps = false;           // false: the whole trace was taken as one step
    int64_t stepMedianNs = 0;        // median step duration
    int64_t gpuBusyNs = 0;           // GPU busy (kernels, memcpy, memset of all devices) summed over the steps
    int64_t computeNsPerStep = 0;    // computation kernels (not communication), as breakdown counts them
    int64_t collectiveNsPerStep = 0; // time inside collectives (analysis/collectives): the wait
    int64_t collectiveMedianNs = 0;  // its median over the steps
    double commCompOverlap = 0;      // |collectives ∩ computation kernels| / |collectives| within the steps
    CollectiveSource collectiveSource = CollectiveSource::None;
    std::vector<int64_t> stepNs;       // each step's duration
    std::vector<int64_t> collectiveNs; // each step's time inside collectives
};

RankFigures computeRankFigures(const trace::Trace& trace);

// The straggler rule (issue #13). In a synchronous collective every rank leaves together, so step times
// cannot name the slow rank; the time inside the collectives can: the others wait there for the rank
// that arrives last, which itself waits least. A rank is a straggler when its collective time per step
// is below kStragglerWaitRatio times the median of the other ranks' AND the difference is at least
// kStragglerMinGapOfStep of the median step time (a tiny absolute difference is noise, not a straggler).
// Only sought with two ranks or more, every one having collectives.
constexpr double kStragglerWaitRatio = 0.6;
constexpr double kStragglerMinGapOfStep = 0.05;

// The evidence per rank, in the order of the figures given.
struct StragglerEvidence
{
    int64_t rank = 0;
    int64_t othersMedianNs = 0; // median collective time per step of the other ranks
    double waitRatio = 0;       // this rank's / othersMedianNs (0 when that is 0)
    double gapOfStep = 0;       // (othersMedianNs - this rank's) / the median step time over all ranks
    bool straggler = false;
};

struct StragglerVerdict
{
    std::vector<int64_t> stragglers; // ranks, ascending; empty when no rank stands out
    std::vector<StragglerEvidence> evidence;
    bool applicable = false; // false: fewer than two ranks, or a rank without collectives
    std::string rule;        // the rule in words, with its thresholds
};

StragglerVerdict findStragglers(const std::vector<RankFigures>& ranks);

struct RanksReport
{
    int64_t worldSize = 0;
    std::vector<RankFigures> ranks; // by rank
    StragglerVerdict verdict;
    std::vector<std::string> skipped; // the set's files passed over as not traces (trace::RankSet::skipped)
};

// Every rank's figures (in parallel, one thread per core) and the straggler verdict.
RanksReport computeRanks(const trace::RankSet& set);

} // namespace tilescope::analysis
