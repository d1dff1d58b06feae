// SPDX-License-Identifier: MIT
#pragma once

#include "trace/trace.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tilescope::roofline {

// record_function regions on the GPU: gpu_user_annotation spans by label, labels in first-seen order.
std::vector<std::pair<std::string, std::vector<uint32_t>>> regionSpans(const trace::Trace& t);

// The GPU activities (kernels, memcpys, memsets) a region span holds: on the span's stream, starting and
// ending inside it; `visit(index)` in start order. The one rule classify and compare both use.
template <class Visit> void forEachActivityInSpan(const trace::Trace& t, uint32_t spanIndex, Visit&& visit)
{
    const trace::Event& span = t.events[spanIndex];
    const auto& list = t.tracks[span.track].events;
    auto it = std::lower_bound(list.begin(), list.end(), span.start, [&](uint32_t k, int64_t v) { return t.events[k].start < v; });
    for (; it != list.end() && t.events[*it].start <= span.end(); ++it) {
        const trace::Event& a = t.events[*it];
        if (trace::isGpuActivity(a.kind) && a.end() <= span.end())
            visit(*it);
    }
}

} // namespace tilescope::roofline
