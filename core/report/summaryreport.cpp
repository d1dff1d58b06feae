// SPDX-License-Identifier: MIT
#include "report/summaryreport.h"

#include "report/jsonwriter.h"

namespace tilescope::report {

namespace {

std::vector<size_t> selectedRows(const stats::KeyAverages& averages, const SummarySelection& selection)
{
    std::vector<size_t> order = stats::sortedRowOrder(averages, selection.sortBy);
    if (selection.rowLimit >= 0 && order.size() > static_cast<size_t>(selection.rowLimit))
        order.resize(static_cast<size_t>(selection.rowLimit));
    return order;
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

} // namespace

std::string summaryJson(const std::string& tracePath, const stats::KeyAverages& averages, const SummarySelection& selection)
{
    const std::vector<size_t> all = stats::sortedRowOrder(averages, selection.sortBy);
    const std::vector<size_t> rows = selectedRows(averages, selection);
    JsonWriter w;
    w.beginObject();
    w.key("trace").value(tracePath);
    w.key("sort_by");
    if (selection.sortBy)
        w.value(stats::sortKeyName(*selection.sortBy));
    else
        w.null();
    w.key("self_cpu_time_total_us").value(averages.selfCpuTimeTotal(all));
    w.key("self_device_time_total_us").value(averages.selfDeviceTimeTotal(all));
    w.key("rows").beginArray();
    for (const size_t index : rows) {
        const stats::KeyAverage& r = averages.rows[index];
        w.beginObject();
        w.key("key").value(r.key);
        w.key("input_shapes");
        if (averages.groupedByInputShape)
            w.value(r.inputShapes);
        else
            w.null();
        w.key("count").value(r.count);
        w.key("self_cpu_time_total_us").value(r.selfCpuTimeTotal);
        w.key("cpu_time_total_us").value(r.cpuTimeTotal);
        w.key("self_device_time_total_us").value(r.selfDeviceTimeTotal);
        w.key("device_time_total_us").value(r.deviceTimeTotal);
        w.key("cpu_memory_usage").value(r.cpuMemoryUsage);
        w.key("self_cpu_memory_usage").value(r.selfCpuMemoryUsage);
        w.key("device_memory_usage").value(r.deviceMemoryUsage);
        w.key("self_device_memory_usage").value(r.selfDeviceMemoryUsage);
        w.key("flops").value(r.flops);
        w.endObject();
    }
    w.endArray();
    w.endObject();
    return w.text() + "\n";
}

std::string summaryCsv(const stats::KeyAverages& averages, const SummarySelection& selection)
{
    return keyAveragesCsv(averages, selectedRows(averages, selection));
}

std::string keyAveragesCsv(const stats::KeyAverages& averages, const std::vector<size_t>& rows)
{
    std::string out = "key,input_shapes,device_type,is_user_annotation,count,self_cpu_time_total_us,cpu_time_total_us,"
                      "self_device_time_total_us,device_time_total_us,cpu_memory_usage,self_cpu_memory_usage,"
                      "device_memory_usage,self_device_memory_usage,flops\n";
    for (const size_t index : rows) {
        const stats::KeyAverage& r = averages.rows.at(index);
        out += csvField(r.key) + ',' + csvField(r.inputShapes) + ',' + (r.deviceType == stats::DeviceType::CPU ? "CPU" : "CUDA") + ','
            + (r.isUserAnnotation ? "true" : "false") + ',' + std::to_string(r.count) + ',' + JsonWriter::number(r.selfCpuTimeTotal)
            + ',' + JsonWriter::number(r.cpuTimeTotal) + ',' + JsonWriter::number(r.selfDeviceTimeTotal) + ','
            + JsonWriter::number(r.deviceTimeTotal) + ',' + std::to_string(r.cpuMemoryUsage) + ',' + std::to_string(r.selfCpuMemoryUsage)
            + ',' + std::to_string(r.deviceMemoryUsage) + ',' + std::to_string(r.selfDeviceMemoryUsage) + ',' + std::to_string(r.flops)
            + '\n';
    }
    return out;
}

} // namespace tilescope::report
