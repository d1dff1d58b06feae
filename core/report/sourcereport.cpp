// SPDX-License-Identifier: MIT
#include "report/sourcereport.h"

#include <algorithm>
#include <sstream>

namespace tilescope::report {

namespace {

// Adds "features", "tensor_core", "mma_precision", "data_movement" and "conclusion" to `j`.
void addFeatures(io::Json& j, const roofline::SourceSummary& s)
{
    io::Json& features = j["features"] = io::Json::array();
    for (const auto& f : s.features)
        features.push_back({{"name", f.name}, {"meaning", f.meaning}, {"call_sites", f.callSites}, {"lines", f.lines}});
    j["tensor_core"] = roofline::tensorCorePathName(s.tensorCore);
    j["mma_precision"] = s.mmaPrecision;
    j["data_movement"] = s.dataMovement;
    j["conclusion"] = s.conclusion;
}

std::string linesText(const std::vector<int>& lines)
{
    std::string out;
    for (const int l : lines)
        out += (out.empty() ? "" : ", ") + std::to_string(l);
    return out;
}

void printSummary(std::ostringstream& out, const roofline::SourceSummary& s, const char* indent)
{
    size_t width = 8;
    for (const auto& f : s.features)
        width = std::max(width, f.name.size());
    if (s.features.empty())
        out << indent << "(no call site of any tensor-core or data-movement indicator)\n";
    else
        out << indent << std::string("feature") << std::string(width - 6, ' ') << "calls  lines          meaning\n";
    for (const auto& f : s.features) {
        const std::string calls = std::to_string(f.callSites), lines = linesText(f.lines);
        out << indent << f.name << std::string(width - f.name.size() + 1, ' ') << calls
            << std::string(calls.size() < 7 ? 7 - calls.size() : 1, ' ') << lines
            << std::string(lines.size() < 15 ? 15 - lines.size() : 1, ' ') << f.meaning << "\n";
    }
    out << indent << s.conclusion << "\n";
}

} // namespace

std::string sourceInspectionJson(const roofline::SourceInspection& r)
{
    io::Json j;
    j["path"] = r.path;
    addFeatures(j, r.file);
    io::Json& kernels = j["kernels"] = io::Json::array();
    for (const auto& k : r.kernels) {
        io::Json kernel = {{"name", k.name}, {"line", k.line}};
        addFeatures(kernel, k.summary);
        kernels.push_back(std::move(kernel));
    }
    j["includes"] = r.includes;
    j["caveats"] = r.caveats;
    return io::dumpJson(j) + "\n";
}

std::string sourceInspectionText(const roofline::SourceInspection& r)
{
    std::ostringstream out;
    out << "source: " << r.path << "\n";
    if (r.kernels.size() != 1) {
        out << "whole file:\n";
        printSummary(out, r.file, "  ");
    }
    for (const auto& k : r.kernels) {
        out << "kernel " << k.name << " (line " << k.line << "):\n";
        printSummary(out, k.summary, "  ");
    }
    for (const auto& c : r.caveats)
        out << "caveat: " << c << "\n";
    return out.str();
}

io::Json sourceEvidenceJson(const roofline::SourceEvidence& e)
{
    io::Json j = {{"path", e.path}, {"kernel", e.kernel}};
    addFeatures(j, e.summary);
    j["caveats"] = e.caveats;
    return j;
}

} // namespace tilescope::report
