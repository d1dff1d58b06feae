// SPDX-License-Identifier: MIT
#include "report/diffreport.h"

#include "io/codepoints.h"
#include "io/decimal.h"
#include "io/smalljson.h"
#include "report/overlapreport.h"
#include "report/summaryreport.h"
#include "trace/namefit.h"
#include "trace/rankset.h"
#include "stats/torchtable.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace tilescope::report {

std::string signedTime(double us) { return (us > 0 ? "+" : us < 0 ? "-" : "") + stats::formatTorchTime(std::abs(us)); }

std::string totalChange(double beforeUs, double afterUs)
{
    return stats::formatTorchTime(beforeUs) + " before, " + stats::formatTorchTime(afterUs) + " after (" + signedTime(afterUs - beforeUs)
        + ")";
}

std::string diffTotalsText(const stats::KeyAveragesDiff& diff)
{
    std::string out = "Self CPU time total:  " + totalChange(diff.before.selfCpuTimeTotal, diff.after.selfCpuTimeTotal) + "\n";
    if (diff.before.useDevice || diff.after.useDevice)
        out += "Self CUDA time total: " + totalChange(diff.before.selfDeviceTimeTotal, diff.after.selfDeviceTimeTotal) + "\n";
    return out;
}

namespace {

std::string deviceName(stats::DeviceType type) { return type == stats::DeviceType::CPU ? "CPU" : "CUDA"; }

io::Json sideRow(const std::optional<stats::KeyAverage>& row, bool groupedByInputShape)
{
    return row ? summaryRowJson(*row, groupedByInputShape) : io::Json(nullptr);
}

std::string optionalTime(const std::optional<stats::KeyAverage>& row)
{
    return row ? stats::formatTorchTime(row->selfDeviceTimeTotal) : std::string("-");
}

// The diff's name cells: each key fitted to the width as the GUI's tables fit names (trace::fitNamesApart, in
// characters); keys that would read alike (HTA's trace_diff pair has kernels that differ in a template argument
// at character 110) are told apart, so that one does not read as the other added and removed.
std::vector<std::string> diffNames(const stats::KeyAveragesDiff& diff, int nameWidth)
{
    std::vector<std::string> keys;
    for (const stats::KeyAverageDiffRow& r : diff.rows)
        keys.push_back(r.key);
    if (nameWidth <= 0)
        return keys;
    return trace::fitNamesApart(keys, nameWidth, trace::CharacterRuler());
}

std::string optionalCount(const std::optional<stats::KeyAverage>& row)
{
    return row ? stats::formatCount(static_cast<uint64_t>(row->count)) : std::string("-");
}

// The names of the GPUs a trace ran on, sorted: those with activity on their streams (Kineto lists every
// visible GPU in deviceProperties), or every listed one where none can be told; "" when none is named.
std::string gpuNames(const trace::Trace& t)
{
    std::set<int64_t> active;
    for (const trace::Track& track : t.tracks)
        if (track.type == trace::Track::Type::GpuStream && !track.events.empty() && track.device >= 0)
            active.insert(track.device);
    std::set<std::string> names, all;
    for (const trace::DeviceProperties& d : t.meta.devices) {
        if (d.name.empty())
            continue;
        all.insert(d.name);
        if (active.contains(d.id))
            names.insert(d.name);
    }
    std::string out;
    for (const std::string& n : names.empty() ? all : names)
        out += (out.empty() ? "" : ", ") + n;
    return out;
}

std::string rankText(const trace::DistributedInfo& d)
{
    std::string out = d.rank ? "rank " + std::to_string(*d.rank) : std::string("a run");
    if (d.worldSize)
        out += " of " + std::to_string(*d.worldSize);
    return out;
}

} // namespace

