// SPDX-License-Identifier: MIT
#include "report/queuereport.h"

#include "io/decimal.h"
#include "io/smalljson.h"
#include "report/texttable.h"
#include "stats/timetext.h"

#include <array>

namespace tilescope::report {

namespace {

double shareOf(int64_t part, int64_t whole) { return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0; }

std::string streamLabel(const analysis::StreamQueue& q)
{
    return "GPU " + std::to_string(q.device) + " stream " + std::to_string(q.stream);
}

} // namespace

std::string queueJson(const analysis::QueueReport& r, QueueReportOptions options)
{
    io::Json out = io::Json::object();
    if (r.selection) {
        io::Json selection = io::Json::object();
        selection["start_us"] = io::jsonMicroseconds(r.selection->start);
        selection["end_us"] = io::jsonMicroseconds(r.selection->end);
        out["selection"] = std::move(selection);
    } else {
        out["selection"] = nullptr;
    }
    out["limit"] = r.limit;
    out["activities_without_launch"] = r.activitiesWithoutLaunch;
    io::Json streams = io::Json::array();
    for (const analysis::StreamQueue& q : r.streams) {
        const int64_t windowNs = q.window.end - q.window.start;
        io::Json row = io::Json::object();
        row["device"] = q.device;
        row["stream"] = q.stream;
        row["operations"] = q.operations;
        row["window_start_us"] = io::jsonMicroseconds(q.window.start);
        row["window_end_us"] = io::jsonMicroseconds(q.window.end);
        row["max"] = q.maxLength;
        row["mean"] = io::jsonNumber(q.meanLength);
        row["median"] = q.medianLength;
        row["p95"] = q.p95Length;
        row["full_us"] = io::jsonMicroseconds(q.fullNs);
        row["blocked_us"] = io::jsonMicroseconds(q.blockedNs);
        io::Json levels = io::Json::array();
        for (const auto& [length, ns] : q.timeAtLength) {
            io::Json level = io::Json::object();
            level["length"] = length;
            level["us"] = io::jsonMicroseconds(ns);
            level["share"] = io::jsonNumber(shareOf(ns, windowNs));
            levels.push_back(std::move(level));
        }
        row["time_at_length"] = std::move(levels);
        if (options.series) {
            io::Json series = io::Json::array();
            for (const analysis::QueueStep& s : q.series)
                series.push_back(io::Json::array({io::jsonMicroseconds(s.time), s.length}));
            row["series"] = std::move(series);
        }
        streams.push_back(std::move(row));
    }
    out["streams"] = std::move(streams);
    return io::dumpJson(out) + "\n";
}

std::string queueText(const analysis::QueueReport& r, QueueReportOptions options)
{
    std::string out = r.selection ? "window: ts " + stats::formatMicroseconds(r.selection->start) + " .. "
            + stats::formatMicroseconds(r.selection->end) + " us, cut to each stream's first to last queue change\n"
                                  : std::string("window: each stream's first launch to its last operation's start\n");
    if (r.streams.empty())
        return out + "no launch linked to a kernel, memcpy or memset" + (r.selection ? " in the window\n" : "\n");
    out += "launch queue per stream (launched, not yet started; time-weighted), full at " + std::to_string(r.limit)
        + " pending operations:\n";
    std::vector<std::array<std::string, 9>> rows{
        {"stream", "operations", "max", "mean", "median", "p95", "time full", "CPU blocked", "window"}};
    for (const analysis::StreamQueue& q : r.streams)
        rows.push_back({streamLabel(q), std::to_string(q.operations), std::to_string(q.maxLength), stats::formatFixed(q.meanLength, 2),
                        std::to_string(q.medianLength), std::to_string(q.p95Length), stats::formatDuration(q.fullNs),
                        stats::formatDuration(q.blockedNs), stats::formatDuration(q.window.end - q.window.start)});
    out += renderTable(rows);
    if (r.activitiesWithoutLaunch > 0)
        out += std::to_string(r.activitiesWithoutLaunch) + " GPU activities have no recorded launch and are not counted\n";
    if (options.series)
        for (const analysis::StreamQueue& q : r.streams) {
            out += "\n" + streamLabel(q) + " (ts_us length):\n";
            for (const analysis::QueueStep& s : q.series)
                out += io::formatNanosecondsAsMicroseconds(s.time) + " " + std::to_string(s.length) + "\n";
        }
    return out;
}

} // namespace tilescope::report
