// SPDX-License-Identifier: MIT
#include "report/comparereport.h"

#include "io/smalljson.h"
#include "stats/timetext.h"
#include "stats/torchtable.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace tilescope::report {

namespace {

io::Json sideJson(const compare::Side& s)
{
    io::Json j = {{"name", s.name},
                  {"calls", s.calls},
                  {"gpu_us_per_call",
                   {{"mean", io::jsonNumber(s.gpuUsPerCall.mean)},
                    {"median", io::jsonNumber(s.gpuUsPerCall.median)},
                    {"min", io::jsonNumber(s.gpuUsPerCall.min)},
                    {"max", io::jsonNumber(s.gpuUsPerCall.max)}}},
                  {"achieved_flops_per_s", io::jsonNumber(s.achievedFlopsPerS)},
                  {"achieved_bytes_per_s", io::jsonNumber(s.achievedBytesPerS)},
                  {"class", s.classified ? io::Json(std::string(roofline::className(s.cls))) : io::Json()},
                  {"strength", s.classified ? io::Json(s.strength) : io::Json()}};
    j["kind"] = std::string(compare::sideKindName(s.kind));
    j["total_gpu_us"] = io::jsonNumber(s.totalGpuUs);
    j["total_span_us"] = io::jsonNumber(s.totalSpanUs);
    j["roof"] = s.roof.empty() ? io::Json() : io::Json(s.roof);
    j["roof_share"] = io::jsonNumber(s.roofShare);
    io::Json& kernels = j["kernels"] = io::Json::array();
    for (const auto& k : s.kernels)
        kernels.push_back(
            {{"name", k.name}, {"calls", k.calls}, {"total_us", io::jsonNumber(k.totalUs)}, {"share_of_busy", io::jsonNumber(k.share)}});
    io::Json& calls = j["call_ranges"] = io::Json::array();
    for (const auto& c : s.callList)
        calls.push_back({{"start_us", io::jsonMicroseconds(c.startNs)},
                         {"end_us", io::jsonMicroseconds(c.endNs)},
                         {"gpu_us", io::jsonMicroseconds(c.gpuNs)}});
    return j;
}

std::string duration(double us) { return stats::formatDuration(std::llround(us * 1000.0)); }

std::string rate(double v, const char* unit) { return stats::formatRate(v, unit); }

std::string padded(std::string text, size_t width)
{
    if (text.size() < width)
        text.append(width - text.size(), ' ');
    return text;
}

} // namespace

std::string compareJson(const compare::Comparison& c)
{
    io::Json j = {{"a", sideJson(c.a)}, {"b", sideJson(c.b)}, {"ratio_b_over_a", io::jsonNumber(c.ratioBOverA)}, {"verdict", c.verdict}};
    return io::dumpJson(j) + "\n";
}

