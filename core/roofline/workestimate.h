// SPDX-License-Identifier: MIT
#pragma once

#include "trace/eventkind.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tilescope::trace {
class Trace;
struct Event;
struct OpInputList;
} // namespace tilescope::trace

namespace tilescope::roofline {

// FLOPs and compulsory bytes of one GPU activity, with where they came from (roofline.md §6.1).
struct Work
{
    double flops = 0, bytes = 0;
    std::string roof; // compute roof for F; empty for pure data movement
    bool hostLink = false;
    char level = 'D';  // B: from the op's inputs or the bytes arg, C: annotation, D: unknown
    std::string basis; // how F and B were found (op, formula, profiler columns); for level D why not
};

// The op charged with a GPU activity's work, or why none is.
struct Charge
{
    uint32_t op;        // kNoIndex when no op carries an estimate
    std::string reason; // for kNoIndex: why (empty when the ops have no formula at all)
};

// Level-B work of ops from their recorded inputs: torch's FLOP formulas (key-averages.md §8) extended as
// roofline.md §6.1 says (linear/matmul, every convolution entry point, attention, reductions, softmax and
// normalisation, elementwise), compulsory bytes = every tensor input once (a stride-0 dimension once) + the
// output.
class WorkEstimator
{
public:
    WorkEstimator(const trace::Trace& t, bool allowTf32);

    // The op's own work; level D (with the reason in `basis` when the op has a formula but the trace lacks
    // what it needs) otherwise.
    const Work& opWork(uint32_t op) const;

    // For every kernel event (indexed like Trace::events; other events get kNoIndex): the innermost op at its
    // launch if that has a formula, else the nearest enclosing op on the host thread that has one (§6.1).
    // An enclosing op whose nested ops already carry estimates is not charged: its work would count twice.
    std::vector<Charge> chargeKernels() const;

private:
    Work estimate(uint32_t op) const;
    Work convolution(const trace::Event& op, const trace::OpInputList& r) const;
    std::optional<std::vector<int64_t>> convOutputFromBackward(const trace::Event& op) const;

    const trace::Trace& m_trace;
    bool m_allowTf32;
    mutable std::unordered_map<uint32_t, Work> m_cache;
    std::unordered_map<int64_t, uint32_t> m_convBackwardBySequence; // autograd node of a convolution
};

// A NCCL collective kernel (ncclKernel_*, ncclDevKernel_*): its message from the args Kineto records on the
// kernel or on the record_param_comms op that launched it ("In msg nelems", "Out msg nelems", "dtype",
// "Group size", "Collective name"), and the factor from algorithm to bus bandwidth of NCCL's performance
// notes: allreduce 2(n-1)/n; allgather, reducescatter, alltoall (n-1)/n; broadcast, reduce, sendrecv 1.
struct Collective
{
    std::string name;                 // allreduce, allgather, reducescatter, alltoall, broadcast, reduce, sendrecv, else as recorded
    std::optional<double> bytes;      // per call: the larger of In/Out msg nelems x the dtype's size
    std::optional<int64_t> groupSize; // ranks taking part
    std::optional<double> busFactor;  // bus bandwidth = algorithm bandwidth x this
    std::string basis;                // where the numbers came from, or why the message size is unknown
};
using trace::isCommunicationKernel; // the rule lives in trace/eventkind.h
// nullopt when `kernel` is not a NCCL kernel.
std::optional<Collective> collectiveOf(const trace::Trace& t, uint32_t kernel);
// NCCL's factor for `collective` (as Collective::name) over n ranks; nullopt when none is defined or n < 1.
std::optional<double> busBandwidthFactor(std::string_view collective, int64_t n);

// Kernel-name hints (roofline.md §6.2, §7.1): what the name suggests about the code, for corroboration
// only; empty when the name says nothing.
std::string kernelHint(std::string_view name);

} // namespace tilescope::roofline
