// SPDX-License-Identifier: MIT
#include "io/arraysplitter.h"

#include "io/jsonchars.h"

#include <algorithm>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tilescope::io {

namespace {

struct BlockMasks
{
    uint64_t quote = 0, backslash = 0, open = 0, close = 0, comma = 0;
};

#if defined(__SSE2__)
// Bit i set where block[i] is `c` (SSE2, 16 bytes).
inline uint64_t matches16(__m128i bytes, char c)
{
    return static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, _mm_set1_epi8(c))));
}

// The masks of 16 bytes, placed at bit `shift` (a constant once inlined into the unrolled calls below).
inline void classify16(const char* bytes16, int shift, BlockMasks& m)
{
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes16));
    // '{' and '}' are '[' and ']' with bit 0x20 set: one comparison each for both.
    const __m128i folded = _mm_or_si128(bytes, _mm_set1_epi8(0x20));
    m.quote |= matches16(bytes, '"') << shift;
    m.backslash |= matches16(bytes, '\\') << shift;
    m.open |= matches16(folded, '{') << shift;
    m.close |= matches16(folded, '}') << shift;
    m.comma |= matches16(bytes, ',') << shift;
}

// The quotes, backslashes and structural characters ({ } [ ] ,) of 64 bytes.
inline BlockMasks classify(const char* block)
{
    BlockMasks m;
    classify16(block, 0, m);
    classify16(block + 16, 16, m);
    classify16(block + 32, 32, m);
    classify16(block + 48, 48, m);
    return m;
}
#else
inline BlockMasks classify(const char* block)
{
    BlockMasks m;
    for (int i = 0; i < 64; ++i) {
        const char c = block[i];
        const uint64_t bit = uint64_t(1) << i;
        m.quote |= c == '"' ? bit : 0;
        m.backslash |= c == '\\' ? bit : 0;
        m.open |= c == '{' || c == '[' ? bit : 0;
        m.close |= c == '}' || c == ']' ? bit : 0;
        m.comma |= c == ',' ? bit : 0;
    }
    return m;
}
#endif

// Bit i of the result is the XOR of bits 0..i: 1 from an opening quote up to (not including) its close.
inline uint64_t prefixXor(uint64_t x)
{
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

} // namespace

// 64 bytes at a time, as simdjson's first stage: masks of quotes, backslashes and structural characters,
// escaped characters removed, the inside of strings by a prefix XOR of the quotes; then only the few
// structural characters outside strings are looked at one by one for the depth.
ArraySplitter::Result ArraySplitter::scan(const char* text, size_t from, size_t size, size_t cutFrom)
{
    // The state in locals, written back on return: as members they went through memory every block (the
    // bytes read are chars, which may alias them), and the string state carried from block to block waited
    // on a store (an eighth of this function's samples). openString: the block starts inside a string;
    // pendingEscape: it starts with an escaped byte.
    uint32_t depth = m_depth;
    bool openString = m_inString;
    bool pendingEscape = m_escape;
    const auto finish = [&](Result r) {
        m_depth = depth;
        m_inString = openString;
        m_escape = pendingEscape;
        return r;
    };
    Result result;
    char padded[64];
    for (size_t base = from; base < size; base += 64) {
        const size_t n = std::min<size_t>(64, size - base);
        const char* block = text + base;
        if (n < 64) { // the tail: spaces change nothing
            std::memset(padded, ' ', sizeof padded);
            std::memcpy(padded, block, n);
            block = padded;
        }
        const BlockMasks m = classify(block);
        // Escapes: each backslash that is not itself escaped escapes the next byte (maybe the next block's).
        uint64_t escaped = pendingEscape ? 1 : 0;
        pendingEscape = false;
        for (uint64_t starts = m.backslash & ~escaped; starts != 0;) {
            const int p = __builtin_ctzll(starts);
            starts &= starts - 1;
            if (static_cast<size_t>(p) + 1 >= n) {
                pendingEscape = true;
            } else {
                escaped |= uint64_t(1) << (p + 1);
                starts &= ~(uint64_t(1) << (p + 1));
            }
        }
        const uint64_t inString = prefixXor(m.quote & ~escaped) ^ (openString ? ~uint64_t(0) : 0);
        openString = (inString >> (n - 1)) & 1;
        const uint64_t opens = m.open & ~inString;
        const uint64_t closes = m.close & ~inString;
        // Before the cut only the depth matters: commas there are not looked at (most of the structural
        // characters of an element are the commas between its keys).
        const uint64_t commas = base + 64 > cutFrom ? m.comma & ~inString : 0;
        for (uint64_t outside = opens | closes | commas; outside != 0; outside &= outside - 1) {
            const uint64_t bit = outside & (~outside + 1);
            if (bit & commas) {
                if (depth == 0 && base + static_cast<size_t>(__builtin_ctzll(bit)) >= cutFrom) {
                    result.separator = base + static_cast<size_t>(__builtin_ctzll(bit));
                    openString = pendingEscape = false;
                    return finish(result);
                }
            } else if (bit & opens) {
                ++depth;
            } else if (depth > 0) {
                --depth;
            } else {
                const int p = __builtin_ctzll(bit);
                if (block[p] == '}')
                    result.malformed = true;
                else
                    result.arrayEnd = base + p;
                openString = pendingEscape = false;
                return finish(result);
            }
        }
    }
    return finish(result);
}

size_t ArraySplitter::findLikelySeparator(const char* text, size_t from, size_t size)
{
    for (size_t at = from; at < size;) {
        const auto* hit = static_cast<const char*>(std::memchr(text + at, '{', size - at));
        if (hit == nullptr)
            return SIZE_MAX;
        const auto brace = static_cast<size_t>(hit - text);
        // Back from the '{' over whitespace to a ',', then over whitespace to a '}'.
        size_t before = brace;
        while (before > 0 && isJsonWhitespace(text[before - 1]))
            --before;
        if (before > 0 && text[before - 1] == ',') {
            const size_t comma = before - 1;
            size_t end = comma;
            while (end > 0 && isJsonWhitespace(text[end - 1]))
                --end;
            if (end > 0 && text[end - 1] == '}' && comma >= from)
                return comma;
        }
        at = brace + 1;
    }
    return SIZE_MAX;
}

} // namespace tilescope::io
