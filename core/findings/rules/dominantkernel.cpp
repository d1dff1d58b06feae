// SPDX-License-Identifier: MIT
#include "findings/rules.h"
#include "findings/rules/ruletext.h"
#include "findings/thresholds.h"
#include "roofline/classify.h"
#include "stats/keyaverages.h"
#include "stats/timetext.h"
#include "trace/trace.h"

#include <algorithm>
#include <unordered_map>

namespace tilescope::findings::rules {

namespace {

std::string nextStepFor(const roofline::Classification& c, int64_t meanCallNs)
{
    switch (c.cls) {
    case roofline::RooflineClass::TensorCoreBound:
        return "Work on this kernel first. It is near the tensor roof, so timing alone cannot say what is left: look at it in "
               "Nsight Compute (tensor pipe utilisation, stalls) or cut its FLOPs.";
    case roofline::RooflineClass::CudaCoreBound:
        return "Work on this kernel first: it runs on the CUDA cores, so moving its math to tensor cores (MMA/WGMMA, a lower "
               "precision) is the largest lever.";
    case roofline::RooflineClass::IoBound:
        return "Work on this kernel first: it is bound by memory traffic, so cut the bytes it moves (fuse it with its neighbours, "
               "a lower precision, better reuse in shared memory).";
    case roofline::RooflineClass::LatencyBound:
        if (meanCallNs < thresholds::kTinyKernelNs) // shorter than a launch: occupancy is not what costs
            return "Work on this kernel's launches first: each call runs for less than a launch costs, so launch it fewer times "
                   "with more work each (fuse it with its neighbours, batch the calls, capture the loop in a CUDA graph).";
        return "Work on this kernel first: it reaches neither roof, so look at its launch configuration and occupancy in "
               "Nsight Compute (too few blocks, serial dependencies).";
    case roofline::RooflineClass::Communication: return "Work on this collective first: overlap it with compute or shrink the messages.";
    case roofline::RooflineClass::Inconclusive: break;
    }
    return "Work on this kernel first. Its roofline class is unknown: declare its FLOPs and bytes in TRACE.annotations.json "
           "(tilescope-cli classify) to place it.";
}

// A GPU activity name's time in the window: the classification's totals for the whole trace, else summed
// from the activities that start inside the window (their class is still the whole trace's).
struct NameTotal
{
    std::string name;
    double totalUs = 0;
    uint64_t calls = 0;
};

std::vector<NameTotal> totalsByName(const trace::Trace& t, const DiagnoseInputs& in)
{
    std::vector<NameTotal> out;
    if (!in.window) {
        for (const auto& k : in.classification->kernels)
            out.push_back({k.name, k.totalUs, k.calls});
        return out;
    }
    std::unordered_map<std::string_view, size_t> index;
    for (const trace::Event& e : t.events) {
        if (!trace::isGpuActivity(e.kind) || !inWindow(in, e))
            continue;
        const auto [it, inserted] = index.try_emplace(t.name(e), out.size());
        if (inserted)
            out.push_back({std::string(t.name(e)), 0, 0});
        out[it->second].totalUs += static_cast<double>(e.duration) / 1000.0;
        ++out[it->second].calls;
    }
    std::stable_sort(out.begin(), out.end(), [](const NameTotal& a, const NameTotal& b) { return a.totalUs > b.totalUs; });
    return out;
}

} // namespace

// One kernel (or memcpy/memset) name holding most of the GPU time, from the roofline classification
// (the same per-name totals and class the classify report prints).
void dominantKernel(const trace::Trace& t, const DiagnoseInputs& in, std::vector<Finding>& out)
{
    if (!in.classification || in.classification->kernels.empty())
        return;
    const std::vector<NameTotal> kernels = totalsByName(t, in);
    if (kernels.empty())
        return;
    double totalUs = 0;
    for (const auto& k : kernels)
        totalUs += k.totalUs;
    const NameTotal& top = kernels.front(); // largest total first
    if (totalUs <= 0 || top.totalUs / totalUs < thresholds::kDominantMinShare)
        return;
    const roofline::Classification* topClass = nullptr;
    for (const auto& k : in.classification->kernels)
        if (k.name == top.name)
            topClass = &k;
    if (!topClass)
        return;
    const roofline::Classification& cls = *topClass;
    const auto ns = [](double us) { return static_cast<int64_t>(us * 1000.0 + 0.5); };
    Finding f;
    f.id = "dominant-kernel";
    const bool copy = top.name.starts_with("Memcpy") || top.name.starts_with("Memset");
    f.title = std::string(copy ? "One copy kind" : "One kernel") + " holds most of the GPU time: " + top.name;
    // A clear lead leaves no other reading; with the next name close behind (a near tie), the two are the work.
    const double nextUs = kernels.size() > 1 ? kernels[1].totalUs : 0.0;
    const bool clearLead = top.totalUs >= thresholds::kDominantLead * nextUs;
    f.strength = clearLead ? Strength::Strong : Strength::Weak;
    const int64_t meanCallNs = ns(top.totalUs / static_cast<double>(top.calls ? top.calls : 1));
    f.evidence.push_back(top.name + " ran " + stats::formatDuration(ns(top.totalUs)) + " of " + stats::formatDuration(ns(totalUs))
                         + " of GPU activity (" + percentText(top.totalUs / totalUs) + ") in " + countText(top.calls, "call", "calls")
                         + ", " + stats::formatDuration(meanCallNs) + " per call.");
    std::string roof = "Roofline: " + std::string(roofline::className(cls.cls)) + " (" + cls.strength + ")";
    if (!cls.roof.empty())
        roof += " against the " + cls.roof + " roof";
    if (cls.achievedFlopsPerS > 0)
        roof += ", " + stats::formatFixed(cls.achievedFlopsPerS / 1e12, 1) + " TFLOP/s achieved";
    if (cls.achievedBytesPerS > 0)
        roof += ", " + stats::formatFixed(cls.achievedBytesPerS / 1e9, 1) + " GB/s";
    if (in.window)
        roof += " (over the whole trace)";
    f.evidence.push_back(roof + ".");
    // The same kernel's row of torch's key_averages, the table a user compares against.
    if (in.averages)
        for (const stats::KeyAverage& row : in.averages->rows)
            if (row.deviceType == stats::DeviceType::CUDA && row.key == top.name && row.inputShapes.empty()) {
                f.evidence.push_back("key_averages: self_cuda_time_total " + stats::formatTorchTime(row.selfDeviceTimeTotal) + " over "
                                     + countText(static_cast<uint64_t>(row.count), "call", "calls") + ".");
                f.columns.push_back("self_cuda_time_total");
                break;
            }
    if (kernels.size() > 1)
        f.evidence.push_back("The next, " + kernels[1].name + ", ran " + percentText(kernels[1].totalUs / totalUs)
                             + (clearLead ? std::string(".") : std::string(": nearly as much, so the two share the work.")));
    f.columns.insert(f.columns.begin(), {"kernel dur", "roofline class"});
    f.nextStep = nextStepFor(cls, meanCallNs);
    f.impactNs = ns(top.totalUs);
    // Its first and its longest call.
    uint32_t first = trace::kNoIndex, longest = trace::kNoIndex;
    for (uint32_t i = 0; i < t.events.size(); ++i) {
        const trace::Event& e = t.events[i];
        if (!trace::isGpuActivity(e.kind) || !inWindow(in, e) || t.name(e) != top.name)
            continue;
        if (first == trace::kNoIndex || e.start < t.events[first].start)
            first = i;
        if (longest == trace::kNoIndex || e.duration > t.events[longest].duration)
            longest = i;
    }
    for (const uint32_t e : {first, longest})
        if (e != trace::kNoIndex && (f.where.empty() || f.where.front().event != e))
            f.where.push_back({t.events[e].start, t.events[e].end(), e});
    out.push_back(std::move(f));
}

} // namespace tilescope::findings::rules
