// SPDX-License-Identifier: MIT
#include "report/stepsreport.h"

#include "io/codepoints.h"
#include "io/smalljson.h"
#include "stats/timetext.h"
#include "stats/torchtable.h"

#include <algorithm>
#include <array>

namespace tilescope::report {

std::string stepsJson(const trace::Trace& t, const analysis::StepTable& table)
{
    io::Json out = io::Json::object();
    out["source"] = table.source == analysis::StepSource::None ? io::Json(nullptr) : io::Json(analysis::stepSourceText(table));
    out["tied_with"] = table.tiedFamilies; // the other families repeating as often (the first to start was taken)
    io::Json steps = io::Json::array();
    for (const analysis::StepRow& s : table.steps) {
        io::Json row = io::Json::object();
        row["step"] = s.number;
        row["name"] = std::string(t.strings.view(s.name));
        row["start_us"] = io::jsonMicroseconds(s.start);
        row["end_us"] = io::jsonMicroseconds(s.end);
        row["duration_us"] = io::jsonMicroseconds(s.durationNs);
        row["gpu_busy_us"] = io::jsonMicroseconds(s.gpuBusyNs);
        row["gpu_utilization"] = s.gpuUtilization;
        row["kernels"] = s.kernels;
        row["cpu_busy_us"] = io::jsonMicroseconds(s.cpuBusyNs);
        steps.push_back(std::move(row));
    }
    out["steps"] = std::move(steps);
    return io::dumpJson(out) + "\n";
}

std::string stepsText(const trace::Trace& t, const analysis::StepTable& table)
{
    if (table.steps.empty())
        return std::string(kNoStepsText) + "\n";
    constexpr size_t kColumns = 8;
    const std::array<std::string, kColumns> header{"step", "name", "start (us)", "duration", "GPU busy", "GPU util", "kernels", "CPU busy"};
    std::vector<std::array<std::string, kColumns>> rows{header};
    for (const analysis::StepRow& s : table.steps)
        rows.push_back({std::to_string(s.number), std::string(t.strings.view(s.name)), stats::formatMicroseconds(s.start),
                        stats::formatDuration(s.durationNs), stats::formatDuration(s.gpuBusyNs),
                        stats::formatFixed(s.gpuUtilization * 100.0, 1) + "%", stats::formatCount(s.kernels),
                        stats::formatDuration(s.cpuBusyNs)});
    std::array<size_t, kColumns> width{};
    for (const auto& row : rows)
        for (size_t c = 0; c < kColumns; ++c)
            width[c] = std::max(width[c], io::codePointCount(row[c]));
    std::string out = "steps (" + analysis::stepSourceDescription(table) + "): " + std::to_string(table.steps.size()) + "\n";
    for (const auto& row : rows) {
        std::string line = " ";
        for (size_t c = 0; c < kColumns; ++c) {
            const std::string pad(width[c] - io::codePointCount(row[c]), ' ');
            line += " " + (c == 1 ? row[c] + pad : pad + row[c]); // the name left-aligned, numbers right
            if (c + 1 < kColumns)
                line += " ";
        }
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
        out += line + "\n";
    }
    std::string busyWithout;
    size_t count = 0;
    for (const analysis::StepRow& s : table.steps)
        if (s.kernels == 0 && s.gpuBusyNs > 0 && ++count <= 3)
            busyWithout += (busyWithout.empty() ? "" : ", ") + std::to_string(s.number);
    if (count > 0)
        out += "note: " + std::string(kStepGpuBusyText) + " (" + (count == 1 ? "step " : std::to_string(count) + " steps: ") + busyWithout
            + (count > 3 ? ", ..." : "") + ").\n";
    return out;
}

} // namespace tilescope::report
