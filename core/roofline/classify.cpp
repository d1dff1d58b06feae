// SPDX-License-Identifier: MIT
#include "roofline/classify.h"

#include "roofline/regionspans.h"
#include "roofline/workestimate.h"

#include "io/smalljson.h"
#include "io/tracefileerror.h"
#include "stats/torchtable.h"
#include "trace/trace.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <stdexcept>
#include <map>
#include <regex>
#include <set>
#include <unordered_map>

namespace tilescope::roofline {

using trace::Event;
using trace::EventKind;
using trace::kNoIndex;

namespace {

constexpr double kHostLinkBytesPerS = 64e9; // PCIe Gen5 x16, one direction (roofline.md §6.4)

bool isTensorRoof(std::string_view roof) { return roof == "tf32" || roof == "bf16" || roof == "fp16" || roof == "fp8" || roof == "int8"; }

std::string pct(double v) { return stats::formatFixed(100 * v, 1) + "%"; }
std::string rate(double v, const char* unit) { return stats::formatRate(v, unit); }

struct Aggregate
{
    uint64_t calls = 0;
    double ns = 0;
    double flops = 0, bytes = 0;
    uint64_t known = 0;
    std::map<std::string, double> roofFlops;
    std::set<char> levels;
    bool hostLink = false;
    bool dominantRuleUsed = false;
    bool assumedRoof = false;
    std::string declaredRoof;
    std::string sourceRoof; // the tensor roof the generated source's MMA call sites imply
    bool sourcePrecisionAssumed = false;
    std::set<std::string> bases;          // how the known work was found, one line per formula instance
    std::set<std::string> unknownReasons; // why some calls have no estimate
    std::string roofOrigin;               // why the roof is what it is, when not from the FLOPs' own ops
    std::string fallbackTensorRoof;       // the tensor precision to assume for work of unknown precision (else BF16)
    // NCCL kernels: messages over their kernel time, not a point on this GPU's roofline.
    double commNs = 0, commBytes = 0, commSizedNs = 0, commBusBytes = 0, commBusNs = 0;
    std::set<std::string> collectives, commBases, commUnknown;

