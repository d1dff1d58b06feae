// SPDX-License-Identifier: MIT
#include "analysis/overlap.h"

#include "trace/eventsearch.h"
#include "trace/trace.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace tilescope::analysis {

using trace::Event;
using trace::EventKind;

namespace {

bool isRecordedCpuWork(EventKind k) { return k == EventKind::CpuOp || k == EventKind::CudaRuntime || k == EventKind::CudaDriver; }

bool onHostThread(const trace::Trace& t, const Event& e) { return t.tracks[e.track].type == trace::Track::Type::HostThread; }

// Per event: whether it counts as CPU work (the contract in overlap.h). A user annotation counts only
// when no op or API call of its thread lies within it. By time, not by the loader's nesting: with
// with_stack, Python frames that straddle a ProfilerStep# carry its ops outside its subtree.
std::vector<bool> cpuWorkEvents(const trace::Trace& t)
{
    std::vector<bool> work(t.events.size(), false);
    // ProfilerStep#N is a label around a step's ops whatever its category: torch 1.8-1.9 wrote it as an Operator
    // (cpu_op), which made every step all CPU work (tb_plugin's resnet50: 100% CPU busy).
    std::vector<int8_t> stepName(t.strings.size(), -1); // per name: unknown, no, yes
    const auto isLabel = [&](const Event& e) {
        if (e.kind == EventKind::UserAnnotation)
            return true;
        if (e.kind != EventKind::CpuOp || e.name >= stepName.size())
            return false;
        if (stepName[e.name] < 0)
            stepName[e.name] = trace::isProfilerStepName(t.strings.view(e.name)) ? 1 : 0;
        return stepName[e.name] == 1;
    };
    std::unordered_map<uint32_t, std::vector<Interval>> recordedByTrack; // sorted by start below
    for (uint32_t i = 0; i < t.events.size(); ++i) {
        const Event& e = t.events[i];
        if (isRecordedCpuWork(e.kind) && onHostThread(t, e) && !isLabel(e)) {
            work[i] = true;
            recordedByTrack[e.track].push_back({e.start, e.end()});
        }
    }
    for (auto& [track, intervals] : recordedByTrack)
        std::sort(intervals.begin(), intervals.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
    for (uint32_t i = 0; i < t.events.size(); ++i) {
        const Event& a = t.events[i];
        if (!isLabel(a) || !onHostThread(t, a))
            continue;
        bool holdsWork = false;
        if (const auto found = recordedByTrack.find(a.track); found != recordedByTrack.end()) {
            const auto& recorded = found->second;
            auto it = std::lower_bound(recorded.begin(), recorded.end(), a.start, [](const Interval& r, int64_t s) { return r.start < s; });
            for (; it != recorded.end() && it->start <= a.end() && !holdsWork; ++it)
                holdsWork = it->end <= a.end();
        }
        work[i] = !holdsWork;
    }
    return work;
}

int deviceOf(const trace::Trace& t, const Event& e) { return t.tracks[e.track].device < 0 ? 0 : t.tracks[e.track].device; }

} // namespace

int OverlapReport::activeDevices() const
{
    return int(std::count_if(devices.begin(), devices.end(), [](const DeviceBusy& d) { return d.hasActivity; }));
}

double OverlapReport::gpuWaitShare() const
{
    const int64_t length = window.end - window.start;
    return length > 0 ? static_cast<double>(gpuIdleWhileCpuBusyNs) / static_cast<double>(length) : 0.0;
}

bool OverlapReport::launchBound() const { return launches.mostlyCostly() && gpuWaitShare() >= kLaunchBoundMinGpuWaitShare; }

std::optional<Interval> defaultOverlapWindow(const trace::Trace& t)
{
    std::optional<Interval> w;
    const std::vector<bool> cpuWork = cpuWorkEvents(t);
    for (uint32_t i = 0; i < t.events.size(); ++i) {
        const Event& e = t.events[i];
        if (!cpuWork[i] && !trace::isGpuActivity(e.kind))
            continue;
        if (!w)
            w = Interval{e.start, e.end()};
        w->start = std::min(w->start, e.start);
        w->end = std::max(w->end, e.end());
    }
    return w;
}

OverlapReport computeOverlap(const trace::Trace& t, std::optional<Interval> window)
{
    OverlapReport r;
    if (!window)
        window = defaultOverlapWindow(t);
    if (!window)
        return r;
    r.window = *window;
    const int64_t windowNs = window->end - window->start;

    std::map<int, std::vector<Interval>> perDevice;
    std::map<int, DeviceBusy> counts;
    std::map<uint32_t, std::vector<Interval>> perThread;
    std::unordered_map<uint32_t, int64_t> kernelNsByLaunch;
    const std::vector<bool> cpuWork = cpuWorkEvents(t);
    for (uint32_t i = 0; i < t.events.size(); ++i) {
        const Event& e = t.events[i];
        if (trace::isGpuActivity(e.kind)) {
            const int device = deviceOf(t, e);
            perDevice[device].push_back({e.start, e.end()});
            DeviceBusy& c = counts[device];
            if (e.start >= window->start && e.start < window->end)
                ++(e.kind == EventKind::Kernel ? c.kernels : e.kind == EventKind::GpuMemcpy ? c.memcpys : c.memsets);
            if (e.kind == EventKind::Kernel)
                if (const uint32_t launch = t.launchOf(i); launch != trace::kNoIndex)
                    kernelNsByLaunch[launch] += e.duration;
        } else if (cpuWork[i]) {
            perThread[e.track].push_back({e.start, e.end()});
        }
    }
    for (int device = 0; device < static_cast<int>(t.meta.devices.size()); ++device)
        perDevice.try_emplace(device);
    for (auto& [device, intervals] : perDevice) {
        DeviceBusy d = counts[device];
        d.device = device;
        d.hasActivity = !intervals.empty();
        d.busy = IntervalSet::fromUnsorted(std::move(intervals)).clippedTo(*window);
        d.busyNs = d.busy.length();
        d.idleNs = windowNs - d.busyNs;
        d.utilization = windowNs > 0 ? static_cast<double>(d.busyNs) / static_cast<double>(windowNs) : 0.0;
        r.gpuBusy = r.gpuBusy.unionWith(d.busy);
        r.devices.push_back(std::move(d));
    }
    for (auto& [track, intervals] : perThread) {
        ThreadBusy b;
        b.track = track;
        b.busy = IntervalSet::fromUnsorted(std::move(intervals)).clippedTo(*window);
        b.busyNs = b.busy.length();
        r.cpuBusy = r.cpuBusy.unionWith(b.busy);
        r.threads.push_back(std::move(b));
    }
    r.cpuBusyNs = r.cpuBusy.length();
    r.overlapNs = r.cpuBusy.intersection(r.gpuBusy).length();
    r.gpuIdleWhileCpuBusyNs = r.cpuBusyNs - r.overlapNs;
    r.bothIdleNs = windowNs - r.cpuBusy.unionWith(r.gpuBusy).length();

    for (const auto& [launch, kernelNs] : kernelNsByLaunch) {
        const Event& call = t.events[launch];
        if (call.start < window->start || call.start >= window->end)
            continue;
        ++r.launches.count;
        r.launches.cpuNs += call.duration;
        r.launches.kernelNs += kernelNs;
        if (static_cast<double>(call.duration) >= 0.8 * static_cast<double>(kernelNs))
            ++r.launches.costlyLaunches;
    }
    return r;
}

} // namespace tilescope::analysis

