// SPDX-License-Identifier: MIT
#include "compare/compare.h"

#include "roofline/regionspans.h"
#include "stats/torchtable.h"
#include "trace/trace.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <tuple>
#include <unordered_map>

namespace tilescope::compare {

using roofline::RooflineClass;

namespace {

constexpr double kSameSpeed = 1.02;   // within 2%: "as fast as"
constexpr size_t kListedRegions = 20; // candidates named in an error, the rest counted
constexpr size_t kListedKernels = 5;  // kernel names are long: the largest few
constexpr std::string_view kDefaultB = "torch_ref";

PerCall perCallOf(const std::vector<Call>& calls)
{
    PerCall p;
    if (calls.empty())
        return p;
    std::vector<int64_t> ns;
    ns.reserve(calls.size());
    int64_t total = 0;
    for (const Call& c : calls) {
        ns.push_back(c.gpuNs);
        total += c.gpuNs;
    }
    std::sort(ns.begin(), ns.end());
    const size_t n = ns.size();
    p.mean = double(total) / double(n) / 1000.0;
    p.median = (n % 2 ? double(ns[n / 2]) : (double(ns[n / 2 - 1]) + double(ns[n / 2])) / 2) / 1000.0;
    p.min = double(ns.front()) / 1000.0;
    p.max = double(ns.back()) / 1000.0;
    return p;
}

std::string joinListed(const std::vector<std::string>& names, size_t limit)
{
    std::string out;
    for (size_t i = 0; i < names.size() && i < limit; ++i)
        out += (i ? ", '" : "'") + names[i] + "'"; // quoted: kernel signatures hold commas
    if (names.size() > limit)
        out += ", ... (" + std::to_string(names.size() - limit) + " more)";
    return out.empty() ? "(none)" : out;
}

std::string candidatesText(const Candidates& c)
{
    return "regions: " + joinListed(c.regions, kListedRegions) + "; kernels: " + joinListed(c.kernels, kListedKernels);
}

// The region's calls: spans grouped by External id (as classify counts calls); a span without one is a call of its own.
bool isHostLinkCopy(const trace::Trace& t, const trace::Event& e)
{
    return e.kind == trace::EventKind::GpuMemcpy && roofline::namesHostMemory(t.strings.view(e.name));
}

std::vector<Call> regionCalls(const trace::Trace& t, const std::vector<uint32_t>& spans, bool& hostLink)
{
    std::vector<Call> calls;
    std::unordered_map<int64_t, size_t> byId;
    for (const uint32_t s : spans) {
        const trace::Event& span = t.events[s];
        size_t slot = calls.size();
        if (span.externalId != trace::kNoId) {
            const auto [it, inserted] = byId.try_emplace(span.externalId, calls.size());
            slot = it->second;
            if (!inserted) {
                Call& c = calls[slot];
                c.startNs = std::min(c.startNs, span.start);
                c.endNs = std::max(c.endNs, span.end());
            }
        }
        if (slot == calls.size())
            calls.push_back({span.start, span.end(), 0});
        int64_t& gpu = calls[slot].gpuNs;
        roofline::forEachActivityInSpan(t, s, [&](uint32_t index) {
            gpu += t.events[index].duration;
            hostLink = hostLink || isHostLinkCopy(t, t.events[index]);
        });
    }
    return calls;
}

std::vector<Call> kernelCalls(const trace::Trace& t, trace::StringId name, bool& hostLink)
{
    std::vector<Call> calls;
    for (const trace::Event& e : t.events)
        if (e.name == name && trace::isGpuActivity(e.kind)) {
            calls.push_back({e.start, e.end(), e.duration});
            hostLink = hostLink || isHostLinkCopy(t, e);
        }
    return calls;
}

const roofline::Classification* findClassification(const std::vector<roofline::Classification>& list, const std::string& name)
{
    for (const auto& c : list)
        if (c.name == name)
            return &c;
    return nullptr;
}

// The roof the class binds to and the share of its ceiling reached (see Side::roof).
void setRoofShare(Side& side, const roofline::Classification& c, const roofline::Ceilings& ceilings)
{
    const double computeRate = roofline::roofRate(ceilings, c.roof);
    const bool hasFlops = c.flops && *c.flops > 0 && c.achievedFlopsPerS > 0;
    const bool hasBytes = c.bytes && *c.bytes > 0 && c.achievedBytesPerS > 0;
    const auto compute = [&] {
        if (hasFlops && computeRate > 0) {
            side.roof = c.roof;
            side.roofShare = c.achievedFlopsPerS / computeRate;
        }
    };
    const auto memory = [&] {
        if (hasBytes && ceilings.memoryBytesPerS > 0 && !side.hostLink) {
            side.roof = "memory";
            side.roofShare = c.achievedBytesPerS / ceilings.memoryBytesPerS;
        }
    };
    switch (c.cls) {
    case RooflineClass::TensorCoreBound:
    case RooflineClass::CudaCoreBound: compute(); break;
    case RooflineClass::IoBound: memory(); break;
    case RooflineClass::LatencyBound: hasFlops ? compute() : memory(); break;
    case RooflineClass::Communication:
    case RooflineClass::Inconclusive: break;
    }
}

void classifySide(Side& side, const roofline::ClassifyReport& report)
{
    const roofline::Classification* c = findClassification(side.kind == SideKind::Region ? report.regions : report.kernels, side.name);
    if (!c)
        return;
    side.classified = true;
    if (c->flops)
        side.achievedFlopsPerS = c->achievedFlopsPerS;
    if (c->bytes)
        side.achievedBytesPerS = c->achievedBytesPerS;
    side.cls = c->cls;
    side.strength = c->strength;
    if (side.kind == SideKind::Region)
        side.kernels = c->kernels;
    setRoofShare(side, *c, report.ceilings);
}

// The class in a sentence: "tensor-core bound", "io-bound".
std::string classProse(const Side& s)
{
    if (!s.classified)
        return "not classified";
    switch (s.cls) {
    case RooflineClass::IoBound: return "io-bound";
    case RooflineClass::CudaCoreBound: return "CUDA-core bound";
    case RooflineClass::TensorCoreBound: return "tensor-core bound";
    case RooflineClass::LatencyBound: return "latency-bound";
    case RooflineClass::Communication: return "NCCL communication";
    case RooflineClass::Inconclusive: break;
    }
    return "inconclusive on the roofline";
}

std::string roofProse(const std::string& roof)
{
    if (roof == "memory")
        return "memory-bandwidth roof";
    std::string upper = roof;
    std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char ch) { return char(std::toupper(ch)); });
    return upper + " roof";
}

