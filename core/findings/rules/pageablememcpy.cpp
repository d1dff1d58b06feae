// SPDX-License-Identifier: MIT
#include "findings/rules.h"
#include "findings/rules/ruletext.h"
#include "findings/thresholds.h"
#include "stats/bytestext.h"
#include "stats/timetext.h"
#include "trace/trace.h"

#include <algorithm>
#include <map>

namespace tilescope::findings::rules {

// Copies between device and pageable host memory: CUDA stages them through a pinned bounce buffer and the
// host call returns only when the copy is done, so they neither overlap nor reach pinned copies' rates.
void pageableMemcpy(const trace::Trace& t, const DiagnoseInputs& in, std::vector<Finding>& out)
{
    struct Kind
    {
        uint64_t copies = 0;
        double bytes = 0;
        int64_t ns = 0, hostNs = 0;
    };
    std::map<std::string, Kind> kinds;
    std::vector<uint32_t> copies;
    for (uint32_t i = 0; i < t.events.size(); ++i) {
        const trace::Event& e = t.events[i];
        if (e.kind != trace::EventKind::GpuMemcpy || !inWindow(in, e) || t.name(e).find("Pageable") == std::string_view::npos)
            continue;
        Kind& k = kinds[std::string(t.name(e))];
        ++k.copies;
        k.bytes += t.transferBytesOf(i).value_or(0);
        k.ns += e.duration;
        if (const uint32_t launch = t.launchOf(i); launch != trace::kNoIndex)
            k.hostNs += t.events[launch].duration;
        copies.push_back(i);
    }
    std::erase_if(kinds, [](const auto& kind) { return kind.second.bytes < static_cast<double>(thresholds::kPageableMinBytes); });
    if (kinds.empty())
        return;
    std::erase_if(copies, [&](uint32_t e) { return !kinds.contains(std::string(t.name(t.events[e]))); });
    Finding f;
    f.id = "pageable-memcpy";
    f.title = "Copies between the GPU and pageable host memory";
    f.strength = Strength::Strong; // the copy kind is CUPTI's, in the event name
    for (const auto& [name, k] : kinds)
        f.evidence.push_back(name + ": " + countText(k.copies, "copy", "copies") + ", " + stats::formatBytes(static_cast<int64_t>(k.bytes))
                             + " in " + stats::formatDuration(k.ns) + " on the GPU (" + rateText(k.bytes, k.ns)
                             + "); their host calls took " + stats::formatDuration(k.hostNs) + ".");
    f.columns = {"gpu_memcpy name (Memcpy ... Pageable ...)", "bytes", "dur"};
    f.nextStep = "Pin the host buffer (pin_memory=True in the DataLoader, or tensor.pin_memory() once) and copy with "
                 "non_blocking=True, so the copy overlaps compute at the pinned rate.";
    for (const auto& [name, k] : kinds)
        f.impactNs += k.hostNs;
    std::sort(copies.begin(), copies.end(), [&](uint32_t a, uint32_t b) { return t.events[a].start < t.events[b].start; });
    for (size_t k = 0; k < copies.size() && k < 20; ++k)
        f.where.push_back({t.events[copies[k]].start, t.events[copies[k]].end(), copies[k]});
    out.push_back(std::move(f));
}

} // namespace tilescope::findings::rules
