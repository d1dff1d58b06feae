// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <limits>

namespace tilescope::trace {

// "No such entry" for every 32-bit index of the trace model: events, tracks, ops, strings.
constexpr uint32_t kNoIndex = std::numeric_limits<uint32_t>::max();
// "Not recorded" for 64-bit ids and numbers read from args (External id, correlation, Sequence number).
constexpr int64_t kNoId = std::numeric_limits<int64_t>::min();

} // namespace tilescope::trace
