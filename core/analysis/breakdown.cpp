// SPDX-License-Identifier: MIT
#include "analysis/breakdown.h"

#include "analysis/overlap.h"
#include "trace/eventkind.h"
#include "trace/trace.h"

#include <map>

namespace tilescope::analysis {

namespace {

struct DeviceActivities
{
    std::vector<Interval> computation, communication, memory;
};

// The one classification of GPU activities into the three kernel types.
std::vector<Interval>& typeOf(DeviceActivities& d, const trace::Trace& t, const trace::Event& e)
{
    if (e.kind != trace::EventKind::Kernel)
        return d.memory;
    return trace::isCommunicationKernel(t.strings.view(e.name)) ? d.communication : d.computation;
}

double shareOf(int64_t part, int64_t whole) { return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0; }

} // namespace

BreakdownReport computeBreakdown(const trace::Trace& t, std::optional<Interval> window)
{
    BreakdownReport r;
    if (!window)
        window = defaultOverlapWindow(t);
    if (!window)
        return r;
    r.window = *window;
    const int64_t windowNs = window->end - window->start;

    std::map<int, DeviceActivities> perDevice;
    for (const trace::Event& e : t.events) {
        if (!trace::isGpuActivity(e.kind))
            continue;
        const int device = t.tracks[e.track].device < 0 ? 0 : t.tracks[e.track].device; // as computeOverlap counts it
        typeOf(perDevice[device], t, e).push_back({e.start, e.end()});
    }
    for (auto& [device, activities] : perDevice) {
        const IntervalSet computation = IntervalSet::fromUnsorted(std::move(activities.computation)).clippedTo(*window);
        const IntervalSet communication = IntervalSet::fromUnsorted(std::move(activities.communication)).clippedTo(*window);
        const IntervalSet memory = IntervalSet::fromUnsorted(std::move(activities.memory)).clippedTo(*window);
        const int64_t allNs = computation.unionWith(communication).unionWith(memory).length();

        DeviceBreakdown b;
        b.device = device;
        b.computeNs = computation.length();
        b.nonComputeNs = allNs - b.computeNs;
        b.idleNs = windowNs - allNs;
        b.computeShare = shareOf(b.computeNs, windowNs);
        b.nonComputeShare = shareOf(b.nonComputeNs, windowNs);
        b.idleShare = shareOf(b.idleNs, windowNs);

        KernelTypeTimes& k = b.kinds;
        k.computationNs = b.computeNs;
        k.communicationNs = communication.length();
        k.memoryNs = memory.length();
        k.computationCommunicationNs = computation.intersection(communication).length();
        k.computationMemoryNs = computation.intersection(memory).length();
        k.communicationMemoryNs = communication.intersection(memory).length();
        k.communicationOverlappedShare = shareOf(k.computationCommunicationNs, k.communicationNs);
        r.devices.push_back(b);
    }
    return r;
}

KernelTypeSets kernelTypeSets(const trace::Trace& t)
{
    DeviceActivities all;
    for (const trace::Event& e : t.events)
        if (trace::isGpuActivity(e.kind))
            typeOf(all, t, e).push_back({e.start, e.end()});
    return {IntervalSet::fromUnsorted(std::move(all.computation)), IntervalSet::fromUnsorted(std::move(all.communication)),
            IntervalSet::fromUnsorted(std::move(all.memory))};
}

} // namespace tilescope::analysis