std::vector<CompareRow> compareRows(const compare::Comparison& c)
{
    std::vector<CompareRow> rows;
    const auto row = [&](std::string label, std::string a, std::string b) {
        rows.push_back({std::move(label), std::move(a), std::move(b)});
    };
    const auto classText = [](const compare::Side& s) {
        return s.classified ? std::string(roofline::className(s.cls)) + " (" + s.strength + ")" : std::string("not classified");
    };
    const auto roofText = [](const compare::Side& s) {
        return s.roofShare ? stats::formatFixed(100 * *s.roofShare, 1) + "% of " + s.roof : std::string("-");
    };
    const auto achieved = [](const std::optional<double>& v, const char* unit) { return v ? rate(*v, unit) : std::string("-"); };
    row("kind", std::string(compare::sideKindName(c.a.kind)), std::string(compare::sideKindName(c.b.kind)));
    row("calls", std::to_string(c.a.calls), std::to_string(c.b.calls));
    row("GPU time per call, mean", duration(c.a.gpuUsPerCall.mean), duration(c.b.gpuUsPerCall.mean));
    row("GPU time per call, median", duration(c.a.gpuUsPerCall.median), duration(c.b.gpuUsPerCall.median));
    row("GPU time per call, min", duration(c.a.gpuUsPerCall.min), duration(c.b.gpuUsPerCall.min));
    row("GPU time per call, max", duration(c.a.gpuUsPerCall.max), duration(c.b.gpuUsPerCall.max));
    row("GPU time total", duration(c.a.totalGpuUs), duration(c.b.totalGpuUs));
    // The roofline's rates divide by the span, idle gaps included (a region's GPU time is less): both shown.
    const auto spanPerCall = [](const compare::Side& s) {
        return s.calls > 0 ? duration(s.totalSpanUs / double(s.calls)) : std::string("-");
    };
    const auto gpuTimeOverSpan = [](const compare::Side& s) {
        return s.totalSpanUs > 0 ? stats::formatFixed(100 * s.totalGpuUs / s.totalSpanUs, 1) + "%" : std::string("-");
    };
    row("GPU span per call, mean", spanPerCall(c.a), spanPerCall(c.b));
    row("GPU time / span", gpuTimeOverSpan(c.a), gpuTimeOverSpan(c.b)); // over 100% where streams ran at once
    row("achieved FLOP/s per span", achieved(c.a.achievedFlopsPerS, "FLOP/s"), achieved(c.b.achievedFlopsPerS, "FLOP/s"));
    row("achieved bytes/s per span", achieved(c.a.achievedBytesPerS, "B/s"), achieved(c.b.achievedBytesPerS, "B/s"));
    row("class", classText(c.a), classText(c.b));
    row("roof share", roofText(c.a), roofText(c.b));
    return rows;
}

std::vector<std::string> compareLines(const compare::Comparison& c)
{
    std::vector<std::string> lines{c.verdict,
                                   "a: " + c.a.name + " (" + std::string(compare::sideKindName(c.a.kind)) + "), b: " + c.b.name + " ("
                                       + std::string(compare::sideKindName(c.b.kind)) + ")"};
    for (const CompareRow& r : compareRows(c))
        if (r.label != "kind")
            lines.push_back(r.label + ": " + r.a + " (a), " + r.b + " (b)");
    lines.push_back("ratio b/a (b's mean GPU time per call / a's): "
                    + (c.ratioBOverA ? stats::formatFixed(*c.ratioBOverA, 3) : std::string("-")));
    return lines;
}

std::string compareText(const compare::Comparison& c)
{
    constexpr size_t kLabel = 26, kLeastColumn = 28, kLongestHeading = 48;
    const std::vector<CompareRow> rows = compareRows(c);
    // a's column is as wide as its widest figure, and its name where that is short; a long name (a kernel's
    // signature) goes on a line of its own, so the columns never run together.
    const std::string aHeading = c.a.name + " (a)";
    const bool namesInHeading = aHeading.size() <= kLongestHeading;
    size_t column = std::max(kLeastColumn, namesInHeading ? aHeading.size() + 2 : 0);
    for (const CompareRow& r : rows)
        column = std::max(column, r.a.size() + 2);
    std::ostringstream out;
    const auto row = [&](const std::string& label, const std::string& a, const std::string& b) {
        out << "  " << padded(label, kLabel) << padded(a, column) << b << "\n";
    };
    if (namesInHeading) {
        row("", aHeading, c.b.name + " (b)");
    } else {
        out << "  a: " << c.a.name << "\n  b: " << c.b.name << "\n";
        row("", "a", "b");
    }
    for (const CompareRow& r : rows)
        row(r.label, r.a, r.b);
    out << "  ratio b/a (mean GPU time per call): " << (c.ratioBOverA ? stats::formatFixed(*c.ratioBOverA, 3) : std::string("-")) << "\n";
    for (const compare::Side* s : {&c.a, &c.b}) {
        if (s->kernels.empty())
            continue;
        out << "\nkernels in " << s->name << ":\n";
        for (const auto& k : s->kernels)
            out << "  " << padded(std::to_string(k.calls) + (k.calls == 1 ? " call" : " calls"), 12) << padded(duration(k.totalUs), 14)
                << padded(stats::formatFixed(100 * k.share, 1) + "%", 8) << k.name << "\n";
    }
    out << "\n" << c.verdict << "\n";
    return out.str();
}

} // namespace tilescope::report
