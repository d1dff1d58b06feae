// SPDX-License-Identifier: MIT
#include "report/classifyreport.h"

#include "report/sourcereport.h"
#include "report/verdicttext.h"

#include <sstream>
#include <tuple>

namespace tilescope::report {

namespace {

io::Json classificationJson(const roofline::Classification& c, bool region)
{
    io::Json j = {{"name", c.name},
                  {"calls", c.calls},
                  {"total_us", io::jsonNumber(c.totalUs)},
                  {"flops", io::jsonNumber(c.flops)},
                  {"bytes", io::jsonNumber(c.bytes)},
                  {"achieved_flops_per_s", io::jsonNumber(c.achievedFlopsPerS)},
                  {"achieved_bytes_per_s", io::jsonNumber(c.achievedBytesPerS)}};
    if (c.busBytesPerS)
        j["bus_bytes_per_s"] = io::jsonNumber(*c.busBytesPerS);
    j["class"] = std::string(roofline::className(c.cls));
    j["strength"] = c.strength;
    j["roof"] = c.roof;
    j["evidence_level"] = c.evidenceLevel;
    j["evidence"] = c.evidence;
    j["tensor_core_evidence"] = c.tensorCoreEvidence;
    if (c.source) {
        j["source"] = sourceEvidenceJson(*c.source);
        j["source_contradicts"] = c.sourceContradicts;
    }
    if (region) {
        io::Json& kernels = j["kernels"] = io::Json::array();
        for (const auto& k : c.kernels)
            kernels.push_back({{"name", k.name},
                               {"calls", k.calls},
                               {"total_us", io::jsonNumber(k.totalUs)},
                               {"share_of_busy", io::jsonNumber(k.share)}});
    }
    return j;
}

} // namespace

std::string classifyJson(const roofline::ClassifyReport& r)
{
    io::Json j;
    j["device"] = {{"name", r.deviceName}, {"datasheet_row", r.deviceRow}, {"notes", r.notes}};
    // The row's GPU as the user named it, when the trace did not (null when the trace's own GPU chose the row).
    j["device"]["chosen_gpu"] = r.chosenGpu.empty() ? io::Json() : io::Json(r.chosenGpu);
    j["unmatched_annotations"] = r.unmatchedAnnotations;
    io::Json& ceilings = j["ceilings"] = io::Json::object();
    ceilings["source"] = r.measured ? "measured where given, else datasheet" : "datasheet";
    ceilings["memory_bytes_per_s"] = io::jsonNumber(r.ceilings.memoryBytesPerS);
    for (const auto& [k, v] : {std::pair{"fp64", r.ceilings.fp64},
                               {"fp32", r.ceilings.fp32},
                               {"tf32", r.ceilings.tf32},
                               {"bf16", r.ceilings.bf16},
                               {"fp16", r.ceilings.fp16},
                               {"fp8", r.ceilings.fp8},
                               {"int8", r.ceilings.int8}})
        ceilings[std::string(k) + "_flops_per_s"] = io::jsonNumber(v);
    io::Json& kernels = j["kernels"] = io::Json::array();
    for (const auto& c : r.kernels)
        kernels.push_back(classificationJson(c, false));
    io::Json& regions = j["regions"] = io::Json::array();
    for (const auto& c : r.regions)
        regions.push_back(classificationJson(c, true));
    return io::dumpJson(j) + "\n";
}

std::string classifyText(const roofline::ClassifyReport& r)
{
    std::ostringstream out;
    out << "device: " << roofline::deviceText(r) << "\n";
    for (const auto& n : r.notes)
        out << "  " << n << "\n";
    for (const auto& a : r.unmatchedAnnotations)
        out << "  " << a << "\n";
    // Kernels then regions in one list, their names told apart across the whole listing.
    std::vector<Verdict> all;
    all.reserve(r.kernels.size() + r.regions.size());
    for (const auto* list : {&r.kernels, &r.regions})
        for (const auto& c : *list)
            all.push_back(verdictOf(c));
    const trace::NameShortener names = textNames(all);
    const auto regionsStart = all.begin() + std::ptrdiff_t(r.kernels.size());
    for (const auto& [title, from, to] :
         {std::tuple{"kernels", all.begin(), regionsStart}, std::tuple{"regions", regionsStart, all.end()}}) {
        out << "\n" << title << ":\n";
        for (auto v = from; v != to; ++v)
            out << toText(*v, &names);
    }
    return out.str();
}

} // namespace tilescope::report