// Whole percents, one decimal below 10% (latency-bound work sits there), "<0.1%" below that.
std::string percent(double share)
{
    if (share < 0.001)
        return "<0.1%";
    return stats::formatFixed(100 * share, share < 0.1 ? 1 : 0) + "%";
}

std::string shareProse(const Side& s) { return percent(*s.roofShare) + " of the " + roofProse(s.roof); }

std::string speedProse(const Side& a, const Side& b)
{
    const double ma = a.gpuUsPerCall.mean, mb = b.gpuUsPerCall.mean;
    if (ma <= 0 && mb <= 0)
        return "neither " + a.name + " nor " + b.name + " has GPU activity inside its calls";
    if (ma <= 0 || mb <= 0)
        return (ma <= 0 ? a.name : b.name) + " has no GPU activity inside its calls";
    if (std::max(ma, mb) / std::min(ma, mb) <= kSameSpeed)
        return a.name + " is as fast as " + b.name + " (within 2%)";
    if (ma > mb)
        return a.name + " is " + stats::formatFixed(ma / mb, 2) + "x slower than " + b.name;
    return a.name + " is " + stats::formatFixed(mb / ma, 2) + "x faster than " + b.name;
}

std::string classesProse(const Side& a, const Side& b)
{
    if (a.classified && b.classified && a.cls == b.cls) {
        std::string out = "both " + classProse(a);
        if (a.roofShare && b.roofShare && a.roof == b.roof)
            out += ", " + percent(*a.roofShare) + " vs " + percent(*b.roofShare) + " of the " + roofProse(a.roof);
        else if (a.roofShare && b.roofShare)
            out += ", " + shareProse(a) + " vs " + shareProse(b);
        else if (a.roofShare || b.roofShare)
            out += ", " + (a.roofShare ? a.name + " at " + shareProse(a) : b.name + " at " + shareProse(b));
        return out;
    }
    const auto one = [](const Side& s) { return classProse(s) + (s.roofShare ? " (" + shareProse(s) + ")" : std::string()); };
    return a.name + " is " + one(a) + ", " + b.name + " " + one(b);
}

// Where a cut trace may be why a region has no GPU-side span: Kineto writes those spans with the GPU activity,
// late in the file.
std::string cutNote(const trace::Trace& t)
{
    return t.stats.partial ? " (the trace is cut off and loaded in part: its GPU-side spans and kernels may lie past the cut)" : "";
}

} // namespace

std::string_view sideKindName(SideKind kind) { return kind == SideKind::Region ? "region" : "kernel"; }

