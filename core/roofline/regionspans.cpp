// SPDX-License-Identifier: MIT
#include "roofline/regionspans.h"

#include <unordered_map>

namespace tilescope::roofline {

std::vector<std::pair<std::string, std::vector<uint32_t>>> regionSpans(const trace::Trace& t)
{
    std::vector<std::pair<std::string, std::vector<uint32_t>>> out;
    std::unordered_map<std::string, size_t> index;
    for (uint32_t i = 0; i < t.events.size(); ++i)
        if (t.events[i].kind == trace::EventKind::GpuUserAnnotation) {
            const std::string name(t.strings.view(t.events[i].name));
            const auto [it, inserted] = index.try_emplace(name, out.size());
            if (inserted)
                out.emplace_back(name, std::vector<uint32_t>());
            out[it->second].second.push_back(i);
        }
    return out;
}

} // namespace tilescope::roofline
