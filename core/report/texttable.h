// SPDX-License-Identifier: MIT
#pragma once
// Plain-text tables for the CLI's `--format table`: one home for column alignment, so every report lines
// its columns up the same way.

#include "io/codepoints.h"
#include "stats/timetext.h"
#include "stats/torchtable.h"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

namespace tilescope::report {

// A share in [0, 1] as "12.3%".
inline std::string percentText(double share) { return stats::formatFixed(share * 100.0, 1) + "%"; }

// Rows of N cells; the first column left-aligned, the others right-aligned, widths in code points.
template <size_t N> std::string renderTable(const std::vector<std::array<std::string, N>>& rows)
{
    std::array<size_t, N> width{};
    for (const auto& row : rows)
        for (size_t c = 0; c < N; ++c)
            width[c] = std::max(width[c], io::codePointCount(row[c]));
    std::string out;
    for (const auto& row : rows) {
        std::string line = " ";
        for (size_t c = 0; c < N; ++c) {
            const std::string pad(width[c] - io::codePointCount(row[c]), ' ');
            line += "  " + (c == 0 ? row[c] + pad : pad + row[c]);
        }
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
        out += line + "\n";
    }
    return out;
}

} // namespace tilescope::report
