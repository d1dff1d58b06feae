// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/intervals.h"

#include <cstdint>
#include <string_view>

namespace tilescope::trace {
class Trace;
}

namespace tilescope::analysis {

// Time inside collectives (issue #13, several ranks). The rule, in one home:
//  - NCCL collective kernels (trace::isCommunicationKernel) when the trace has any: a NCCL kernel starts
//    when its stream reaches it and ends when every peer has joined, so its time includes the wait;
//  - else the host ops named gloo:* or nccl:* (c10d's record_function labels; gloo runs each collective on
//    its worker thread inside its gloo:* label, from the moment it starts to when all peers are done).
// Overlapping collectives (several threads or streams) count once: the union.
enum class CollectiveSource : uint8_t { None, NcclKernels, HostOps };

// gloo:all_reduce, nccl:broadcast...: c10d's label of a collective on the host.
bool isCollectiveHostOpName(std::string_view name);

struct Collectives
{
    CollectiveSource source = CollectiveSource::None;
    uint64_t count = 0; // the collectives found (kernels or host ops)
    IntervalSet time;   // their union, in trace ns
};

Collectives findCollectives(const trace::Trace& trace);

// "NCCL kernels", "gloo:/nccl: host ops", "none".
std::string_view collectiveSourceText(CollectiveSource source);

} // namespace tilescope::analysis
