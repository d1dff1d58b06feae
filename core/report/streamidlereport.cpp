// SPDX-License-Identifier: MIT
#include "report/streamidlereport.h"

#include "io/smalljson.h"
#include "report/texttable.h"
#include "stats/timetext.h"

#include <array>

namespace tilescope::report {

namespace {

double shareOf(int64_t part, int64_t whole) { return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0; }

io::Json selectionJson(const std::optional<analysis::Interval>& selection)
{
    if (!selection)
        return nullptr;
    io::Json out = io::Json::object();
    out["start_us"] = io::jsonMicroseconds(selection->start);
    out["end_us"] = io::jsonMicroseconds(selection->end);
    return out;
}

} // namespace

std::string streamIdleJson(const analysis::StreamIdleReport& r)
{
    io::Json out = io::Json::object();
    out["selection"] = selectionJson(r.selection);
    out["kernel_wait_threshold_us"] = io::jsonMicroseconds(r.kernelWaitThresholdNs);
    io::Json streams = io::Json::array();
    for (const analysis::StreamIdle& s : r.streams) {
        io::Json row = io::Json::object();
        row["device"] = s.device;
        row["stream"] = s.stream;
        row["window_start_us"] = io::jsonMicroseconds(s.window.start);
        row["window_end_us"] = io::jsonMicroseconds(s.window.end);
        row["busy_us"] = io::jsonMicroseconds(s.busyNs);
        row["idle_us"] = io::jsonMicroseconds(s.idleNs);
        row["idle_share"] = shareOf(s.idleNs, s.window.end - s.window.start);
        row["host_wait_us"] = io::jsonMicroseconds(s.hostWaitNs);
        row["kernel_wait_us"] = io::jsonMicroseconds(s.kernelWaitNs);
        row["other_us"] = io::jsonMicroseconds(s.otherNs);
        row["host_wait_share"] = shareOf(s.hostWaitNs, s.idleNs);
        row["kernel_wait_share"] = shareOf(s.kernelWaitNs, s.idleNs);
        row["other_share"] = shareOf(s.otherNs, s.idleNs);
        io::Json gaps = io::Json::object();
        gaps["host_wait"] = s.hostWaitGaps;
        gaps["kernel_wait"] = s.kernelWaitGaps;
        gaps["other"] = s.otherGaps;
        row["gaps"] = std::move(gaps);
        streams.push_back(std::move(row));
    }
    out["streams"] = std::move(streams);
    return io::dumpJson(out) + "\n";
}

std::string streamIdleText(const analysis::StreamIdleReport& r, const std::string& untimed)
{
    std::string out = r.selection ? "window: ts " + stats::formatMicroseconds(r.selection->start) + " .. "
            + stats::formatMicroseconds(r.selection->end) + " us, cut to each stream's first to last activity\n"
                                  : std::string("window: each stream's first activity start to its last activity end\n");
    if (r.streams.empty())
        return out
            + (untimed.empty() ? "no GPU activity (no kernel, memcpy or memset)" + std::string(r.selection ? " in the window\n" : "\n")
                               : "no timed GPU activity: " + untimed + "\n");
    out += "idle per stream: host wait (next launch came after the stream ran dry), kernel wait (queued, gap < "
        + stats::formatDuration(r.kernelWaitThresholdNs) + "), other; shares of the idle time:\n";
    std::vector<std::array<std::string, 9>> rows{
        {"stream", "window", "idle", "of window", "host wait", "kernel wait", "other", "gaps", "longest part"}};
    for (const analysis::StreamIdle& s : r.streams) {
        const int64_t windowNs = s.window.end - s.window.start;
        const auto part = [&](int64_t ns) { return stats::formatDuration(ns) + " (" + percentText(shareOf(ns, s.idleNs)) + ")"; };
        const char* longest = s.idleNs == 0                               ? "-"
            : s.hostWaitNs >= s.kernelWaitNs && s.hostWaitNs >= s.otherNs ? "host wait"
            : s.kernelWaitNs >= s.otherNs                                 ? "kernel wait"
                                                                          : "other";
        rows.push_back({"GPU " + std::to_string(s.device) + " stream " + std::to_string(s.stream), stats::formatDuration(windowNs),
                        stats::formatDuration(s.idleNs), percentText(shareOf(s.idleNs, windowNs)), part(s.hostWaitNs), part(s.kernelWaitNs),
                        part(s.otherNs), std::to_string(s.hostWaitGaps + s.kernelWaitGaps + s.otherGaps), longest});
    }
    return out + renderTable(rows);
}

} // namespace tilescope::report