std::vector<std::string> diffSetupNotes(const trace::Trace& before, const trace::Trace& after)
{
    std::vector<std::string> notes;
    const std::string beforeGpus = gpuNames(before), afterGpus = gpuNames(after);
    if (!beforeGpus.empty() && !afterGpus.empty() && beforeGpus != afterGpus)
        notes.push_back("before ran on " + beforeGpus + ", after on " + afterGpus
                        + ": libraries pick kernels per GPU, so rows added and removed may be the hardware's change, not the code's");
    const trace::DistributedInfo b = trace::distributedInfoOf(before), a = trace::distributedInfoOf(after);
    const auto distributed = [](const trace::DistributedInfo& d) { return d.worldSize && *d.worldSize > 1; };
    if (b.worldSize && a.worldSize && *b.worldSize != *a.worldSize)
        notes.push_back("before is " + rankText(b) + ", after " + rankText(a)
                        + ": runs of different sizes split the work differently (collectives and per-rank shares change)");
    else if (distributed(b) != distributed(a) && !(b.worldSize && a.worldSize))
        notes.push_back((distributed(b) ? "before is " + rankText(b) + ", after no distributed run's"
                                        : "before is no distributed run's, after " + rankText(a))
                        + ": one rank's share of a run against a whole run (collectives and per-rank shares change)");
    return notes;
}

std::string diffJson(const DiffSide& before, const DiffSide& after, const stats::KeyAveragesDiff& diff)
{
    io::Json j;
    j["before"] = before.path;
    j["after"] = after.path;
    j["setup_differences"] = before.trace && after.trace ? diffSetupNotes(*before.trace, *after.trace) : std::vector<std::string>();
    io::Json& rows = j["rows"] = io::Json::array();
    for (const stats::KeyAverageDiffRow& r : diff.rows)
        rows.push_back({{"key", r.key},
                        {"device_type", deviceName(r.deviceType)},
                        {"input_shapes", diff.groupedByInputShape ? io::Json(r.inputShapes) : io::Json(nullptr)},
                        {"before", sideRow(r.before, diff.groupedByInputShape)},
                        {"after", sideRow(r.after, diff.groupedByInputShape)},
                        {"delta_count", r.deltaCount},
                        {"delta_self_cpu_time_total_us", io::jsonNumber(r.deltaSelfCpuTimeTotal)},
                        {"delta_self_device_time_total_us", io::jsonNumber(r.deltaSelfDeviceTimeTotal)},
                        {"delta_device_time_total_us", io::jsonNumber(r.deltaDeviceTimeTotal)}});
    const auto totals = [](const stats::KeyAveragesTotals& t) {
        return io::Json{{"self_cpu_time_total_us", io::jsonNumber(t.selfCpuTimeTotal)},
                        {"self_device_time_total_us", io::jsonNumber(t.selfDeviceTimeTotal)}};
    };
    j["totals"] = {{"before", totals(diff.before)}, {"after", totals(diff.after)}};
    j["overlap"] = {{"before", overlapJsonObject(*before.trace, *before.overlap)},
                    {"after", overlapJsonObject(*after.trace, *after.overlap)}};
    return io::dumpJson(j) + "\n";
}

