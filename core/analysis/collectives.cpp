// SPDX-License-Identifier: MIT
#include "analysis/collectives.h"

#include "trace/eventsearch.h"
#include "trace/trace.h"

namespace tilescope::analysis {

bool isCollectiveHostOpName(std::string_view name) { return name.starts_with("gloo:") || name.starts_with("nccl:"); }

Collectives findCollectives(const trace::Trace& t)
{
    std::vector<Interval> kernels, hostOps;
    for (const trace::Event& e : t.events) {
        const std::string_view name = t.strings.view(e.name);
        if (e.kind == trace::EventKind::Kernel) {
            if (trace::isCommunicationKernel(name))
                kernels.push_back({e.start, e.end()});
        } else if (trace::isHostOp(e) && isCollectiveHostOpName(name)) {
            hostOps.push_back({e.start, e.end()});
        }
    }
    Collectives c;
    std::vector<Interval>& chosen = kernels.empty() ? hostOps : kernels;
    if (chosen.empty())
        return c;
    c.source = kernels.empty() ? CollectiveSource::HostOps : CollectiveSource::NcclKernels;
    c.count = chosen.size();
    c.time = IntervalSet::fromUnsorted(std::move(chosen));
    return c;
}

std::string_view collectiveSourceText(CollectiveSource source)
{
    switch (source) {
    case CollectiveSource::NcclKernels: return "NCCL kernels";
    case CollectiveSource::HostOps: return "gloo:/nccl: host ops";
    case CollectiveSource::None: break;
    }
    return "none";
}

} // namespace tilescope::analysis
