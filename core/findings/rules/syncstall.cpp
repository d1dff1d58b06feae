// SPDX-License-Identifier: MIT
#include "findings/rules.h"
#include "analysis/steps.h"
#include "findings/rules/ruletext.h"
#include "findings/thresholds.h"
#include "stats/timetext.h"
#include "trace/trace.h"

#include <algorithm>
#include <map>

namespace tilescope::findings::rules {

namespace {

bool isPageableDeviceToHost(std::string_view copy)
{
    return copy.find("DtoH") != std::string_view::npos && copy.find("Pageable") != std::string_view::npos;
}

// A host call that waits for the GPU: an explicit synchronize, a synchronous cudaMemcpy, or a copy to
// pageable host memory (what .item() and .cpu() do), which returns only when the copy is done.
bool isHostSync(const trace::Trace& t, uint32_t index)
{
    const trace::Event& e = t.events[index];
    if (!trace::isLaunchApi(e.kind))
        return false;
    const std::string_view n = t.name(e);
    if (n == "cudaStreamSynchronize" || n == "cudaDeviceSynchronize" || n == "cudaEventSynchronize" || n == "cuStreamSynchronize"
        || n == "cuCtxSynchronize" || n == "cuEventSynchronize" || n == "cudaMemcpy")
        return true;
    if (n != "cudaMemcpyAsync" && n != "cuMemcpyDtoHAsync_v2")
        return false;
    for (const uint32_t a : t.activitiesOf(index))
        if (isPageableDeviceToHost(t.name(t.events[a])))
            return true;
    return false;
}

} // namespace

// A host synchronisation in (nearly) every step, and the CPU time spent waiting in it.
void syncStall(const trace::Trace& t, const DiagnoseInputs& in, std::vector<Finding>& out)
{
    if (!in.steps || in.steps->size() < thresholds::kSyncStallMinSteps)
        return;
    const std::vector<analysis::Step>& steps = *in.steps;
    std::vector<uint32_t> syncs; // by start
    for (const trace::Track& track : t.tracks)
        for (const uint32_t e : track.events)
            if (inWindow(in, t.events[e]) && isHostSync(t, e))
                syncs.push_back(e);
    std::sort(syncs.begin(), syncs.end(), [&](uint32_t a, uint32_t b) { return t.events[a].start < t.events[b].start; });
    uint32_t stepsWithSync = 0;
    int64_t waitNs = 0, stepNs = 0;
    std::map<std::string, std::pair<uint64_t, int64_t>> byName; // calls, ns
    std::vector<uint32_t> firstOfStep;
    for (const analysis::Step& s : steps) {
        stepNs += s.end - s.start;
        bool any = false;
        auto from = std::lower_bound(syncs.begin(), syncs.end(), s.start,
                                     [&](uint32_t e, int64_t time) { return t.events[e].start < time; });
        for (auto it = from; it != syncs.end() && t.events[*it].start < s.end; ++it) {
            const uint32_t e = *it;
            const trace::Event& ev = t.events[e];
            if (!any)
                firstOfStep.push_back(e);
            any = true;
            waitNs += ev.duration;
            auto& [calls, ns] = byName[std::string(t.name(ev))];
            ++calls;
            ns += ev.duration;
        }
        stepsWithSync += any;
    }
    if (static_cast<double>(stepsWithSync) < thresholds::kSyncStallMinStepShare * static_cast<double>(steps.size())
        || ratio(waitNs, stepNs) < thresholds::kSyncStallMinWaitShare)
        return;
    Finding f;
    f.id = "sync-stall";
    f.title = "A host synchronisation in every step";
    // The CPU provably waited that long; whether the GPU ran dry meanwhile depends on what was queued.
    f.strength = Strength::Weak;
    std::string calls;
    for (const auto& [name, figures] : byName)
        calls += (calls.empty() ? "" : ", ") + name + " x" + stats::formatCount(figures.first) + " ("
            + stats::formatDuration(figures.second) + ")";
    f.evidence.push_back(stats::formatCount(stepsWithSync) + " of " + stats::formatCount(steps.size())
                         + " steps call a host synchronisation: " + calls + ".");
    f.evidence.push_back("The CPU waited " + stats::formatDuration(waitNs) + " in them, "
                         + stats::formatDuration(waitNs / static_cast<int64_t>(steps.size())) + " per step, "
                         + percentText(ratio(waitNs, stepNs)) + " of the steps' time; the waiting thread queued no work meanwhile.");
    f.columns = {"cuda_runtime name, dur", "gpu_memcpy name (DtoH ... Pageable)", "user_annotation/ProfilerStep# ts, dur"};
    f.nextStep = "Move the synchronising call (.item(), .cpu(), print of a tensor, torch.cuda.synchronize()) out of the loop, or "
                 "accumulate on the GPU and read once at the end.";
    f.impactNs = waitNs;
    for (size_t k = 0; k < firstOfStep.size() && k < 20; ++k)
        f.where.push_back({t.events[firstOfStep[k]].start, t.events[firstOfStep[k]].end(), firstOfStep[k]});
    out.push_back(std::move(f));
}

} // namespace tilescope::findings::rules