std::string diffText(const DiffSide& before, const DiffSide& after, const stats::KeyAveragesDiff& diff, int nameWidth)
{
    const std::vector<std::string> header{"Name",
                                          "Device",
                                          "Count before",
                                          "Count after",
                                          "Self device before",
                                          "Self device after",
                                          "Self device delta",
                                          "Device total delta",
                                          "Self CPU delta",
                                          "Change"};
    std::vector<std::vector<std::string>> cells;
    size_t counts[5] = {};
    const std::vector<std::string> names = diffNames(diff, nameWidth);
    for (size_t i = 0; i < diff.rows.size(); ++i) {
        const stats::KeyAverageDiffRow& r = diff.rows[i];
        const stats::DiffChange change = r.change();
        ++counts[static_cast<size_t>(change)];
        std::string name = names[i];
        if (diff.groupedByInputShape)
            name += " " + r.inputShapes;
        cells.push_back({name, deviceName(r.deviceType), optionalCount(r.before), optionalCount(r.after), optionalTime(r.before),
                         optionalTime(r.after), signedTime(r.deltaSelfDeviceTimeTotal), signedTime(r.deltaDeviceTimeTotal),
                         signedTime(r.deltaSelfCpuTimeTotal), stats::diffChangeName(change)});
    }
    std::vector<size_t> widths;
    for (const std::string& h : header)
        widths.push_back(io::codePointCount(h));
    for (const auto& row : cells)
        for (size_t c = 0; c < row.size(); ++c)
            widths[c] = std::max(widths[c], io::codePointCount(row[c]));
    // The name left-aligned, the numbers right-aligned, as torch's table.
    auto line = [&](const std::vector<std::string>& row) {
        std::string out;
        for (size_t c = 0; c < row.size(); ++c) {
            const std::string pad(widths[c] - io::codePointCount(row[c]), ' ');
            if (c + 1 == row.size())
                out += row[c] + "\n";
            else
                out += (c == 0 ? row[c] + pad : pad + row[c]) + "  ";
        }
        return out;
    };
    std::string out = "before: " + before.path + "\nafter:  " + after.path + "\n";
    if (before.trace && after.trace)
        for (const std::string& note : diffSetupNotes(*before.trace, *after.trace))
            out += "note: " + note + "\n";
    out += "grouped by " + std::string(diff.groupedByInputShape ? "key and input shapes" : "key") + "; "
        + stats::formatCount(diff.rows.size()) + " rows: " + stats::formatCount(counts[0]) + " added, " + stats::formatCount(counts[1])
        + " removed, " + stats::formatCount(counts[2]) + " increased, " + stats::formatCount(counts[3]) + " decreased, "
        + stats::formatCount(counts[4]) + " unchanged (by device time total, else self CPU time, else count)\n";
    // summary's footers of each side, first: whether the whole got faster before which rows did.
    out += diffTotalsText(diff);
    out += "\n";
    out += line(header);
    for (const auto& row : cells)
        out += line(row);
    return out;
}

std::string diffCsv(const stats::KeyAveragesDiff& diff, const std::vector<size_t>& rows)
{
    std::string out = "key,input_shapes,device_type,is_user_annotation,change,count_before,count_after,delta_count,"
                      "self_cpu_time_total_us_before,self_cpu_time_total_us_after,delta_self_cpu_time_total_us,"
                      "self_device_time_total_us_before,self_device_time_total_us_after,delta_self_device_time_total_us,"
                      "device_time_total_us_before,device_time_total_us_after,delta_device_time_total_us\n";
    const auto side = [](const std::optional<stats::KeyAverage>& row, auto field) { return row ? field(*row) : std::string(); };
    const auto count = [](const stats::KeyAverage& r) { return std::to_string(r.count); };
    const auto selfCpu = [](const stats::KeyAverage& r) { return io::formatShortest(r.selfCpuTimeTotal); };
    const auto selfDevice = [](const stats::KeyAverage& r) { return io::formatShortest(r.selfDeviceTimeTotal); };
    const auto device = [](const stats::KeyAverage& r) { return io::formatShortest(r.deviceTimeTotal); };
    for (const size_t index : rows) {
        const stats::KeyAverageDiffRow& r = diff.rows.at(index);
        out += csvField(r.key) + ',' + csvField(r.inputShapes) + ',' + deviceName(r.deviceType) + ','
            + (r.isUserAnnotation ? "true" : "false") + ',' + stats::diffChangeName(r.change()) + ',' + side(r.before, count) + ','
            + side(r.after, count) + ',' + std::to_string(r.deltaCount) + ',' + side(r.before, selfCpu) + ',' + side(r.after, selfCpu) + ','
            + io::formatShortest(r.deltaSelfCpuTimeTotal) + ',' + side(r.before, selfDevice) + ',' + side(r.after, selfDevice) + ','
            + io::formatShortest(r.deltaSelfDeviceTimeTotal) + ',' + side(r.before, device) + ',' + side(r.after, device) + ','
            + io::formatShortest(r.deltaDeviceTimeTotal) + '\n';
    }
    return out;
}

} // namespace tilescope::report
