// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>

namespace tilescope::stats {

// Trace nanoseconds as text for people: the one home for it (reports, the timeline, the status bar, the
// details panel). Its relatives: formatTorchTime (torchtable.h) is torch's table cell from microseconds,
// and io::formatNanosecondsAsMicroseconds is the exact, trimmed number for JSON and `ts` echoes.

// A duration in torch's units: "812.000us", "1.250ms", "2.000s" (formatTorchTime of ns / 1000).
std::string formatDuration(int64_t ns);

// Microseconds with exactly three decimals, computed from the integer so a `ts` past 2^53 ns keeps its
// last digit (through a double 9007199254740993 ns came out "...740.992"): "1234.500". No unit.
std::string formatMicroseconds(int64_t ns);

} // namespace tilescope::stats
