// SPDX-License-Identifier: MIT
#include "io/codepoints.h"

namespace tilescope::io {

namespace {
bool startsCodePoint(char c) { return (static_cast<unsigned char>(c) & 0xc0) != 0x80; }
} // namespace

size_t codePointCount(std::string_view utf8)
{
    size_t n = 0;
    for (const char c : utf8)
        n += startsCodePoint(c);
    return n;
}

std::string prefixCodePoints(std::string_view utf8, size_t n)
{
    size_t points = 0;
    for (size_t i = 0; i < utf8.size(); ++i) {
        if (startsCodePoint(utf8[i])) {
            if (points == n)
                return std::string(utf8.substr(0, i));
            ++points;
        }
    }
    return std::string(utf8);
}

std::string suffixCodePoints(std::string_view utf8, size_t n)
{
    if (n == 0)
        return {};
    size_t points = 0;
    for (size_t i = utf8.size(); i-- > 0;) {
        if (startsCodePoint(utf8[i]) && ++points == n)
            return std::string(utf8.substr(i));
    }
    return std::string(utf8);
}

} // namespace tilescope::io
