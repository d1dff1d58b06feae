// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tilescope::io {

// UTF-8 text measured and cut in code points, as Python's len() and slices count a str: the widths of
// every plain-text table and name cut.
size_t codePointCount(std::string_view utf8);
// The first `n` code points (Python's s[:n]).
std::string prefixCodePoints(std::string_view utf8, size_t n);
// The last `n` code points (Python's s[-n:], nothing for 0).
std::string suffixCodePoints(std::string_view utf8, size_t n);

} // namespace tilescope::io
