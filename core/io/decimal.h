// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tilescope::io {

// Converts a JSON number token to an integer scaled by 10^shift, exactly, from its decimal text (never
// through a double): "5349368629953.311" with shift 3 is 5349368629953311. Remaining fraction digits
// round half away from zero. nullopt when the text is not a number or the value does not fit int64.
std::optional<int64_t> parseScaledDecimal(std::string_view text, int shift);

// Microseconds text (Chrome trace `ts` / `dur`) to integer nanoseconds.
inline std::optional<int64_t> parseMicrosecondsAsNanoseconds(std::string_view text) { return parseScaledDecimal(text, 3); }

// Integer nanoseconds back to exact microseconds text, the inverse of the above: 5349368629953311 ->
// "5349368629953.311", 1500 -> "1.5", 2000 -> "2" (no trailing zeros; never through a double).
std::string formatNanosecondsAsMicroseconds(int64_t ns);

// The shortest text that reads back as the same double (std::to_chars): 2.0 -> "2", 0.1 -> "0.1", 1e+20.
std::string formatShortest(double value);

// An integer-valued JSON number ("42", "42.0", "4.2e1"); nullopt for fractions or out of range.
std::optional<int64_t> parseExactInteger(std::string_view text);

} // namespace tilescope::io
