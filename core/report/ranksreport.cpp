// SPDX-License-Identifier: MIT
#include "report/ranksreport.h"

#include "io/smalljson.h"
#include "report/texttable.h"
#include "stats/timetext.h"
#include "stats/torchtable.h"

#include <algorithm>
#include <array>

namespace tilescope::report {

std::string ranksJson(const analysis::RanksReport& r)
{
    io::Json out = io::Json::object();
    out["world_size"] = r.worldSize;
    io::Json ranks = io::Json::array();
    for (size_t i = 0; i < r.ranks.size(); ++i) {
        const analysis::RankFigures& f = r.ranks[i];
        const analysis::StragglerEvidence& e = r.verdict.evidence[i];
        io::Json row = io::Json::object();
        row["rank"] = f.rank;
        row["file"] = f.file;
        row["steps"] = f.steps;
        row["step_us_median"] = io::jsonMicroseconds(f.stepMedianNs);
        row["gpu_busy_us"] = io::jsonMicroseconds(f.gpuBusyNs);
        row["compute_us_per_step"] = io::jsonMicroseconds(f.computeNsPerStep);
        row["collective_wait_us_per_step"] = io::jsonMicroseconds(f.collectiveNsPerStep);
        row["collective_wait_us_median"] = io::jsonMicroseconds(f.collectiveMedianNs);
        row["collective_source"] = std::string(analysis::collectiveSourceText(f.collectiveSource));
        row["comm_comp_overlap"] = f.commCompOverlap;
        row["wait_vs_others"] = r.verdict.applicable ? io::jsonNumber(e.waitRatio) : io::Json(nullptr);
        row["straggler"] = e.straggler;
        ranks.push_back(std::move(row));
    }
    out["ranks"] = std::move(ranks);
    out["stragglers"] = r.verdict.stragglers;
    out["rule"] = r.verdict.rule;
    return io::dumpJson(out) + "\n";
}

std::string ranksText(const analysis::RanksReport& r)
{
    std::string out = "world size " + std::to_string(r.worldSize) + ", " + std::to_string(r.ranks.size()) + " rank"
        + (r.ranks.size() == 1 ? "" : "s") + " loaded\n";
    std::vector<std::array<std::string, 10>> rows{{"rank", "steps", "step (median)", "GPU busy (all steps)", "compute/step",
                                                   "collectives/step", "coll. median", "comm∩comp", "vs others", "straggler"}};
    for (size_t i = 0; i < r.ranks.size(); ++i) {
        const analysis::RankFigures& f = r.ranks[i];
        const analysis::StragglerEvidence& e = r.verdict.evidence[i];
        rows.push_back({std::to_string(f.rank), std::to_string(f.steps) + (f.hasSteps ? "" : " (whole)"),
                        stats::formatDuration(f.stepMedianNs), stats::formatDuration(f.gpuBusyNs),
                        stats::formatDuration(f.computeNsPerStep), stats::formatDuration(f.collectiveNsPerStep),
                        stats::formatDuration(f.collectiveMedianNs), f.collectiveNsPerStep > 0 ? percentText(f.commCompOverlap) : "-",
                        r.verdict.applicable ? stats::formatFixed(e.waitRatio, 2) + "x" : "-", e.straggler ? "yes" : ""});
    }
    out += renderTable(rows);
    std::string sources;
    for (const analysis::RankFigures& f : r.ranks)
        if (sources.find(analysis::collectiveSourceText(f.collectiveSource)) == std::string::npos)
            sources += (sources.empty() ? "" : ", ") + std::string(analysis::collectiveSourceText(f.collectiveSource));
    out += "collectives: " + sources + "\n";
    // Two steps have no middle one: the smaller is shown, a step that happened rather than an average of two.
    if (std::any_of(r.ranks.begin(), r.ranks.end(), [](const analysis::RankFigures& f) { return f.steps > 0 && f.steps % 2 == 0; }))
        out += "medians: of an even count of steps, the lower middle one (a step that happened, not an average of two)\n";
    out += "rule: " + r.verdict.rule + "\n";
    if (!r.verdict.applicable) {
        out += "stragglers: not sought (" + std::string(r.ranks.size() < 2 ? "one rank" : "a rank has no collectives") + ")\n";
    } else if (r.verdict.stragglers.empty()) {
        out += "stragglers: none (no rank stands out)\n";
    } else {
        // "rank 2", not "2": a number alone reads as a count.
        const size_t n = r.verdict.stragglers.size();
        out += n == 1 ? "straggler: rank" : "stragglers: ranks";
        for (size_t k = 0; k < n; ++k)
            out += (k == 0 ? " " : k + 1 == n ? " and " : ", ") + std::to_string(r.verdict.stragglers[k]);
        out += n == 1 ? " (the others wait for it inside the collectives)\n" : " (the others wait for them inside the collectives)\n";
    }
    return out;
}

} // namespace tilescope::report
