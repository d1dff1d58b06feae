// SPDX-License-Identifier: MIT
#include "findings/findingsreport.h"

#include "io/decimal.h"
#include "io/smalljson.h"
#include "trace/namefit.h"
#include "trace/trace.h"

namespace tilescope::findings {

namespace {
// The widest event name a line of the findings' text shows whole (the JSON keeps every name whole).
constexpr size_t kTextNameWidth = 120;
} // namespace

std::string findingsJson(const trace::Trace& t, const std::vector<Finding>& list)
{
    io::Json j;
    io::Json& out = j["findings"] = io::Json::array();
    for (const findings::Finding& f : list) {
        io::Json where = io::Json::array();
        for (const findings::Where& w : f.where)
            where.push_back({{"start_us", io::jsonMicroseconds(w.start)},
                             {"end_us", io::jsonMicroseconds(w.end)},
                             {"event", w.event < t.events.size() ? io::Json(std::string(t.name(t.events[w.event]))) : io::Json(nullptr)}});
        out.push_back({{"id", f.id},
                       {"title", f.title},
                       {"strength", std::string(findings::strengthName(f.strength))},
                       {"evidence", f.evidence},
                       {"columns", f.columns},
                       {"next_step", f.nextStep},
                       {"where", std::move(where)},
                       {"impact_us", io::jsonMicroseconds(f.impactNs)}});
    }
    return io::dumpJson(j, 2) + "\n";
}

std::string findingsText(const trace::Trace& t, const std::vector<Finding>& list)
{
    if (list.empty())
        return "no findings: no rule found its problem in this trace\n";
    // A demangled kernel name can run to thousands of characters: in the text, the events' long names are
    // shortened wherever they appear (trace::shortenedName); the JSON keeps them whole.
    trace::NameShortener names(kTextNameWidth);
    std::vector<bool> seen(t.strings.size(), false);
    for (const trace::Event& e : t.events)
        if (e.name < seen.size() && !seen[e.name]) {
            seen[e.name] = true;
            names.add(t.strings.view(e.name));
        }
    const auto shorten = [&](const std::string& text) { return names.apply(text); };
    std::string out;
    for (const findings::Finding& f : list) {
        out += "[" + std::string(findings::strengthName(f.strength)) + "] " + f.id + ": " + shorten(f.title) + "\n";
        for (const std::string& e : f.evidence)
            out += "  - " + shorten(e) + "\n";
        out += "  next step: " + f.nextStep + "\n";
        std::string columns;
        for (const std::string& c : f.columns)
            columns += (columns.empty() ? "" : "; ") + c;
        out += "  columns: " + columns + "\n";
        for (const findings::Where& w : f.where) {
            out += "  where: ts " + io::formatNanosecondsAsMicroseconds(w.start) + " .. " + io::formatNanosecondsAsMicroseconds(w.end)
                + " us";
            if (w.event < t.events.size())
                out += "  " + shorten(std::string(t.name(t.events[w.event])));
            out += "\n";
        }
        out += "\n";
    }
    return out;
}

} // namespace tilescope::findings
