// SPDX-License-Identifier: MIT
#pragma once

#include <bit>
#include <cstdint>

namespace tilescope::io {

// JSON's whitespace (RFC 8259): space, line feed, carriage return, tab; nothing else.
inline bool isJsonWhitespace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// How many of the 8 bytes of `word` (in memory order, little-endian) are ASCII digits before the first one
// that is not: 8 when all are.
static_assert(std::endian::native == std::endian::little, "leadingDigits8 counts from the low byte");
inline unsigned leadingDigits8(uint64_t word)
{
    constexpr uint64_t ones = 0x0101010101010101ull;
    const uint64_t t = word ^ (ones * '0'); // a digit byte becomes 0..9
    // The high bit marks a byte of 10 or more (t + 0x76 reaches 0x80) or one already past 0x7f; a carry
    // can only spoil the bytes after the first marked one, which are not looked at.
    const uint64_t notDigit = ((t + ones * 0x76) | t) & (ones * 0x80);
    return notDigit ? static_cast<unsigned>(std::countr_zero(notDigit)) / 8 : 8u;
}

} // namespace tilescope::io
