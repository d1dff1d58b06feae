// SPDX-License-Identifier: MIT
#include "stats/torchtable.h"

#include "io/codepoints.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <vector>

namespace tilescope::stats {

namespace {

void appendCell(std::string& line, const std::string& text, size_t width)
{
    const size_t length = io::codePointCount(text);
    if (length < width)
        line.append(width - length, ' ');
    line += text;
    line += "  ";
}

} // namespace

// Correctly rounded like Python's f"{v:.{p}f}" (std::to_chars is exact, whatever the C runtime).
std::string formatFixed(double value, int precision)
{
    if (std::isnan(value))
        return "nan";
    if (std::isinf(value))
        return value > 0 ? "inf" : "-inf";
    char buffer[400];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed, precision);
    return std::string(buffer, result.ptr);
}

std::string formatRate(double v, const char* unit)
{
    if (v >= 1e12)
        return formatFixed(v / 1e12, 2) + " T" + unit;
    if (v >= 1e9)
        return formatFixed(v / 1e9, 2) + " G" + unit;
    return formatFixed(v / 1e6, 2) + " M" + unit;
}

std::string formatCount(uint64_t count)
{
    const std::string digits = std::to_string(count);
    std::string out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return out;
}

std::string shortenTorchName(std::string_view name, int maxNameColumnWidth)
{
    if (maxNameColumnWidth > 0 && io::codePointCount(name) >= static_cast<size_t>(maxNameColumnWidth - 3))
        return io::prefixCodePoints(name, static_cast<size_t>(maxNameColumnWidth - 3)) + "...";
    return std::string(name);
}

std::string formatTorchTime(double us, const std::optional<std::string>& unit)
{
    if (unit) {
        if (*unit == "s")
            return formatFixed(us / 1e6, 3) + "s";
        if (*unit == "ms")
            return formatFixed(us / 1e3, 3) + "ms";
        return formatFixed(us, 3) + "us";
    }
    if (us >= 1e6)
        return formatFixed(us / 1e6, 3) + "s";
    if (us >= 1e3)
        return formatFixed(us / 1e3, 3) + "ms";
    return formatFixed(us, 3) + "us";
}

std::string formatTorchPercent(double value, double total)
{
    if (total == 0)
        return "NaN";
    return formatFixed(value * 100.0 / total, 2) + "%";
}

std::string formatTorchMemory(int64_t bytes, MemoryUnitStyle style)
{
    constexpr double KB = 1024.0, MB = 1024.0 * KB, GB = 1024.0 * MB;
    const bool legacy = style == MemoryUnitStyle::Legacy;
    const double magnitude = std::fabs(static_cast<double>(bytes));
    const double v = static_cast<double>(bytes) * 1.0;
    if (magnitude >= GB)
        return formatFixed(v / GB, 2) + (legacy ? " Gb" : " GB");
    if (magnitude >= MB)
        return formatFixed(v / MB, 2) + (legacy ? " Mb" : " MB");
    if (magnitude >= KB)
        return formatFixed(v / KB, 2) + (legacy ? " Kb" : " KB");
    return std::to_string(bytes) + (legacy ? " b" : " B");
}

FlopsUnit flopsUnitOf(const KeyAverages& averages)
{
    uint64_t minFlops = 0;
    for (const KeyAverage& row : averages.rows)
        if (row.flops > 0 && (minFlops == 0 || row.flops < minFlops))
            minFlops = row.flops;
    FlopsUnit unit;
    if (!averages.withFlops || minFlops == 0)
        return unit;
    static const char* headers[] = {"FLOPs", "KFLOPs", "MFLOPs", "GFLOPs", "TFLOPs", "PFLOPs"};
    const double logFlops = std::max(0.0, std::min(std::log10(static_cast<double>(minFlops)) / 3.0, 5.0));
    unit.scale = std::pow(10.0, std::floor(logFlops) * -3.0);
    unit.header = std::string("Total ") + headers[static_cast<int>(logFlops)];
    return unit;
}

std::string formatTorchFlops(uint64_t flops, const FlopsUnit& unit)
{
    return flops == 0 ? std::string("--") : formatFixed(static_cast<double>(flops) * unit.scale, 3);
}

TorchTableColumns torchTableColumnsOf(const KeyAverages& averages)
{
    TorchTableColumns columns;
    bool hasDeviceMemory = false;
    for (const KeyAverage& row : averages.rows) {
        columns.deviceTime = columns.deviceTime || row.selfDeviceTimeTotal > 0;
        hasDeviceMemory = hasDeviceMemory || row.selfDeviceMemoryUsage > 0;
    }
    columns.memory = averages.profileMemory;
    columns.deviceMemory = columns.memory && averages.useDevice && hasDeviceMemory;
    columns.flops = flopsUnitOf(averages);
    return columns;
}

