// SPDX-License-Identifier: MIT
#include "report/breakdownreport.h"

#include "io/smalljson.h"
#include "report/texttable.h"
#include "stats/timetext.h"
#include "stats/torchtable.h"

#include <algorithm>
#include <array>

namespace tilescope::report {

std::string breakdownJson(const analysis::BreakdownReport& r)
{
    io::Json out = io::Json::object();
    out["window_start_us"] = io::jsonMicroseconds(r.window.start);
    out["window_end_us"] = io::jsonMicroseconds(r.window.end);
    io::Json devices = io::Json::array();
    for (const analysis::DeviceBreakdown& d : r.devices) {
        io::Json row = io::Json::object();
        row["device"] = d.device;
        row["compute_us"] = io::jsonMicroseconds(d.computeNs);
        row["non_compute_us"] = io::jsonMicroseconds(d.nonComputeNs);
        row["idle_us"] = io::jsonMicroseconds(d.idleNs);
        row["compute_share"] = d.computeShare;
        row["non_compute_share"] = d.nonComputeShare;
        row["idle_share"] = d.idleShare;
        io::Json kinds = io::Json::object();
        kinds["computation_us"] = io::jsonMicroseconds(d.kinds.computationNs);
        kinds["communication_us"] = io::jsonMicroseconds(d.kinds.communicationNs);
        kinds["memory_us"] = io::jsonMicroseconds(d.kinds.memoryNs);
        kinds["computation_communication_overlap_us"] = io::jsonMicroseconds(d.kinds.computationCommunicationNs);
        kinds["computation_memory_overlap_us"] = io::jsonMicroseconds(d.kinds.computationMemoryNs);
        kinds["communication_memory_overlap_us"] = io::jsonMicroseconds(d.kinds.communicationMemoryNs);
        kinds["communication_overlapped_share"] = d.kinds.communicationOverlappedShare;
        row["kinds"] = std::move(kinds);
        devices.push_back(std::move(row));
    }
    out["devices"] = std::move(devices);
    return io::dumpJson(out) + "\n";
}

std::string breakdownText(const analysis::BreakdownReport& r, const std::string& untimed)
{
    const int64_t windowNs = r.window.end - r.window.start;
    std::string out = "window: ts " + stats::formatMicroseconds(r.window.start) + " .. " + stats::formatMicroseconds(r.window.end) + " us ("
        + stats::formatDuration(windowNs) + ")\n";
    if (r.devices.empty())
        return out + (untimed.empty() ? "no GPU activity (no kernel, memcpy or memset)\n" : "no timed GPU activity: " + untimed + "\n");

    out += "temporal breakdown (compute kernels; memcpy, memset and communication not under compute; idle):\n";
    std::vector<std::array<std::string, 7>> parts{{"device", "compute", "share", "non-compute", "share", "idle", "share"}};
    for (const analysis::DeviceBreakdown& d : r.devices)
        parts.push_back({"GPU " + std::to_string(d.device), stats::formatDuration(d.computeNs), percentText(d.computeShare),
                         stats::formatDuration(d.nonComputeNs), percentText(d.nonComputeShare), stats::formatDuration(d.idleNs),
                         percentText(d.idleShare)});
    out += renderTable(parts);

    out += "kernel types (each a union; overlaps are the time both ran):\n";
    std::vector<std::array<std::string, 8>> kinds{
        {"device", "computation", "communication", "memory", "comp∩comm", "comp∩mem", "comm∩mem", "comm overlapped"}};
    for (const analysis::DeviceBreakdown& d : r.devices) {
        const analysis::KernelTypeTimes& k = d.kinds;
        kinds.push_back({"GPU " + std::to_string(d.device), stats::formatDuration(k.computationNs),
                         stats::formatDuration(k.communicationNs), stats::formatDuration(k.memoryNs),
                         stats::formatDuration(k.computationCommunicationNs), stats::formatDuration(k.computationMemoryNs),
                         stats::formatDuration(k.communicationMemoryNs),
                         k.communicationNs > 0 ? percentText(k.communicationOverlappedShare) : "-"});
    }
    out += renderTable(kinds);
    return out;
}

} // namespace tilescope::report
