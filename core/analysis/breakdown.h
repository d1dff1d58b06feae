// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/intervals.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace tilescope::trace {
class Trace;
}

namespace tilescope::analysis {

// Kernel types of one device over the window (issue #13), each the union of its activities clipped to it.
struct KernelTypeTimes
{
    int64_t computationNs = 0;               // kernels that are not communication
    int64_t communicationNs = 0;             // NCCL collective kernels (trace::isCommunicationKernel)
    int64_t memoryNs = 0;                    // memcpy and memset
    int64_t computationCommunicationNs = 0;  // |computation ∩ communication|
    int64_t computationMemoryNs = 0;         // |computation ∩ memory|
    int64_t communicationMemoryNs = 0;       // |communication ∩ memory|
    double communicationOverlappedShare = 0; // computationCommunicationNs / communicationNs; 0 without communication
};

// Temporal breakdown of one device: the three parts sum to the window exactly.
//   compute     = |computation kernels|
//   non-compute = |(memcpy ∪ memset ∪ communication kernels) − compute|
//   idle        = |window| − |all GPU activity of the device|
struct DeviceBreakdown
{
    int device = 0;
    int64_t computeNs = 0;
    int64_t nonComputeNs = 0;
    int64_t idleNs = 0;
    double computeShare = 0, nonComputeShare = 0, idleShare = 0; // of the window; 0 for an empty window
    KernelTypeTimes kinds;
};

struct BreakdownReport
{
    Interval window{0, 0};
    std::vector<DeviceBreakdown> devices; // devices with GPU activity anywhere in the trace, by index
};

// Over `window`, by default analysis::defaultOverlapWindow (the window `overlap` uses).
BreakdownReport computeBreakdown(const trace::Trace& trace, std::optional<Interval> window = std::nullopt);

// The kernel types of all devices together, unclipped (the per-rank figures cut them by step), by the
// same classification as computeBreakdown.
struct KernelTypeSets
{
    IntervalSet computation, communication, memory;
};
KernelTypeSets kernelTypeSets(const trace::Trace& trace);

} // namespace tilescope::analysis
