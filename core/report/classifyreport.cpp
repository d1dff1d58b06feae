// SPDX-License-Identifier: MIT
#include "report/classifyreport.h"

#include "report/jsonwriter.h"
#include "report/sourcereport.h"
#include "report/verdicttext.h"

#include <sstream>

namespace tilescope::report {

namespace {

void writeClassification(JsonWriter& w, const roofline::Classification& c, bool region)
{
    w.beginObject();
    w.key("name").value(c.name);
    w.key("calls").value(c.calls);
    w.key("total_us").value(c.totalUs);
    w.key("flops");
    c.flops ? w.value(*c.flops) : w.null();
    w.key("bytes");
    c.bytes ? w.value(*c.bytes) : w.null();
    w.key("achieved_flops_per_s").value(c.achievedFlopsPerS);
    w.key("achieved_bytes_per_s").value(c.achievedBytesPerS);
    if (c.busBytesPerS)
        w.key("bus_bytes_per_s").value(*c.busBytesPerS);
    w.key("class").value(roofline::className(c.cls));
    w.key("strength").value(c.strength);
    w.key("roof").value(c.roof);
    w.key("evidence_level").value(c.evidenceLevel);
    w.key("evidence").beginArray();
    for (const auto& e : c.evidence)
        w.value(e);
    w.endArray();
    w.key("tensor_core_evidence").value(c.tensorCoreEvidence);
    if (c.source) {
        w.key("source");
        writeSourceEvidence(w, *c.source);
        w.key("source_contradicts").value(c.sourceContradicts);
    }
    if (region) {
        w.key("kernels").beginArray();
        for (const auto& k : c.kernels) {
            w.beginObject();
            w.key("name").value(k.name);
            w.key("calls").value(k.calls);
            w.key("total_us").value(k.totalUs);
            w.key("share_of_busy").value(k.share);
            w.endObject();
        }
        w.endArray();
    }
    w.endObject();
}

} // namespace

std::string classifyJson(const roofline::ClassifyReport& r)
{
    JsonWriter w;
    w.beginObject();
    w.key("device").beginObject();
    w.key("name").value(r.deviceName);
    w.key("datasheet_row").value(r.deviceRow);
    w.key("notes").beginArray();
    for (const auto& n : r.notes)
        w.value(n);
    w.endArray();
    w.endObject();
    w.key("ceilings").beginObject();
    w.key("source").value(r.measured ? "measured where given, else datasheet" : "datasheet");
    w.key("memory_bytes_per_s").value(r.ceilings.memoryBytesPerS);
    for (const auto& [k, v] : {std::pair{"fp64", r.ceilings.fp64}, {"fp32", r.ceilings.fp32}, {"tf32", r.ceilings.tf32}, {"bf16", r.ceilings.bf16},
                               {"fp16", r.ceilings.fp16}, {"fp8", r.ceilings.fp8}, {"int8", r.ceilings.int8}})
        w.key(std::string(k) + "_flops_per_s").value(v);
    w.endObject();
    w.key("kernels").beginArray();
    for (const auto& c : r.kernels)
        writeClassification(w, c, false);
    w.endArray();
    w.key("regions").beginArray();
    for (const auto& c : r.regions)
        writeClassification(w, c, true);
    w.endArray();
    w.endObject();
    return w.text() + "\n";
}

std::string classifyText(const roofline::ClassifyReport& r)
{
    std::ostringstream out;
    out << "device: " << (r.deviceName.empty() ? "(none)" : r.deviceName) << "\n";
    for (const auto& n : r.notes)
        out << "  " << n << "\n";
    auto print = [&out](const char* title, const std::vector<roofline::Classification>& list) {
        out << "\n" << title << ":\n";
        for (const auto& c : list)
            out << toText(verdictOf(c));
    };
    print("kernels", r.kernels);
    print("regions", r.regions);
    return out.str();
}

} // namespace tilescope::report
