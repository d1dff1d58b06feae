// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <limits>

namespace tilescope::memory {

// Byte counts from memory files are summed with saturation: a hostile file must not overflow a sum
// (undefined behaviour), and no real count comes near 2^63.
inline int64_t addBytes(int64_t a, int64_t b)
{
    int64_t sum = 0;
    if (__builtin_add_overflow(a, b, &sum))
        return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
    return sum;
}

inline int64_t subtractBytes(int64_t a, int64_t b)
{
    int64_t difference = 0;
    if (__builtin_sub_overflow(a, b, &difference))
        return b < 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
    return difference;
}

} // namespace tilescope::memory
