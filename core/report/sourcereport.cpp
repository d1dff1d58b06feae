// SPDX-License-Identifier: MIT
#include "report/sourcereport.h"

#include "report/jsonwriter.h"

#include <algorithm>
#include <sstream>

namespace tilescope::report {

namespace {

void writeFeatures(JsonWriter& w, const roofline::SourceSummary& s)
{
    w.key("features").beginArray();
    for (const auto& f : s.features) {
        w.beginObject();
        w.key("name").value(f.name);
        w.key("meaning").value(f.meaning);
        w.key("call_sites").value(f.callSites);
        w.key("lines").beginArray();
        for (const int l : f.lines)
            w.value(l);
        w.endArray();
        w.endObject();
    }
    w.endArray();
    w.key("tensor_core").value(roofline::tensorCorePathName(s.tensorCore));
    w.key("mma_precision").value(s.mmaPrecision);
    w.key("data_movement").beginArray();
    for (const auto& m : s.dataMovement)
        w.value(m);
    w.endArray();
    w.key("conclusion").value(s.conclusion);
}

void writeStrings(JsonWriter& w, const char* key, const std::vector<std::string>& list)
{
    w.key(key).beginArray();
    for (const auto& s : list)
        w.value(s);
    w.endArray();
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
        out << indent << f.name << std::string(width - f.name.size() + 1, ' ') << calls << std::string(calls.size() < 7 ? 7 - calls.size() : 1, ' ')
            << lines << std::string(lines.size() < 15 ? 15 - lines.size() : 1, ' ') << f.meaning << "\n";
    }
    out << indent << s.conclusion << "\n";
}

} // namespace

std::string sourceInspectionJson(const roofline::SourceInspection& r)
{
    JsonWriter w;
    w.beginObject();
    w.key("path").value(r.path);
    writeFeatures(w, r.file);
    w.key("kernels").beginArray();
    for (const auto& k : r.kernels) {
        w.beginObject();
        w.key("name").value(k.name);
        w.key("line").value(k.line);
        writeFeatures(w, k.summary);
        w.endObject();
    }
    w.endArray();
    writeStrings(w, "includes", r.includes);
    writeStrings(w, "caveats", r.caveats);
    w.endObject();
    return w.text() + "\n";
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

void writeSourceEvidence(JsonWriter& w, const roofline::SourceEvidence& e)
{
    w.beginObject();
    w.key("path").value(e.path);
    w.key("kernel").value(e.kernel);
    writeFeatures(w, e.summary);
    writeStrings(w, "caveats", e.caveats);
    w.endObject();
}

} // namespace tilescope::report
