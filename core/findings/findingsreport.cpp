// SPDX-License-Identifier: MIT
#include "findings/findingsreport.h"

#include "io/decimal.h"
#include "io/smalljson.h"
#include "trace/trace.h"

namespace tilescope::findings {

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
    std::string out;
    for (const findings::Finding& f : list) {
        out += "[" + std::string(findings::strengthName(f.strength)) + "] " + f.id + ": " + f.title + "\n";
        for (const std::string& e : f.evidence)
            out += "  - " + e + "\n";
        out += "  next step: " + f.nextStep + "\n";
        std::string columns;
        for (const std::string& c : f.columns)
            columns += (columns.empty() ? "" : "; ") + c;
        out += "  columns: " + columns + "\n";
        for (const findings::Where& w : f.where) {
            out += "  where: ts " + io::formatNanosecondsAsMicroseconds(w.start) + " .. " + io::formatNanosecondsAsMicroseconds(w.end)
                + " us";
            if (w.event < t.events.size())
                out += "  " + std::string(t.name(t.events[w.event]));
            out += "\n";
        }
        out += "\n";
    }
    return out;
}

} // namespace tilescope::findings