    void addCommunication(const Collective& c, double ns)
    {
        commNs += ns;
        std::string what = c.name;
        if (c.groupSize)
            what += " over " + std::to_string(*c.groupSize) + " ranks";
        if (c.busFactor)
            what += ", bus bandwidth = algorithm bandwidth x " + busFactorFormula(c.name) + " = " + stats::formatFixed(*c.busFactor, 2);
        else
            what += c.groupSize ? ", no bus-bandwidth factor for this collective" : ", group size not recorded: no bus bandwidth";
        collectives.insert(what);
        (c.bytes ? commBases : commUnknown).insert(c.basis);
        if (!c.bytes)
            return;
        commBytes += *c.bytes;
        commSizedNs += ns;
        if (c.busFactor) {
            commBusBytes += *c.bytes * *c.busFactor;
            commBusNs += ns;
        }
    }
    static std::string busFactorFormula(std::string_view collective)
    {
        return collective == "allreduce"                                                      ? "2(n-1)/n"
            : collective == "broadcast" || collective == "reduce" || collective == "sendrecv" ? "1"
                                                                                              : "(n-1)/n";
    }
};

// At most `limit` lines of `lines`, then a count of the rest.
void addLines(std::vector<std::string>& evidence, const std::string& prefix, const std::set<std::string>& lines, size_t limit)
{
    size_t n = 0;
    for (const std::string& l : lines) {
        if (n++ == limit) {
            evidence.push_back(prefix + "(" + std::to_string(lines.size() - limit) + " more)");
            break;
        }
        evidence.push_back(prefix + l);
    }
}

// Whether a kernel-name hint agrees with the verdict the numbers gave; the hint never changes the verdict.
std::string hintAgreement(const Classification& c, const std::string& hint)
{
    const bool saysTensor = hint.find("tensor-core") != std::string::npos, saysCudaCore = hint.find("CUDA-core") != std::string::npos;
    if (c.roof.empty() || c.cls == RooflineClass::Inconclusive || c.cls == RooflineClass::LatencyBound || (!saysTensor && !saysCudaCore))
        return {};
    if (saysTensor == isTensorRoof(c.roof))
        return ", consistent with the " + c.roof + " roof";
    return saysTensor ? ", but the numbers put it on the " + c.roof + " roof (if TF32 was enabled, rerun with --allow-tf32)"
                      : ", but the numbers put it on the " + c.roof + " roof";
}

// NCCL kernels (and regions of them): the class is certain from the name; the numbers are NCCL's algorithm
// and bus bandwidths (its PERFORMANCE.md), to compare with the link's peak rather than with HBM or FLOP roofs.
void gradeCommunication(Classification& c, const Aggregate& a)
{
    c.cls = RooflineClass::Communication;
    c.strength = "strong";
    c.roof.clear();
    c.evidenceLevel = a.commSizedNs > 0 ? "B" : "D";
    c.evidence.push_back("NCCL communication kernel: its time goes to the interconnect (NVLink, PCIe, network) and to waiting for the "
                         "other ranks, so it has no point on this GPU's roofline");
    addLines(c.evidence, "collective: ", a.collectives, 3);
    addLines(c.evidence, "message: ", a.commBases, 3);
    addLines(c.evidence, "unknown: ", a.commUnknown, 2);
    if (a.commSizedNs <= 0)
        return;
    c.bytes = a.commBytes;
    c.achievedBytesPerS = a.commBytes / (a.commSizedNs / 1e9);
    c.evidence.push_back("algorithm bandwidth " + rate(c.achievedBytesPerS, "B/s") + " = message bytes / kernel time");
    if (a.commBusNs > 0) {
        c.busBytesPerS = a.commBusBytes / (a.commBusNs / 1e9);
        c.evidence.push_back("bus bandwidth " + rate(*c.busBytesPerS, "B/s") + ": compare it with the link's peak (NVLink, PCIe, network)");
    }
}

// latencyReason: why work below every roof is slow, for the latency-bound verdict.
constexpr std::string_view kKernelLatencyReason = "launch overhead, tails or a small grid dominate";
void grade(Classification& c, const Aggregate& a, const Ceilings& ceilings, const Ceilings& datasheet, bool measured, bool partial,
           std::string_view latencyReason = kKernelLatencyReason)
{
    const double seconds = a.ns / 1e9;
    c.calls = a.calls;
    c.totalUs = a.ns / 1000.0;
    if (a.known == 0 || seconds <= 0 || (a.flops <= 0 && a.bytes <= 0)) {
        c.cls = RooflineClass::Inconclusive;
        c.strength = "provisional";
        c.evidenceLevel = "D";
        c.evidence.push_back("no FLOP/byte estimate: torch has no formula for its op (or it has no op) and no annotation gives one; "
                             "declare it in TRACE.annotations.json (or --annotations FILE; the app's Annotations... writes that file), or "
                             "measure it with Nsight Compute");
        addLines(c.evidence, "why: ", a.unknownReasons, 3);
        return;
    }
    c.flops = a.flops;
    c.bytes = a.bytes;
    c.achievedFlopsPerS = a.flops / seconds;
    c.achievedBytesPerS = a.bytes / seconds;
    std::string levels;
    for (const char l : a.levels)
        if (l != 'D')
            levels += (levels.empty() ? "" : "/") + std::string(1, l);
    c.evidenceLevel = levels.empty() ? "D" : levels;
    const double bwRoof = a.hostLink ? kHostLinkBytesPerS : ceilings.memoryBytesPerS;
    const std::string bwName = a.hostLink ? "host link (PCIe Gen5 x16, 64 GB/s)" : (measured ? "measured HBM" : "datasheet HBM");
    // The roof carrying most FLOPs; faster than the datasheet FP32 peak cannot be CUDA-core work.
    std::string roof;
    double most = -1;
    for (const auto& [r, f] : a.roofFlops)
        if (f > most) {
            most = f;
            roof = r;
        }
    if (!a.declaredRoof.empty()) {
        roof = a.declaredRoof;
    } else if (!a.roofOrigin.empty()) {
        c.evidence.push_back(a.roofOrigin);
    } else if (a.assumedRoof && !a.sourceRoof.empty()) {
        // §6.2: a custom kernel's roof comes from the user's declaration, else from its generated source.
        roof = a.sourceRoof;
        c.evidence.push_back("the " + roof + " tensor roof comes from the generated source's MMA call sites"
                             + (a.sourcePrecisionAssumed ? " (no operand type named there: BF16 assumed)" : ""));
    }
    bool aboveFp32Peak = false;
    if ((roof == "fp32" || roof.empty()) && a.flops > 0 && datasheet.fp32 > 0 && c.achievedFlopsPerS > datasheet.fp32) {
        aboveFp32Peak = true;
        const std::string assumed = a.fallbackTensorRoof.empty() ? "bf16" : a.fallbackTensorRoof;
        const std::string tensorRoof = a.assumedRoof || roof.empty() ? assumed : "tf32";
        std::string why;
        if (roof == "fp32" && a.assumedRoof)
            why = a.fallbackTensorRoof.empty() ? " (BF16 roof assumed)" : " (the " + assumed + " roof of the rest of its work)";
        c.evidence.push_back(rate(c.achievedFlopsPerS, "FLOP/s") + " is above the datasheet FP32 peak " + rate(datasheet.fp32, "FLOP/s")
                             + (roofRate(ceilings, tensorRoof) > 0 ? ": it must be tensor-core work" + why : std::string()));
        roof = tensorRoof;
    }
    if (roof.empty() && a.flops > 0)
        roof = "fp32";
    c.roof = roof;
    const double computeRoof = roofRate(ceilings, roof);
    if (a.flops > 0 && computeRoof <= 0 && (ceilings.fp32 > 0 || !roof.empty())) {
        // e.g. fp32 convolutions on a V100 faster than its FP32 peak: no TF32 there, so the FLOP count (the direct
        // formula) overstates what a Winograd/FFT algorithm did. No roof to grade against.
        c.cls = RooflineClass::Inconclusive;
        c.strength = "provisional";
        addLines(c.evidence, "work: ", a.bases, 3);
        if (aboveFp32Peak)
            c.evidence.push_back("no " + roof
                                 + " roof for this device: the estimated FLOPs exceed what its cores can do (a convolution by "
                                   "Winograd or FFT does fewer than the direct formula counts)");
        else if (ceilings.fp32 <= 0 && ceilings.memoryBytesPerS <= 0)
            c.evidence.push_back("no roofs: the trace names no GPU the datasheet table knows (choose it with --gpu, or Ceilings > GPU "
                                 "in the app)");
        else
            c.evidence.push_back("no " + roof + " roof: this GPU's datasheet gives no " + roof + " rate");
        return;
    }
    const double uBw = bwRoof > 0 ? c.achievedBytesPerS / bwRoof : 0;
    const double uCompute = computeRoof > 0 && a.flops > 0 ? c.achievedFlopsPerS / computeRoof : 0;
    std::string columns = "columns: activity durations (dur)";
    if (a.levels.count('B'))
        for (const char* source : {"op", "bytes"}) {
            const bool fromBytesArg = source == std::string_view("bytes");
            if (std::any_of(a.bases.begin(), a.bases.end(),
                            [&](const std::string& b) { return b.starts_with("the activity's bytes arg") == fromBytesArg; }))
                columns += fromBytesArg ? ", the activity's bytes arg"
                                        : ", External id (activity to its launching op) and that op's recorded inputs";
        }
    if (a.levels.count('C'))
        columns += ", the annotations file";
    c.evidence.push_back(columns);
    addLines(c.evidence, "work: ", a.bases, 3);
    if (a.known < a.calls)
        addLines(c.evidence, "unknown work: ", a.unknownReasons, 2);
    c.evidence.push_back("bandwidth " + rate(c.achievedBytesPerS, "B/s") + " = " + pct(uBw) + " of the " + bwName + " roof "
                         + rate(bwRoof, "B/s"));
    if (a.flops > 0)
        c.evidence.push_back("compute " + rate(c.achievedFlopsPerS, "FLOP/s") + " = " + pct(uCompute) + " of the " + roof + " roof "
                             + rate(computeRoof, "FLOP/s") + (measured ? " (measured)" : " (datasheet)"));
    if (!a.hostLink && datasheet.memoryBytesPerS > 0 && c.achievedBytesPerS > datasheet.memoryBytesPerS) {
        c.cls = RooflineClass::Inconclusive;
        c.strength = "provisional";
        c.evidence.push_back("faster than the datasheet DRAM peak " + rate(datasheet.memoryBytesPerS, "B/s")
                             + ": its data came from L2 (cache-resident), and the trace has no L2 roof");
        return;
    }
    double u = uBw;
    if (a.flops > 0 && a.bytes > 0 && bwRoof > 0 && computeRoof > 0) {
        const double ai = a.flops / a.bytes, ridge = computeRoof / bwRoof;
        c.evidence.push_back("arithmetic intensity " + stats::formatFixed(ai, 2) + " FLOP/B against the ridge "
                             + stats::formatFixed(ridge, 1) + " FLOP/B");
        if (ai < ridge) {
            c.cls = RooflineClass::IoBound;
        } else {
            c.cls = isTensorRoof(roof) ? RooflineClass::TensorCoreBound : RooflineClass::CudaCoreBound;
            u = uCompute;
        }
    } else if (a.flops > 0 && computeRoof > 0) {
        c.cls = isTensorRoof(roof) ? RooflineClass::TensorCoreBound : RooflineClass::CudaCoreBound;
        u = uCompute;
    } else {
        c.cls = RooflineClass::IoBound;
    }
    if (uBw < 0.3 && uCompute < 0.3) {
        c.cls = RooflineClass::LatencyBound;
        c.strength = "provisional";
        c.evidence.push_back("below 30% of every roof (mean " + stats::formatFixed(c.totalUs / double(std::max<uint64_t>(1, a.calls)), 2)
                             + " us per call): " + std::string(latencyReason));
        return;
    }
    c.strength = u >= 0.6 ? "strong" : u >= 0.3 ? "weak" : "provisional";
    if (partial || a.dominantRuleUsed) {
        if (partial)
            c.evidence.push_back("part of the work is unknown: the figures are a lower bound");
        if (c.strength == "strong" && partial)
            c.strength = "weak";
        else if (c.strength == "weak" && partial)
            c.strength = "provisional";
    }
    if (u >= 0.8)
        c.evidence.push_back("at the roof");
}

std::string linesText(const std::vector<int>& lines)
{
    std::string out;
    for (const int l : lines)
        out += (out.empty() ? "" : ", ") + std::to_string(l);
    return out;
}

// The tensor roof that MMA call sites imply for a custom kernel: the operand type they name, else BF16.
void applySourceRoof(Aggregate& a, const SourceEvidence* source)
{
    if (!source || source->summary.tensorCore == TensorCorePath::None)
        return;
    const std::string& p = source->summary.mmaPrecision;
    a.sourceRoof = p.empty() ? "bf16" : p;
    a.sourcePrecisionAssumed = p.empty();
}

// roofline.md §7.4-7.5: the source's findings as evidence lines next to the verdict, and the verdicts
// the call sites contradict.
void corroborate(Classification& c, SourceEvidence e, bool hopper)
{
    const SourceSummary& s = e.summary;
    c.evidence.push_back("generated source " + e.path + (e.kernel.empty() ? "" : " (" + e.kernel + ")") + ": " + s.conclusion);
    std::string sites;
    for (const auto& f : s.features)
        sites += (sites.empty() ? "" : "; ") + f.name + " x" + std::to_string(f.callSites) + " (line" + (f.lines.size() > 1 ? "s " : " ")
            + linesText(f.lines) + ")";
    if (!sites.empty())
        c.evidence.push_back("source call sites: " + sites);
    if (s.tensorCore != TensorCorePath::None)
        c.tensorCoreEvidence = "generated source";
    if (s.tensorCore == TensorCorePath::None && c.cls == RooflineClass::TensorCoreBound) {
        c.sourceContradicts = true;
        c.evidence.push_back("CONFLICT: tensor-core-bound on the " + c.roof
                             + " roof, but the generated source has no MMA call site: "
                               "check that the source is this kernel's, and its FLOP count (faster than the FP32 peak without "
                               "tensor cores means the FLOPs are overstated)");
    } else if (s.tensorCore == TensorCorePath::None && isTensorRoof(c.roof)) {
        c.evidence.push_back("the " + c.roof + " tensor roof is not corroborated: the generated source has no MMA call site");
    } else if (s.tensorCore != TensorCorePath::None && c.cls == RooflineClass::CudaCoreBound) {
        c.sourceContradicts = true;
        c.evidence.push_back("CONFLICT: cuda-core-bound on the " + c.roof + " roof, but the generated source issues "
                             + tensorCorePathMeaning(s.tensorCore) + " MMAs: declare its tensor roof ('roof' in the annotation)");
    }
    if (hopper && s.tensorCore == TensorCorePath::MmaSync)
        c.evidence.push_back("mma.sync on a Hopper GPU: WGMMA was not allowed (tile M < 64, threads not a multiple of 128, "
                             "dtype or layout, or tl.disable_wgmma)");
    if (hopper && s.callSitesOf("cp.async (tl::cp_async_*)") > 0 && s.callSitesOf("TMA (tl::tma_*)") == 0)
        c.evidence.push_back("cp.async instead of TMA on a Hopper GPU: tl.disable_tma_lower or tl.disable_warp_specialized was set, "
                             "or the copy did not qualify");
    c.source = std::move(e);
}

} // namespace

namespace {

constexpr std::pair<RooflineClass, std::string_view> kClassNames[] = {
    {RooflineClass::IoBound, "io-bound"},
    {RooflineClass::CudaCoreBound, "cuda-core-bound"},
    {RooflineClass::TensorCoreBound, "tensor-core-bound"},
    {RooflineClass::LatencyBound, "latency-bound"},
    {RooflineClass::Communication, "communication"},
    {RooflineClass::Inconclusive, "inconclusive"},
};

} // namespace

bool namesHostMemory(std::string_view activityName)
{
    for (const std::string_view marker : {"HtoD", "DtoH", "Pinned", "Pageable"})
        if (activityName.find(marker) != std::string_view::npos)
            return true;
    return false;
}

std::string_view className(RooflineClass cls)
{
    for (const auto& [c, name] : kClassNames)
        if (c == cls)
            return name;
    return "inconclusive";
}

std::optional<RooflineClass> parseClassName(std::string_view name)
{
    for (const auto& [c, text] : kClassNames)
        if (text == name)
            return c;
    return std::nullopt;
}

std::string deviceText(const ClassifyReport& r)
{
    const std::string name = r.deviceName.empty() ? "(none)" : r.deviceName;
    return r.chosenGpu.empty() ? name : name + ", graded as the " + r.deviceRow + " (chosen)";
}

std::string workSourceText(const Classification& c)
{
    if (c.cls == RooflineClass::Communication)
        return c.bytes ? "message sizes from the trace" : "message size not recorded";
    const bool trace = c.evidenceLevel.find('B') != std::string::npos, annotations = c.evidenceLevel.find('C') != std::string::npos;
    if (trace && annotations)
        return "work from the trace and your annotations";
    if (trace)
        return "work estimated from the trace";
    if (annotations)
        return "work from your annotations";
    return "no FLOP/byte estimate";
}

namespace {

// The device, its datasheet row and the ceilings to grade against; `entry` is set to the row.
ClassifyReport deviceReport(const trace::Trace& t, const ClassifyOptions& options, const std::vector<DeviceEntry>& database,
                            const DeviceEntry*& entry)
{
    ClassifyReport report;
    const trace::DeviceProperties* device = t.meta.devices.empty() ? nullptr : &t.meta.devices[0];
    GpuChoice choice = resolveGpu(database, device, options.gpu);
    if (!choice.error.empty())
        throw std::invalid_argument(choice.error);
    entry = choice.entry;
    report.deviceName = device ? device->name : std::string();
    report.notes = std::move(choice.notes);
    if (choice.chosen)
        report.chosenGpu = options.gpu;
    else if (!device)
        report.notes.push_back("the trace has no deviceProperties: no datasheet ceilings; choose its GPU (--gpu, or Ceilings > GPU in "
                               "the app) or give measured ceilings (--ceilings)");
    if (entry) {
        report.deviceRow = entry->id;
        report.datasheet = entry->peaks;
    }
    report.ceilings = report.datasheet;
    if (options.measured) {
        if (measuredApplies(*options.measured, report.deviceName, choice.chosen ? entry : nullptr, database)) {
            report.ceilings = applyMeasured(report.datasheet, *options.measured);
            report.measured = true;
        } else {
            report.notes.push_back("measured ceilings not used: they were measured on " + options.measured->gpu + " and this trace ran on "
                                   + (report.deviceName.empty() ? "the " + report.deviceRow + " (chosen)" : report.deviceName)
                                   + (report.deviceRow.empty()
                                          ? "; with no datasheet row for it either, nothing is graded (give this GPU's with --ceilings)"
                                          : "; the datasheet's are used instead"));
        }
    }
    return report;
}

// A name as an annotation or --source gives it: a kernel's exact name or a region's label, or "re:REGEX"
// searched in kernel names. One rule for the annotations' work, the generated sources and the check that each
// annotation names something in the trace.
class NameTarget
{
public:
    explicit NameTarget(const std::string& target)
    {
        if (target.starts_with("re:"))
            m_pattern.emplace(target.substr(3)); // checked when the file or the option was read
    }
    bool isPattern() const { return m_pattern.has_value(); }
    bool matchesPatternIn(const std::string& kernel) const { return m_pattern && std::regex_search(kernel, *m_pattern); }

private:
    std::optional<std::regex> m_pattern;
};

// Annotations with work: by kernel name (exact first, then regular expressions in file order) and by region.
class AnnotationIndex
{
public:
    explicit AnnotationIndex(const std::vector<Annotation>& annotations)
    {
        for (const Annotation& a : annotations) {
            if (!a.flops && !a.bytes)
                continue; // a source-only entry
            if (!a.region.empty())
                m_regions.emplace(a.region, &a);
            else if (NameTarget target(a.kernel); target.isPattern())
                m_patterns.emplace_back(std::move(target), &a);
            else
                m_exact.emplace(a.kernel, &a);
        }
    }
    const Annotation* kernel(const std::string& name) const
    {
        if (const auto it = m_exact.find(name); it != m_exact.end())
            return it->second;
        for (const auto& [target, a] : m_patterns)
            if (target.matchesPatternIn(name))
                return a;
        return nullptr;
    }
    const Annotation* region(const std::string& name) const
    {
        const auto it = m_regions.find(name);
        return it == m_regions.end() ? nullptr : it->second;
    }

private:
    std::vector<std::pair<NameTarget, const Annotation*>> m_patterns;
    std::unordered_map<std::string, const Annotation*> m_exact, m_regions;
};

// Generated sources: the command line's, then the annotations'; exact names first, then patterns.
class SourceIndex
{
public:
    explicit SourceIndex(const ClassifyOptions& options)
    {
        for (const SourceAttachment& s : options.sources)
            m_sources.emplace_back(s.target, &s.inspection);
        for (const Annotation& a : options.annotations)
            if (a.source)
                m_sources.emplace_back(a.region.empty() ? a.kernel : a.region, &*a.source);
        for (const auto& [name, inspection] : m_sources)
            if (NameTarget target(name); target.isPattern())
                m_patterns.emplace_back(std::move(target), inspection);
    }
    std::optional<SourceEvidence> find(const std::string& name, bool region) const
    {
        for (const auto& [target, inspection] : m_sources)
            if (target == name)
                return sourceEvidenceFor(*inspection, region ? std::string_view() : std::string_view(name));
        if (!region)
            for (const auto& [target, inspection] : m_patterns)
                if (target.matchesPatternIn(name))
                    return sourceEvidenceFor(*inspection, name);
        return std::nullopt;
    }

private:
    std::vector<std::pair<std::string, const SourceInspection*>> m_sources;
    std::vector<std::pair<NameTarget, const SourceInspection*>> m_patterns;
};

// Aggregation, kernels: the work of every GPU activity, summed per kernel (or memcpy/memset) name.
struct KernelAggregates
{
    // By event, GPU activities only (a map: a per-event array cost ~250 bytes for every event of the trace,
    // 700 MB on a 1 GB trace): each activity's work, and the NCCL kernels' collectives.
    std::unordered_map<uint32_t, Work> work;
    std::unordered_map<uint32_t, Collective> collective;
    std::map<std::string, Aggregate> perKernel;
    std::vector<std::string> order; // names in first-seen order
};

// An op's work goes to its longest kernel; its other activities carry zero.
KernelAggregates aggregateKernels(const trace::Trace& t, const WorkEstimator& estimator, const AnnotationIndex& annotations)
{
    KernelAggregates out;
    const std::vector<Charge> charge = estimator.chargeKernels();
    std::unordered_map<uint32_t, uint32_t> dominant; // charged op -> its longest kernel
    for (uint32_t i = 0; i < t.events.size(); ++i)
        if (const uint32_t op = charge[i].op; op != kNoIndex) {
            auto [it, inserted] = dominant.try_emplace(op, i);
            if (!inserted && t.events[i].duration > t.events[it->second].duration)
                it->second = i;
        }
    auto aggregateOf = [&](const std::string& name) -> Aggregate& {
        auto [it, inserted] = out.perKernel.try_emplace(name);
        if (inserted)
            out.order.push_back(name);
        return it->second;
    };
    for (uint32_t i = 0; i < t.events.size(); ++i) {
        const Event& e = t.events[i];
        if (!trace::isGpuActivity(e.kind))
            continue;
        const std::string name(t.strings.view(e.name));
        Work& w = out.work[i];
        if (std::optional<Collective> c; e.kind == EventKind::Kernel && (c = collectiveOf(t, i))) {
            Aggregate& agg = aggregateOf(name);
            ++agg.calls;
            agg.ns += double(e.duration);
            agg.addCommunication(out.collective.emplace(i, std::move(*c)).first->second, double(e.duration));
            continue;
        }
        if (const Annotation* a = annotations.kernel(name)) {
            w.level = 'C';
            w.flops = a->flops.value_or(0);
            w.bytes = a->bytes.value_or(0);
            w.roof = a->roof;
            w.basis = "annotations file entry '" + (a->kernel.empty() ? a->region : a->kernel) + "' (per call)";
        } else if (e.kind == EventKind::GpuMemcpy || e.kind == EventKind::GpuMemset) {
            if (const auto bytes = t.transferBytesOf(i)) {
                w.level = 'B';
                const bool host = namesHostMemory(name);
                w.hostLink = e.kind == EventKind::GpuMemcpy && host;
                w.bytes = e.kind == EventKind::GpuMemcpy && !host ? 2 * *bytes : *bytes; // DtoD reads and writes
                w.basis = std::string("the activity's bytes arg") + (e.kind == EventKind::GpuMemcpy && !host ? ", read and written" : "");
            }
        } else if (const uint32_t op = charge[i].op; op != kNoIndex) {
            if (dominant[op] == i) {
                w = estimator.opWork(op);
                if (op != t.opOf(i))
                    w.basis += "; charged to the enclosing op, its launching op " + std::string(t.strings.view(t.events[t.opOf(i)].name))
                        + " has no formula";
            } else {
                w.level = 'B'; // counted on the op's dominant kernel
            }
        } else {
            w.basis = charge[i].reason;
        }
        Aggregate& agg = aggregateOf(name);
        ++agg.calls;
        agg.ns += double(e.duration);
        agg.levels.insert(w.level);
        if (!w.basis.empty())
            (w.level == 'D' ? agg.unknownReasons : agg.bases).insert(w.basis);
        if (w.level != 'D') {
            ++agg.known;
            agg.flops += w.flops;
            agg.bytes += w.bytes;
            if (!w.roof.empty())
                agg.roofFlops[w.roof] += w.flops;
            agg.hostLink = agg.hostLink || w.hostLink;
            if (w.level == 'C') {
                agg.declaredRoof = w.roof;
                agg.assumedRoof = w.roof.empty();
                if (w.roof.empty())
                    agg.roofFlops["fp32"] += w.flops;
            }
            if (w.level == 'B' && w.flops == 0 && w.bytes == 0 && t.opOf(i) != kNoIndex)
                agg.dominantRuleUsed = true;
        }
    }
    return out;
}

// What the verdicts rest on besides the aggregates.
struct GradingContext
{
    const ClassifyReport& report;
    bool hopper;
};

// Verdict, kernels: graded against the ceilings, then the name hint and the generated source as corroboration.
Classification kernelVerdict(const std::string& name, const Aggregate& agg, const std::optional<SourceEvidence>& source,
                             const GradingContext& g)
{
    Classification c;
    c.name = name;
    if (agg.commNs > 0) {
        c.calls = agg.calls;
        c.totalUs = agg.ns / 1000.0;
        gradeCommunication(c, agg);
        return c;
    }
    const bool partial = agg.known > 0 && agg.known < agg.calls;
    grade(c, agg, g.report.ceilings, g.report.datasheet, g.report.measured, partial);
    if (agg.dominantRuleUsed && agg.flops == 0 && agg.bytes == 0) {
        c.cls = RooflineClass::Inconclusive;
        c.strength = "provisional";
        c.evidence = {"its op's work is counted on the op's longest kernel (dominant-kernel rule)"};
    }
    if (const std::string hint = kernelHint(name); !hint.empty()) {
        c.evidence.push_back("name hint " + hint + hintAgreement(c, hint) + " (corroboration only)");
        if (hint.find("suggests tensor-core code") != std::string::npos)
            c.tensorCoreEvidence = "kernel name";
    }
    if (source)
        corroborate(c, *source, g.hopper);
    return c;
}

// Aggregation, regions: a region's activities and their work.
struct RegionAggregate
{
    Aggregate agg;
    double busy = 0;                        // GPU time of its activities
    std::map<std::string, double> kernelNs; // by activity name
    std::map<std::string, uint64_t> kernelCalls;
    std::set<std::string> kernelNames; // kind Kernel only: "a region holding only that kernel"
    bool partial = false;              // some of its activities have no estimate
};

// Its activities on the same stream, work from the region's annotation entry (`entry`) or the sum of the
// activities (roofline.md §6.5). Time is the span, gaps included.
RegionAggregate aggregateRegion(const trace::Trace& t, const std::vector<uint32_t>& spans, const KernelAggregates& kernels,
                                const std::unordered_map<std::string, std::string>& kernelSourceRoof, const Annotation* entry)
{
    RegionAggregate r;
    Aggregate& agg = r.agg;
    // A call's time is the envelope of its spans (one per stream it launched on, all with its External id).
    // A span without an External id is a call of its own.
    std::vector<std::pair<int64_t, int64_t>> calls;
    std::map<int64_t, size_t> callOfId;
    double unknownBusy = 0;
    std::map<std::string, double> precisionFlops, precisionNs; // the precisions its activities are known to use
    for (const uint32_t s : spans) {
        const Event& span = t.events[s];
        const auto [call, inserted] = span.externalId == trace::kNoId ? std::pair{callOfId.end(), true}
                                                                      : callOfId.try_emplace(span.externalId, calls.size());
        if (inserted)
            calls.emplace_back(span.start, span.end());
        else
            calls[call->second] = {std::min(calls[call->second].first, span.start), std::max(calls[call->second].second, span.end())};
        forEachActivityInSpan(t, s, [&](uint32_t index) {
            const Event& a = t.events[index];
            const std::string activity(t.strings.view(a.name));
            r.busy += double(a.duration);
            r.kernelNs[activity] += double(a.duration);
            ++r.kernelCalls[activity];
            if (a.kind == EventKind::Kernel)
                r.kernelNames.insert(activity);
            if (const auto c = kernels.collective.find(index); c != kernels.collective.end()) {
                agg.addCommunication(c->second, double(a.duration));
                return;
            }
            static const Work unknown; // not a GPU activity: no work (the map holds every activity)
            const auto found = kernels.work.find(index);
            const Work& w = found == kernels.work.end() ? unknown : found->second;
            // Its precision: the op's dtype or the declared roof, else what the kernel's generated source shows.
            std::string precision = w.roof;
            if (precision.empty())
                if (const auto src = kernelSourceRoof.find(activity); src != kernelSourceRoof.end())
                    precision = src->second;
            if (!precision.empty()) {
                precisionFlops[precision] += w.flops;
                precisionNs[precision] += double(a.duration);
            }
            if (w.level == 'D') {
                unknownBusy += double(a.duration);
                return;
            }
            agg.flops += w.flops;
            agg.bytes += w.bytes;
            agg.levels.insert(w.level);
            if (!w.basis.empty())
                agg.bases.insert(w.basis);
            if (!precision.empty())
                agg.roofFlops[precision] += w.flops;
            else if (w.level == 'C')
                agg.roofFlops["fp32"] += w.flops, agg.assumedRoof = true;
        });
    }
    agg.calls = calls.size();
    for (const auto& [start, end] : calls)
        agg.ns += double(end - start);
    // The tensor (or FP64) precision most of its known work uses, by FLOPs, else by time: the roof for work whose
    // own precision is unknown (a region entry without "roof", a custom kernel without one).
    std::string knownPrecision;
    for (const auto* weights : {&precisionFlops, &precisionNs}) {
        double most = 0;
        for (const auto& [p, v] : *weights)
            if (v > most && (isTensorRoof(p) || p == "fp64"))
                most = v, knownPrecision = p;
        if (!knownPrecision.empty())
            break;
    }
    agg.fallbackTensorRoof = isTensorRoof(knownPrecision) ? knownPrecision : std::string();
    if (entry) {
        agg.flops = entry->flops.value_or(0) * double(agg.calls);
        agg.bytes = entry->bytes.value_or(0) * double(agg.calls);
        agg.levels = {'C'};
        agg.declaredRoof = entry->roof;
        agg.assumedRoof = entry->roof.empty() && knownPrecision.empty();
        agg.roofFlops = {{agg.assumedRoof ? std::string("fp32") : knownPrecision, agg.flops}};
        if (entry->roof.empty() && !knownPrecision.empty())
            agg.roofOrigin = "the " + knownPrecision
                + " roof comes from the region's kernels (their ops' input types or generated sources)";
        agg.known = 1;
    } else {
        agg.known = agg.levels.empty() ? 0 : 1;
        r.partial = unknownBusy > 0;
        if (r.busy > 0 && unknownBusy > 0.1 * r.busy)
            agg.known = 0; // too much of its GPU time has no estimate
    }
    return r;
}

// Verdict, regions: graded like a kernel (or as communication when NCCL fills it), with its busy share and
// its activities listed.
Classification regionVerdict(const std::string& name, const RegionAggregate& r, bool declared, const std::optional<SourceEvidence>& source,
                             const GradingContext& g)
{
    const Aggregate& agg = r.agg;
    std::string topKernel;
    double topKernelNs = 0;
    for (const auto& [k, ns] : r.kernelNs)
        if (ns > topKernelNs) {
            topKernelNs = ns;
            topKernel = k;
        }
    Classification c;
    c.name = name;
    // A span the GPU mostly idles in is slow for that reason, whatever its kernels reach: that, not a kernel's
    // reasons (launch overhead, tails, a small grid), if it grades latency-bound.
    const double busyShare = agg.ns > 0 ? r.busy / agg.ns : 0;
    const std::string idleReason = "the GPU is idle " + pct(1 - busyShare)
        + " of the span, between its activities; classify its kernels for their own bound";
    const bool communicationOnly = agg.commNs > 0 && agg.levels.empty() && agg.commNs >= 0.9 * r.busy && !declared;
    if (communicationOnly) {
        c.calls = agg.calls;
        c.totalUs = agg.ns / 1000.0;
        gradeCommunication(c, agg);
    } else {
        grade(c, agg, g.report.ceilings, g.report.datasheet, g.report.measured, r.partial,
              busyShare < 0.5 ? std::string_view(idleReason) : kKernelLatencyReason);
        if (agg.commNs > 0)
            c.evidence.push_back(pct(r.busy > 0 ? agg.commNs / r.busy : 0)
                                 + " of its GPU busy time is NCCL communication, which is not in "
                                   "the roofline figures");
    }
    c.calls = agg.calls;
    c.evidence.push_back("GPU busy " + pct(busyShare) + " of its span (" + std::to_string(r.kernelNs.size()) + " distinct activities"
                         + (topKernel.empty() ? "" : ", mostly " + topKernel) + ")");
    c.evidence.push_back("a span holds only the GPU work launched by the annotating thread");
    if (source)
        corroborate(c, *source, g.hopper);
    for (const auto& [k, ns] : r.kernelNs) {
        RegionKernel rk;
        rk.name = k;
        rk.calls = r.kernelCalls.at(k);
        rk.totalUs = ns / 1000.0;
        rk.share = r.busy > 0 ? ns / r.busy : 0;
        c.kernels.push_back(std::move(rk));
    }
    std::stable_sort(c.kernels.begin(), c.kernels.end(), [](const auto& x, const auto& y) { return x.totalUs > y.totalUs; });
    return c;
}

} // namespace

ClassifyReport classify(const trace::Trace& t, const ClassifyOptions& options)
{
    const auto database = options.database.empty() ? builtinDeviceDatabase() : options.database;
    const DeviceEntry* entry = nullptr;
    ClassifyReport report = deviceReport(t, options, database, entry);
    const AnnotationIndex annotations(options.annotations);
    const SourceIndex sources(options);
    const bool hopper = entry && entry->computeCapability.starts_with("9.");
    const GradingContext grading{report, hopper};

    const WorkEstimator estimator(t, options.allowTf32);
    KernelAggregates kernels = aggregateKernels(t, estimator, annotations);
    // The roof a kernel's generated source implies; regions use it for that kernel's work of unknown precision.
    std::unordered_map<std::string, std::optional<SourceEvidence>> kernelSource;
    std::unordered_map<std::string, std::string> kernelSourceRoof;
    for (const std::string& name : kernels.order) {
        Aggregate& agg = kernels.perKernel[name];
        const auto& source = kernelSource[name] = sources.find(name, false);
        applySourceRoof(agg, source ? &*source : nullptr);
        if (!agg.sourceRoof.empty())
            kernelSourceRoof[name] = agg.sourceRoof;
        report.kernels.push_back(kernelVerdict(name, agg, source, grading));
    }
    std::stable_sort(report.kernels.begin(), report.kernels.end(), [](const auto& a, const auto& b) { return a.totalUs > b.totalUs; });

    const auto spansByRegion = regionSpans(t);
    for (size_t i = 0; i < options.annotations.size(); ++i) {
        const Annotation& a = options.annotations[i];
        bool matched = false;
        if (!a.region.empty()) {
            matched = std::any_of(spansByRegion.begin(), spansByRegion.end(), [&](const auto& r) { return r.first == a.region; });
        } else if (const NameTarget target(a.kernel); target.isPattern()) {
            matched = std::any_of(kernels.order.begin(), kernels.order.end(),
                                  [&](const std::string& k) { return target.matchesPatternIn(k); });
        } else {
            matched = kernels.perKernel.count(a.kernel) > 0;
        }
        if (!matched)
            report.unmatchedAnnotations.push_back("annotation " + std::to_string(i) + " (" + (a.region.empty() ? "kernel" : "region") + " '"
                                                  + (a.region.empty() ? a.kernel : a.region) + "') names no "
                                                  + (a.region.empty() ? "kernel" : "region") + " of this trace: it is not used");
    }
    for (const auto& [name, spans] : spansByRegion) {
        const Annotation* entry = annotations.region(name);
        RegionAggregate region = aggregateRegion(t, spans, kernels, kernelSourceRoof, entry);
        // A region's own source, else the source of the one kernel it holds.
        auto source = sources.find(name, true);
        if (!source && region.kernelNames.size() == 1)
            if (const auto k = kernelSource.find(*region.kernelNames.begin()); k != kernelSource.end())
                source = k->second;
        applySourceRoof(region.agg, source ? &*source : nullptr);
        report.regions.push_back(regionVerdict(name, region, entry != nullptr, source, grading));
    }
    // A chosen GPU is the user's word, not the trace's: kernels far faster than its peaks say it is the wrong one.
    if (!report.chosenGpu.empty()) {
        size_t over = 0;
        std::string example;
        for (const Classification& k : report.kernels) {
            const double peak = roofRate(report.ceilings, k.roof);
            if (peak > 0 && k.achievedFlopsPerS > 1.1 * peak && ++over == 1)
                example = k.name + " at " + stats::formatFixed(100.0 * k.achievedFlopsPerS / peak, 0) + "% of its " + k.roof + " roof";
        }
        if (over > 0)
            report.notes.push_back(std::to_string(over) + (over == 1 ? " kernel runs" : " kernels run")
                                   + " well above the chosen GPU's peaks (" + example + "): did the trace run on the " + report.deviceRow
                                   + "?");
    }
    return report;
}

} // namespace tilescope::roofline
