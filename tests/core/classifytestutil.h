// SPDX-License-Identifier: MIT
#pragma once

#include "roofline/classify.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace testutil {

// The first classification whose name starts with `prefix` (kernel names are long), or null.
inline const tilescope::roofline::Classification* find(const std::vector<tilescope::roofline::Classification>& list,
                                                       std::string_view prefix)
{
    for (const auto& c : list)
        if (std::string_view(c.name).starts_with(prefix))
            return &c;
    return nullptr;
}

// Whether an evidence line contains `text`.
inline bool mentions(const tilescope::roofline::Classification& c, std::string_view text)
{
    return std::any_of(c.evidence.begin(), c.evidence.end(), [&](const std::string& e) { return e.find(text) != std::string::npos; });
}

} // namespace testutil
