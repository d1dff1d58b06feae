// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <limits>
#include <optional>

namespace tilescope::memory {

// A memory record without a time (a snapshot entry of older torch, an empty timeline).
constexpr int64_t kNoTimeUs = std::numeric_limits<int64_t>::min();

// The memory files beside a trace (export_memory_timeline's times, the allocator snapshot's time_us) count
// Unix epoch microseconds. A trace's event times are nanoseconds relative to its `baseTimeNanoseconds`
// (trace::TraceMetadata::baseTimeNs) when it has one, else epoch (older Kineto wrote epoch `ts`), so
// a memory time lands on the trace's clock at epochUs * 1000 - baseTimeNs (trace-format.md §3.4).
// Saturates instead of overflowing on absurd input.
inline int64_t epochMicrosecondsToTraceNs(int64_t epochUs, std::optional<int64_t> baseTimeNs)
{
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();
    int64_t ns = 0;
    if (__builtin_mul_overflow(epochUs, int64_t(1000), &ns))
        return epochUs < 0 ? kMin : kMax;
    int64_t relative = 0;
    if (__builtin_sub_overflow(ns, baseTimeNs.value_or(0), &relative))
        return ns < 0 ? kMin : kMax;
    return relative;
}

// Whether epoch times [fromUs, toUs] reach into a trace's span [firstNs, lastNs] (its own clock): a memory file
// recorded wholly before or after the trace was recorded in another run.
inline bool epochRangeMeetsTrace(int64_t fromUs, int64_t toUs, int64_t firstNs, int64_t lastNs, std::optional<int64_t> baseTimeNs)
{
    return epochMicrosecondsToTraceNs(fromUs, baseTimeNs) <= lastNs && epochMicrosecondsToTraceNs(toUs, baseTimeNs) >= firstNs;
}

// toUs - fromUs in nanoseconds, saturated: a duration for display from times a file gave.
inline int64_t spanMicrosecondsAsNs(int64_t fromUs, int64_t toUs)
{
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();
    int64_t us = 0, ns = 0;
    if (__builtin_sub_overflow(toUs, fromUs, &us))
        return toUs < fromUs ? kMin : kMax;
    if (__builtin_mul_overflow(us, int64_t(1000), &ns))
        return us < 0 ? kMin : kMax;
    return ns;
}

} // namespace tilescope::memory
