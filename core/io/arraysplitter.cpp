// SPDX-License-Identifier: MIT
#include "io/arraysplitter.h"

#include <cstring>

namespace tilescope::io {

namespace {

// SWAR test: does the 8-byte word hold '"' or '\\'?
inline bool hasQuoteOrBackslash(uint64_t v)
{
    constexpr uint64_t ones = 0x0101010101010101ull;
    constexpr uint64_t highs = 0x8080808080808080ull;
    const uint64_t quote = v ^ (ones * '"');
    const uint64_t slash = v ^ (ones * '\\');
    return (((quote - ones) & ~quote) | ((slash - ones) & ~slash)) & highs;
}

} // namespace

ArraySplitter::Result ArraySplitter::scan(const char* text, size_t from, size_t size, size_t cutFrom)
{
    Result result;
    size_t i = from;
    while (i < size) {
        if (m_inString) {
            if (m_escape) {
                m_escape = false;
                ++i;
                continue;
            }
            // Most bytes of a trace are inside strings (names, stacks): skip them a word at a time.
            while (i + 8 <= size) {
                uint64_t word;
                std::memcpy(&word, text + i, 8);
                if (hasQuoteOrBackslash(word))
                    break;
                i += 8;
            }
            while (i < size && text[i] != '"' && text[i] != '\\')
                ++i;
            if (i >= size)
                break;
            if (text[i] == '\\') {
                m_escape = true;
                ++i;
                continue;
            }
            m_inString = false;
            ++i;
            continue;
        }
        switch (text[i]) {
        case '"': m_inString = true; break;
        case '{':
        case '[': ++m_depth; break;
        case '}':
        case ']':
            if (m_depth == 0) {
                if (text[i] == '}')
                    result.malformed = true;
                else
                    result.arrayEnd = i;
                return result;
            }
            --m_depth;
            break;
        case ',':
            if (m_depth == 0 && i >= cutFrom) {
                result.separator = i;
                return result;
            }
            break;
        default: break;
        }
        ++i;
    }
    return result;
}

} // namespace tilescope::io
