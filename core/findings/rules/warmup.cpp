// SPDX-License-Identifier: MIT
#include "findings/rules.h"
#include "analysis/steps.h"
#include "findings/rules/ruletext.h"
#include "findings/thresholds.h"
#include "stats/timetext.h"
#include "trace/trace.h"

#include <algorithm>

namespace tilescope::findings::rules {

namespace {

// Work CUDA does once per process or module: lazy kernel loading (CUDA_MODULE_LOADING=LAZY), module loads
// of a JIT-compiled kernel. Kineto records the first two as overhead events.
bool isModuleLoading(const trace::Trace& t, const trace::Event& e)
{
    if (e.kind != trace::EventKind::Overhead && !trace::isLaunchApi(e.kind))
        return false;
    const std::string_view n = t.name(e);
    return n == "Lazy Function Loading" || n == "Runtime Triggered Module Loading" || n.starts_with("cuModuleLoad")
        || n.starts_with("cuLibraryLoad");
}

// The profiler's own cost (CUPTI's Activity Buffer Request, Buffer Flush, Instrumentation): not the run's.
bool isProfilerOverhead(const trace::Trace& t, const trace::Event& e)
{
    return e.kind == trace::EventKind::Overhead && !isModuleLoading(t, e);
}

// A step's time without the profiler's overhead inside it: gemm_compare's first region holds a 3.1 ms
// Activity Buffer Request that a run without the profiler would not pay.
// `overheads` sorted by start.
int64_t stepTime(const trace::Trace& t, const std::vector<uint32_t>& overheads, const analysis::Step& step, int64_t& overheadNs)
{
    overheadNs = 0;
    auto it = std::lower_bound(overheads.begin(), overheads.end(), step.start,
                               [&](uint32_t o, int64_t time) { return t.events[o].start < time; });
    for (; it != overheads.end() && t.events[*it].start < step.end; ++it)
        overheadNs += std::min(t.events[*it].end(), step.end) - t.events[*it].start;
    return step.end - step.start - overheadNs;
}

} // namespace

// The first step far slower than the others, or module loading inside the measured window. Steps are
// analysis::findSteps's (ProfilerStep#N, else a repeating top-level record_function region).
void warmupInWindow(const trace::Trace& t, const DiagnoseInputs& in, std::vector<Finding>& out)
{
    std::vector<uint32_t> loads, overheads;
    int64_t loadNs = 0;
    for (uint32_t i = 0; i < t.events.size(); ++i) {
        if (!inWindow(in, t.events[i]))
            continue;
        if (isModuleLoading(t, t.events[i])) {
            loads.push_back(i);
            loadNs += t.events[i].duration;
        } else if (isProfilerOverhead(t, t.events[i])) {
            overheads.push_back(i);
        }
    }
    std::sort(overheads.begin(), overheads.end(), [&](uint32_t a, uint32_t b) { return t.events[a].start < t.events[b].start; });
    int64_t firstOverheadNs = 0;
    bool slowFirst = false;
    int64_t firstNs = 0, medianNs = 0;
    const analysis::Step* first = nullptr;
    const std::vector<analysis::Step> noSteps;
    const std::vector<analysis::Step>& steps = in.steps ? *in.steps : noSteps;
    if (steps.size() >= thresholds::kWarmupMinSteps) {
        first = &steps.front();
        std::vector<int64_t> others;
        int64_t ignored = 0;
        for (size_t s = 1; s < steps.size(); ++s)
            others.push_back(stepTime(t, overheads, steps[s], ignored));
        std::sort(others.begin(), others.end());
        const size_t n = others.size();
        medianNs = n % 2 ? others[n / 2] : (others[n / 2 - 1] + others[n / 2]) / 2;
        firstNs = stepTime(t, overheads, *first, firstOverheadNs);
        slowFirst = static_cast<double>(firstNs) >= thresholds::kWarmupSlowdown * static_cast<double>(medianNs)
            && firstNs - medianNs >= thresholds::kWarmupMinExtraNs;
    }
    if (!slowFirst && loads.empty())
        return;
    std::sort(loads.begin(), loads.end(), [&](uint32_t a, uint32_t b) { return t.events[a].start < t.events[b].start; });
    size_t loadsInFirst = 0;
    if (first)
        for (const uint32_t e : loads)
            loadsInFirst += t.events[e].start >= first->start && t.events[e].start < first->end;
    Finding f;
    f.id = "warmup-in-window";
    f.title = slowFirst ? "The first step is far slower than the rest: warm-up inside the measured window"
                        : "Module loading inside the measured window";
    // A slow first step holding the loading leaves no other reading; a slow first step alone may also be a
    // cold cache or the allocator's first cudaMalloc; loading alone costs what it costs, once.
    f.strength = slowFirst && loadsInFirst > 0                 ? Strength::Strong
        : slowFirst || loadNs >= thresholds::kWarmupMinExtraNs ? Strength::Weak
                                                               : Strength::Provisional;
    if (first)
        f.evidence.push_back(
            "The first step, " + std::string(t.name(t.events[first->event])) + ", took " + stats::formatDuration(firstNs)
            + "; the median of the other " + stats::formatCount(steps.size() - 1) + " steps is " + stats::formatDuration(medianNs) + " ("
            + stats::formatFixed(medianNs > 0 ? static_cast<double>(firstNs) / static_cast<double>(medianNs) : 0.0, 1) + "x)"
            + (firstOverheadNs > 0 ? ", without the profiler's own " + stats::formatDuration(firstOverheadNs) + " of overhead events in it"
                                   : std::string())
            + ".");
    if (!loads.empty()) {
        std::string sentence = countText(loads.size(), "module-loading event", "module-loading events") + " ("
            + std::string(t.name(t.events[loads.front()]));
        if (loads.size() > 1)
            sentence += ", ...";
        sentence += ") took " + stats::formatDuration(loadNs) + " inside the window";
        if (first)
            sentence += ", " + stats::formatCount(loadsInFirst) + " of them in the first step";
        f.evidence.push_back(sentence + ".");
    }
    f.columns = {"user_annotation/ProfilerStep# dur", "overhead/cuda_driver name, dur"};
    f.nextStep = "Raise the warm-up: run the kernel (and any torch.compile or TileLang/Triton JIT) a few times before the profiler "
                 "starts, or use schedule(wait, warmup, active) so the first measured step is warm.";
    f.impactNs = (slowFirst ? firstNs - medianNs : 0) + (slowFirst && loadsInFirst > 0 ? 0 : loadNs);
    if (first && slowFirst)
        f.where.push_back({first->start, first->end, first->event});
    for (size_t k = 0; k < loads.size() && k < 20; ++k)
        f.where.push_back({t.events[loads[k]].start, t.events[loads[k]].end(), loads[k]});
    out.push_back(std::move(f));
}

} // namespace tilescope::findings::rules