namespace tilescope::analysis {

OverlapIndex::OverlapIndex(const trace::Trace& t)
    : OverlapIndex(t, computeOverlap(t))
{ }

OverlapIndex::OverlapIndex(const trace::Trace& t, const OverlapReport& whole)
{
    for (const auto& d : whole.devices) {
        m_devices.push_back(d.device);
        m_deviceBusy.push_back(d.busy);
        m_hasActivity.push_back(d.hasActivity);
        m_starts.emplace_back();
    }
    m_cpuBusy = whole.cpuBusy;
    m_gpuBusy = whole.gpuBusy;
    m_both = m_cpuBusy.intersection(m_gpuBusy);
    m_either = m_cpuBusy.unionWith(m_gpuBusy);
    std::unordered_map<uint32_t, int64_t> kernelNsByLaunch;
    for (uint32_t i = 0; i < t.events.size(); ++i) {
        const Event& e = t.events[i];
        if (!trace::isGpuActivity(e.kind))
            continue;
        const int device = deviceOf(t, e);
        Starts& starts = m_starts[size_t(std::find(m_devices.begin(), m_devices.end(), device) - m_devices.begin())];
        (e.kind == EventKind::Kernel          ? starts.kernels
             : e.kind == EventKind::GpuMemcpy ? starts.memcpys
                                              : starts.memsets)
            .push_back(e.start);
        if (e.kind == EventKind::Kernel)
            if (const uint32_t launch = t.launchOf(i); launch != trace::kNoIndex)
                kernelNsByLaunch[launch] += e.duration;
    }
    for (Starts& starts : m_starts)
        for (auto* list : {&starts.kernels, &starts.memcpys, &starts.memsets})
            std::sort(list->begin(), list->end());
    for (const auto& [launch, kernelNs] : kernelNsByLaunch)
        m_launches.push_back({t.events[launch].start, t.events[launch].duration, kernelNs});
    std::sort(m_launches.begin(), m_launches.end(), [](const Launch& a, const Launch& b) { return a.start < b.start; });
}

OverlapReport OverlapIndex::figures(Interval w) const
{
    OverlapReport r;
    r.window = w;
    const int64_t windowNs = w.end - w.start;
    for (size_t d = 0; d < m_devices.size(); ++d) {
        DeviceBusy busy;
        busy.device = m_devices[d];
        busy.busyNs = m_deviceBusy[d].lengthWithin(w);
        busy.idleNs = windowNs - busy.busyNs;
        busy.utilization = windowNs > 0 ? double(busy.busyNs) / double(windowNs) : 0.0;
        busy.hasActivity = m_hasActivity[d];
        const auto startingIn = [&](const std::vector<int64_t>& starts) {
            return uint64_t(std::lower_bound(starts.begin(), starts.end(), w.end)
                            - std::lower_bound(starts.begin(), starts.end(), w.start));
        };
        busy.kernels = startingIn(m_starts[d].kernels);
        busy.memcpys = startingIn(m_starts[d].memcpys);
        busy.memsets = startingIn(m_starts[d].memsets);
        r.devices.push_back(busy);
    }
    r.cpuBusyNs = m_cpuBusy.lengthWithin(w);
    r.overlapNs = m_both.lengthWithin(w);
    r.gpuIdleWhileCpuBusyNs = r.cpuBusyNs - r.overlapNs;
    r.bothIdleNs = windowNs - m_either.lengthWithin(w);
    auto it = std::lower_bound(m_launches.begin(), m_launches.end(), w.start, [](const Launch& l, int64_t t) { return l.start < t; });
    for (; it != m_launches.end() && it->start < w.end; ++it) {
        ++r.launches.count;
        r.launches.cpuNs += it->cpuNs;
        r.launches.kernelNs += it->kernelNs;
        if (double(it->cpuNs) >= 0.8 * double(it->kernelNs))
            ++r.launches.costlyLaunches;
    }
    return r;
}

} // namespace tilescope::analysis
