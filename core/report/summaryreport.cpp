// SPDX-License-Identifier: MIT
#include "report/summaryreport.h"

#include "io/decimal.h"
#include "io/smalljson.h"

namespace tilescope::report {

namespace {

std::vector<size_t> selectedRows(const stats::KeyAverages& averages, const SummarySelection& selection)
{
    std::vector<size_t> order = stats::sortedRowOrder(averages, selection.sortBy);
    if (selection.rowLimit >= 0 && order.size() > static_cast<size_t>(selection.rowLimit))
        order.resize(static_cast<size_t>(selection.rowLimit));
    return order;
}

} // namespace

std::string summaryJson(const std::string& tracePath, const stats::KeyAverages& averages, const SummarySelection& selection)
{
    const std::vector<size_t> all = stats::sortedRowOrder(averages, selection.sortBy);
    const std::vector<size_t> rows = selectedRows(averages, selection);
    io::Json j;
    j["trace"] = tracePath;
    j["sort_by"] = selection.sortBy ? io::Json(stats::sortKeyName(*selection.sortBy)) : io::Json(nullptr);
    j["self_cpu_time_total_us"] = io::jsonNumber(averages.selfCpuTimeTotal(all));
    j["self_device_time_total_us"] = io::jsonNumber(averages.selfDeviceTimeTotal(all));
    io::Json& list = j["rows"] = io::Json::array();
    for (const size_t index : rows)
        list.push_back(summaryRowJson(averages.rows[index], averages.groupedByInputShape));
    return io::dumpJson(j) + "\n";
}

io::Json summaryRowJson(const stats::KeyAverage& r, bool groupedByInputShape)
{
    return {{"key", r.key},
            {"input_shapes", groupedByInputShape ? io::Json(r.inputShapes) : io::Json(nullptr)},
            {"count", r.count},
            {"self_cpu_time_total_us", io::jsonNumber(r.selfCpuTimeTotal)},
            {"cpu_time_total_us", io::jsonNumber(r.cpuTimeTotal)},
            {"self_device_time_total_us", io::jsonNumber(r.selfDeviceTimeTotal)},
            {"device_time_total_us", io::jsonNumber(r.deviceTimeTotal)},
            {"cpu_memory_usage", r.cpuMemoryUsage},
            {"self_cpu_memory_usage", r.selfCpuMemoryUsage},
            {"device_memory_usage", r.deviceMemoryUsage},
            {"self_device_memory_usage", r.selfDeviceMemoryUsage},
            {"flops", r.flops}};
}

std::string summaryCsv(const stats::KeyAverages& averages, const SummarySelection& selection)
{
    return keyAveragesCsv(averages, selectedRows(averages, selection));
}

std::string csvField(std::string_view text)
{
    if (text.find_first_of(",\"\n\r") == std::string_view::npos)
        return std::string(text);
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + '"';
}

std::string keyAveragesCsv(const stats::KeyAverages& averages, const std::vector<size_t>& rows)
{
    std::string out = "key,input_shapes,device_type,is_user_annotation,count,self_cpu_time_total_us,cpu_time_total_us,"
                      "self_device_time_total_us,device_time_total_us,cpu_memory_usage,self_cpu_memory_usage,"
                      "device_memory_usage,self_device_memory_usage,flops\n";
    for (const size_t index : rows) {
        const stats::KeyAverage& r = averages.rows.at(index);
        out += csvField(r.key) + ',' + csvField(r.inputShapes) + ',' + (r.deviceType == stats::DeviceType::CPU ? "CPU" : "CUDA") + ','
            + (r.isUserAnnotation ? "true" : "false") + ',' + std::to_string(r.count) + ',' + io::formatShortest(r.selfCpuTimeTotal) + ','
            + io::formatShortest(r.cpuTimeTotal) + ',' + io::formatShortest(r.selfDeviceTimeTotal) + ','
            + io::formatShortest(r.deviceTimeTotal) + ',' + std::to_string(r.cpuMemoryUsage) + ',' + std::to_string(r.selfCpuMemoryUsage)
            + ',' + std::to_string(r.deviceMemoryUsage) + ',' + std::to_string(r.selfDeviceMemoryUsage) + ',' + std::to_string(r.flops)
            + '\n';
    }
    return out;
}

} // namespace tilescope::report
