// SPDX-License-Identifier: MIT
#include "report/verdicttext.h"

#include "stats/torchtable.h"
#include "trace/namefit.h"

#include <algorithm>
#include <vector>

namespace tilescope::report {

using roofline::RooflineClass;

namespace {
// The widest kernel or region name a line of the text shows whole.
constexpr size_t kTextNameWidth = 120;
constexpr size_t kCardNameWidth = 80; // the GUI's roofline card, a dock a few hundred pixels wide
} // namespace

std::string_view classColour(RooflineClass cls)
{
    switch (cls) {
    case RooflineClass::TensorCoreBound: return "#28a046";
    case RooflineClass::CudaCoreBound: return "#e68c14";
    case RooflineClass::IoBound: return "#286ed2";
    case RooflineClass::LatencyBound: return "#c83232";
    case RooflineClass::Communication: return "#8c50b4";
    case RooflineClass::Inconclusive: break;
    }
    return "#8c8c8c";
}

Verdict verdictOf(const roofline::Classification& c)
{
    Verdict v;
    v.className = roofline::className(c.cls);
    v.colour = classColour(c.cls);
    v.strength = c.strength;
    v.name = c.name;
    v.calls = c.calls;
    v.total = stats::formatTorchTime(c.totalUs);
    v.workSource = roofline::workSourceText(c);
    v.bullets = c.evidence;
    if (c.source) {
        Verdict::Source s;
        s.path = c.source->path;
        s.kernel = c.source->kernel;
        s.conclusion = c.source->summary.conclusion;
        s.contradicts = c.sourceContradicts;
        for (const auto& f : c.source->summary.features) {
            Verdict::Feature feature{f.name, f.meaning, {}, f.callSites};
            for (const int line : f.lines)
                feature.lines += (feature.lines.empty() ? "" : ", ") + std::to_string(line);
            s.features.push_back(std::move(feature));
        }
        v.source = std::move(s);
        v.caveats = c.source->caveats;
    }
    for (const auto& k : c.kernels)
        v.kernels.push_back({k.calls, stats::formatTorchTime(k.totalUs), stats::formatFixed(100 * k.share, 1) + "%", k.name});
    return v;
}

namespace {
// Demangled names run to thousands of characters: the verdict's own and its kernels', to shorten in a text.
trace::NameShortener namesOf(const Verdict& v, size_t width)
{
    trace::NameShortener names(width);
    names.add(v.name);
    for (const auto& k : v.kernels)
        names.add(k.name);
    return names;
}
} // namespace

trace::NameShortener textNames(const std::vector<Verdict>& verdicts)
{
    trace::NameShortener names(kTextNameWidth);
    for (const Verdict& v : verdicts) {
        names.add(v.name);
        for (const auto& k : v.kernels)
            names.add(k.name);
    }
    return names;
}

namespace {
// "1 call", "3 calls".
std::string callsText(uint64_t calls) { return std::to_string(calls) + (calls == 1 ? " call" : " calls"); }
} // namespace

std::string toText(const Verdict& v, const trace::NameShortener* shared)
{
    const trace::NameShortener own = shared ? trace::NameShortener(0) : namesOf(v, kTextNameWidth); // the JSON keeps them whole
    const trace::NameShortener& names = shared ? *shared : own;
    std::string out = "  " + names.apply(v.name) + "  [" + callsText(v.calls) + ", " + v.total + "]  " + v.className + " (" + v.strength
        + "; " + v.workSource + ")\n";
    for (const auto& b : v.bullets)
        out += "      " + names.apply(b) + "\n";
    for (const auto& caveat : v.caveats)
        out += "      source caveat: " + caveat + "\n";
    if (!v.kernels.empty())
        out += "      kernels (calls, total, share of GPU busy):\n";
    for (const auto& k : v.kernels)
        out += "        " + std::to_string(k.calls) + "  " + k.total + "  " + k.share + "  " + names.apply(k.name) + "\n";
    return out;
}

std::string toHtml(const Verdict& v)
{
    // Shortened as in the text, so that the evidence is not pushed out of a small card; the full names end it.
    const trace::NameShortener names = namesOf(v, kCardNameWidth);
    const std::string shownName = names.apply(v.name);
    std::string html = "<b style='color:" + v.colour + "'>" + htmlEscaped(v.className) + "</b> (" + htmlEscaped(v.strength) + ") - "
        + htmlEscaped(shownName) + "<br>" + callsText(v.calls) + ", " + htmlEscaped(v.total) + " total; " + htmlEscaped(v.workSource);
    html += "<ul>";
    for (const auto& b : v.bullets)
        html += "<li>" + htmlEscaped(names.apply(b)) + "</li>";
    html += "</ul>";
    if (v.source) {
        const auto& s = *v.source;
        html += "<b>Generated source</b> " + htmlEscaped(s.path) + (s.kernel.empty() ? "" : " (kernel " + htmlEscaped(s.kernel) + ")")
            + "<br>" + htmlEscaped(s.conclusion);
        if (s.contradicts)
            html += "<br><b style='color:#c83232'>The verdict and the source disagree (see the evidence).</b>";
        html += "<table cellspacing='4'><tr><th align='left'>feature</th><th>call sites</th><th align='left'>lines</th></tr>";
        for (const auto& f : s.features)
            html += "<tr><td title='" + htmlEscaped(f.meaning) + "'>" + htmlEscaped(f.name) + "</td><td align='right'>"
                + std::to_string(f.callSites) + "</td><td>" + htmlEscaped(f.lines) + "</td></tr>";
        html += "</table>";
    }
    for (const auto& caveat : v.caveats)
        html += "<i>" + htmlEscaped(caveat) + "</i><br>";
    if (!v.kernels.empty()) {
        html += "<b>Kernels in this region</b><table cellspacing='4'><tr><th>calls</th><th>total</th><th>share of GPU busy</th>"
                "<th align='left'>kernel</th></tr>";
        for (const auto& k : v.kernels)
            html += "<tr><td align='right'>" + std::to_string(k.calls) + "</td><td align='right'>" + htmlEscaped(k.total)
                + "</td><td align='right'>" + htmlEscaped(k.share) + "</td><td>" + htmlEscaped(names.apply(k.name)) + "</td></tr>";
        html += "</table>";
    }
    std::vector<std::string> shortened; // the full forms of the names shown shortened, the verdict's first
    if (shownName != v.name)
        shortened.push_back(v.name);
    for (const auto& k : v.kernels)
        if (names.apply(k.name) != k.name && std::find(shortened.begin(), shortened.end(), k.name) == shortened.end())
            shortened.push_back(k.name);
    if (!shortened.empty()) {
        html += std::string("<p style='color:gray'>") + (shortened.size() == 1 ? "Full name: " : "Full names:");
        for (const std::string& name : shortened)
            html += (shortened.size() == 1 ? "" : "<br>") + htmlEscaped(name);
        html += "</p>";
    }
    return html;
}

std::string htmlEscaped(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        default: out += c;
        }
    }
    return out;
}

} // namespace tilescope::report