Candidates candidates(const trace::Trace& t)
{
    Candidates out;
    for (auto& [name, spans] : roofline::regionSpans(t))
        out.regions.push_back(name);
    std::unordered_map<trace::StringId, int64_t> busy;
    for (const trace::Event& e : t.events)
        if (trace::isGpuActivity(e.kind))
            busy[e.name] += e.duration;
    std::vector<std::pair<int64_t, std::string>> byTime;
    for (const auto& [id, ns] : busy)
        byTime.emplace_back(ns, std::string(t.strings.view(id)));
    std::sort(byTime.begin(), byTime.end(),
              [](const auto& x, const auto& y) { return x.first != y.first ? x.first > y.first : x.second < y.second; });
    for (auto& [ns, name] : byTime)
        out.kernels.push_back(std::move(name));
    return out;
}

std::pair<std::string, std::string> defaultPair(const trace::Trace& t)
{
    const Candidates named = candidates(t);
    const std::vector<std::string>& regions = named.regions;
    const auto has = [&](std::string_view name) { return std::find(regions.begin(), regions.end(), name) != regions.end(); };
    if (has(kDefaultB))
        for (const char* a : {"tilelang_kernel", "custom_kernel"})
            if (has(a))
                return {a, std::string(kDefaultB)};
    throw CompareError("no default pair: name both sides with --a and --b (the default is tilelang_kernel or custom_kernel against "
                       "torch_ref)"
                       + cutNote(t) + "; " + candidatesText(named));
}

Side measureSide(const trace::Trace& t, const roofline::ClassifyReport& report, const std::string& name)
{
    Side side;
    side.name = name;
    bool found = false;
    for (const auto& [label, spans] : roofline::regionSpans(t))
        if (label == name) {
            side.kind = SideKind::Region;
            side.callList = regionCalls(t, spans, side.hostLink);
            found = true;
            break;
        }
    if (!found) {
        const trace::StringId id = t.strings.find(name);
        if (id != trace::kNoIndex) {
            side.kind = SideKind::Kernel;
            side.callList = kernelCalls(t, id, side.hostLink);
            found = !side.callList.empty();
        }
    }
    if (!found) {
        // A record_function region on the CPU only: Kineto wrote no GPU-side span (gpu_user_annotation) for it,
        // and the GPU work a region holds is measured on those spans. Said as such, not as a missing name.
        uint64_t hostSpans = 0;
        if (const trace::StringId id = t.strings.find(name); id != trace::kNoIndex)
            for (const trace::Event& e : t.events)
                hostSpans += e.kind == trace::EventKind::UserAnnotation && e.name == id;
        if (hostSpans > 0)
            throw CompareError("'" + name + "' is a record_function region on the CPU only (" + std::to_string(hostSpans)
                               + (hostSpans == 1 ? " span" : " spans")
                               + "): the trace has no GPU-side span of it (gpu_user_annotation), which is where compare and "
                                 "classify measure a region's GPU work (summary's row of it has torch's CUDA time)"
                               + cutNote(t) + "; " + candidatesText(candidates(t)));
        throw CompareError("no region or kernel named '" + name + "' in the trace" + cutNote(t) + "; " + candidatesText(candidates(t)));
    }
    std::sort(side.callList.begin(), side.callList.end(), [](const Call& x, const Call& y) { return x.startNs < y.startNs; });
    side.calls = side.callList.size();
    side.gpuUsPerCall = perCallOf(side.callList);
    int64_t total = 0, span = 0;
    for (const Call& c : side.callList) {
        total += c.gpuNs;
        span += c.endNs - c.startNs;
    }
    side.totalGpuUs = double(total) / 1000.0;
    side.totalSpanUs = double(span) / 1000.0;
    classifySide(side, report);
    return side;
}

std::string verdictText(const Side& a, const Side& b) { return speedProse(a, b) + "; " + classesProse(a, b); }

Comparison compareSides(const trace::Trace& t, const roofline::ClassifyReport& report, std::string a, std::string b)
{
    if (a.empty() && b.empty())
        std::tie(a, b) = defaultPair(t);
    else if (a.empty())
        a = defaultPair(t).first;
    else if (b.empty())
        b = std::string(kDefaultB);
    if (a == b) // "torch_ref is as fast as torch_ref" reads as a finding
        throw CompareError("a and b are the same, '" + a + "': name another region or kernel for one side (--a or --b; b is "
                           + std::string(kDefaultB) + " unless given)");
    Comparison c;
    c.a = measureSide(t, report, a);
    c.b = measureSide(t, report, b);
    if (c.a.gpuUsPerCall.mean > 0)
        c.ratioBOverA = c.b.gpuUsPerCall.mean / c.a.gpuUsPerCall.mean;
    c.verdict = verdictText(c.a, c.b);
    return c;
}

} // namespace tilescope::compare
