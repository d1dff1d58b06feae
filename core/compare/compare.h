// SPDX-License-Identifier: MIT
#pragma once

#include "roofline/classify.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tilescope::trace {
class Trace;
}

namespace tilescope::compare {

// The kernel-vs-reference question (issue #12): two regions or two kernels of one trace side by side.

// A side is a record_function region (its gpu_user_annotation spans) or a GPU activity name (exact match).
enum class SideKind : uint8_t { Region, Kernel };
std::string_view sideKindName(SideKind kind); // "region", "kernel"

// One call of a side: a region call is its spans with one External id (one record_function call may
// leave a span on each stream it used), a kernel call is one launch.
struct Call
{
    int64_t startNs = 0, endNs = 0; // the first span's start to the last span's end (kernel: the activity)
    int64_t gpuNs = 0;              // the GPU activities inside its spans, summed (kernel: its duration)
};

// GPU time per call in microseconds. The median of an even count is the mean of the middle two.
struct PerCall
{
    double mean = 0, median = 0, min = 0, max = 0;
};

struct Side
{
    std::string name;
    SideKind kind = SideKind::Region;
    uint64_t calls = 0;
    PerCall gpuUsPerCall;
    double totalGpuUs = 0;
    // The calls' spans summed (Call::startNs to endNs; a kernel's is its duration): the time the roofline's
    // achieved rates divide by, idle gaps between a region's activities included.
    double totalSpanUs = 0;
    std::vector<Call> callList; // in time order: where the app jumps
    bool hostLink = false;      // some of its activities are host<->device memcpys (roofline::namesHostMemory)
    // From the matching roofline::Classification (ClassifyReport::regions or ::kernels by name);
    // classified is false when the report has none, and these keep their defaults.
    bool classified = false;
    std::optional<double> achievedFlopsPerS, achievedBytesPerS; // unset when its work (FLOPs, bytes) is unknown
    roofline::RooflineClass cls = roofline::RooflineClass::Inconclusive;
    std::string strength;
    // The roof the side's class binds to and the share of its ceiling the side reaches: the compute roof
    // ("fp16", "bf16", ...) for tensor-core, CUDA-core and latency-bound work with FLOPs, "memory" (the
    // report's memory-bandwidth ceiling) for io-bound work and latency-bound work with bytes only. Empty
    // and unset when unknown (inconclusive, communication, no ceiling for the device, or a bandwidth share
    // of a side holding a host<->device memcpy, whose roof is the host link the report has no ceiling for).
    std::string roof;
    std::optional<double> roofShare;
    std::vector<roofline::RegionKernel> kernels; // regions: the activities inside, largest first; kernels: empty
};

struct Comparison
{
    Side a, b;
    // b's mean GPU time per call / a's: above 1, b is slower. Unset when a has no GPU time.
    std::optional<double> ratioBOverA;
    // One line: "A is 1.11x slower than B; both tensor-core bound, 71% vs 78% of the FP16 roof".
    std::string verdict;
};

// A name that is neither a region nor a kernel of the trace, or no default pair: the message names it and
// lists the candidates, on one line.
class CompareError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

// What may be compared: region labels in first-seen order, activity names by total GPU time, largest first.
struct Candidates
{
    std::vector<std::string> regions, kernels;
};
Candidates candidates(const trace::Trace& t);

// `tilelang_kernel` (a) vs `torch_ref` (b) when both regions exist, else `custom_kernel` vs `torch_ref`;
// else CompareError listing the regions present.
std::pair<std::string, std::string> defaultPair(const trace::Trace& t);

// One side's figures; a name that is a region label is taken as the region, else as a kernel name.
// `report` is classify()'s report of the same trace. Throws CompareError for an unknown name.
Side measureSide(const trace::Trace& t, const roofline::ClassifyReport& report, const std::string& name);

// Both sides, the ratio and the verdict. Both names empty: defaultPair(); only b empty: torch_ref; only a
// empty: defaultPair()'s a.
Comparison compareSides(const trace::Trace& t, const roofline::ClassifyReport& report, std::string a = {}, std::string b = {});

// The verdict line for two measured sides (compareSides() sets it).
std::string verdictText(const Side& a, const Side& b);

} // namespace tilescope::compare
