// SPDX-License-Identifier: MIT
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tilescope::trace {
class Trace;
struct Event;
}

namespace tilescope::roofline {

// FLOPs and compulsory bytes of one GPU activity, with where they came from (roofline.md §6.1).
struct Work
{
    double flops = 0, bytes = 0;
    std::string roof;    // compute roof for F; empty for pure data movement
    bool hostLink = false;
    char level = 'D';    // B: from the op's inputs or the bytes arg, C: annotation, D: unknown
};

// Level B from the op's own recorded inputs: torch's FLOP formula for matmuls, 1 FLOP per output element
// for elementwise ops; compulsory bytes = every tensor input once + the output. nullopt: no formula.
std::optional<Work> opWork(const trace::Trace& t, const trace::Event& op, bool allowTf32);

// The `bytes` arg of a memcpy/memset activity.
std::optional<double> bytesArg(const trace::Trace& t, const trace::Event& e);

// A kernel-name token that suggests tensor-core code, or empty (corroboration only, §6.2).
std::string kernelHint(std::string_view name);

} // namespace tilescope::roofline