std::string renderTorchTable(const KeyAverages& averages, const TorchTableOptions& options)
{
    const auto& rows = averages.rows;
    const std::vector<size_t> order = sortedRowOrder(averages, options.sortBy);
    if (rows.empty())
        return "";

    const TorchTableColumns columns = torchTableColumnsOf(averages);
    const bool hasDeviceTime = columns.deviceTime;
    bool hasInputShapes = false;
    size_t nameWidth = 0, shapesWidth = 0;
    for (const KeyAverage& row : rows) {
        hasInputShapes = hasInputShapes || !row.inputShapes.empty();
        nameWidth = std::max(nameWidth, io::codePointCount(row.key) + 4);
        shapesWidth = std::max(shapesWidth, io::codePointCount(row.inputShapes) + 4);
    }
    if (options.maxNameColumnWidth > 0)
        nameWidth = std::min(nameWidth, static_cast<size_t>(options.maxNameColumnWidth));
    shapesWidth = std::min(shapesWidth, static_cast<size_t>(options.maxShapesColumnWidth));
    const FlopsUnit& flopsUnit = columns.flops;
    const bool withFlops = !flopsUnit.header.empty();
    const std::string& flopsHeader = flopsUnit.header;
    const bool memoryColumns = columns.memory;
    const bool deviceMemoryColumns = columns.deviceMemory;
    const std::string& dev = options.deviceName;

    std::vector<std::string> headers{"Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"};
    if (hasDeviceTime) {
        headers.push_back("Self " + dev);
        headers.push_back("Self " + dev + " %");
        headers.push_back(dev + " total");
        headers.push_back(dev + " time avg");
    }
    if (memoryColumns) {
        headers.push_back("CPU Mem");
        headers.push_back("Self CPU Mem");
        if (deviceMemoryColumns) {
            headers.push_back(dev + " Mem");
            headers.push_back("Self " + dev + " Mem");
        }
    }
    headers.push_back("# of Calls");
    if (hasInputShapes)
        headers.push_back("Input Shapes");
    if (withFlops)
        headers.push_back(flopsHeader);

    std::vector<size_t> widths(headers.size(), 12);
    widths[0] = nameWidth;
    if (hasInputShapes)
        widths[headers.size() - (withFlops ? 2 : 1)] = shapesWidth;

    size_t lineLength = 0;
    std::string separator;
    for (const size_t w : widths) {
        separator.append(w, '-');
        separator += "  ";
        lineLength += w + 2;
    }
    lineLength -= 2;

    const double sumSelfCpu = averages.selfCpuTimeTotal(order);
    const double sumSelfDevice = averages.selfDeviceTimeTotal(order);
    const auto time = [&](double us) { return formatTorchTime(us, options.timeUnit); };

    std::string out;
    auto line = [&](const std::string& s) {
        out += s;
        out += '\n';
    };
    if (!options.header.empty()) {
        line(std::string(lineLength, '='));
        line(options.header);
    }
    if (options.topLevelEventsOnly) {
        line(std::string(lineLength, '='));
        line("This report only display top-level ops statistics");
    }
    line(separator);
    std::string text;
    for (size_t c = 0; c < headers.size(); ++c)
        appendCell(text, headers[c], widths[c]);
    line(text);
    line(separator);

    int printed = 0;
    std::vector<std::string> cells;
    for (const size_t index : order) {
        if (printed == options.rowLimit)
            break;
        const KeyAverage& row = rows[index];
        if (options.topLevelEventsOnly && row.hasCpuParent)
            continue;
        ++printed;
        cells.clear();
        cells.push_back(shortenTorchName(row.key, options.maxNameColumnWidth));
        cells.push_back(formatTorchPercent(row.selfCpuTimeTotal, sumSelfCpu));
        cells.push_back(time(row.selfCpuTimeTotal));
        cells.push_back(formatTorchPercent(row.cpuTimeTotal, sumSelfCpu));
        cells.push_back(time(row.cpuTimeTotal));
        cells.push_back(time(row.cpuTimeAverage()));
        if (hasDeviceTime) {
            cells.push_back(time(row.selfDeviceTimeTotal));
            cells.push_back(formatTorchPercent(row.selfDeviceTimeTotal, sumSelfDevice));
            cells.push_back(time(row.deviceTimeTotal));
            cells.push_back(time(row.deviceTimeAverage()));
        }
        if (memoryColumns) {
            cells.push_back(formatTorchMemory(row.cpuMemoryUsage, options.memoryUnits));
            cells.push_back(formatTorchMemory(row.selfCpuMemoryUsage, options.memoryUnits));
            if (deviceMemoryColumns) {
                cells.push_back(formatTorchMemory(row.deviceMemoryUsage, options.memoryUnits));
                cells.push_back(formatTorchMemory(row.selfDeviceMemoryUsage, options.memoryUnits));
            }
        }
        cells.push_back(std::to_string(row.count));
        if (hasInputShapes)
            cells.push_back(io::prefixCodePoints(row.inputShapes, shapesWidth));
        if (withFlops) {
            std::string v = formatTorchFlops(row.flops, flopsUnit);
            if (row.flops != 0 && v.size() < 8)
                v.insert(0, 8 - v.size(), ' ');
            cells.push_back(v);
        }
        text.clear();
        for (size_t c = 0; c < cells.size(); ++c)
            appendCell(text, cells[c], widths[c]);
        line(text);
    }
    line(separator);
    line("Self CPU time total: " + time(sumSelfCpu));
    if (hasDeviceTime)
        line("Self " + dev + " time total: " + time(sumSelfDevice));
    return out;
}

} // namespace tilescope::stats
