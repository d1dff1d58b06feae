// SPDX-License-Identifier: MIT
#pragma once
// The benchmarks' stopwatch: wall time on the steady clock.

#include <algorithm>
#include <chrono>

namespace tilescope::bench {

using Clock = std::chrono::steady_clock;

inline double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }
inline double millisecondsSince(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }
inline double secondsBetween(Clock::time_point start, Clock::time_point end) { return std::chrono::duration<double>(end - start).count(); }
inline double millisecondsBetween(Clock::time_point start, Clock::time_point end)
{
    return std::chrono::duration<double, std::milli>(end - start).count();
}

// Seconds that f() takes.
template <typename F> double timed(F&& f)
{
    const auto start = Clock::now();
    f();
    return secondsSince(start);
}

// The least disturbed of three runs of f(), in seconds.
template <typename F> double bestOfThree(F&& f) { return std::min({timed(f), timed(f), timed(f)}); }

} // namespace tilescope::bench
