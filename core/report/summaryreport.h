// SPDX-License-Identifier: MIT
#pragma once

#include "io/smalljson.h"
#include "stats/keyaverages.h"

#include <optional>
#include <string>
#include <vector>

namespace tilescope::report {

struct SummarySelection
{
    std::optional<stats::SortKey> sortBy;
    int rowLimit = -1; // -1: all rows
};

// `tilescope-cli summary --format json`: the field names of torch's ref_key_averages.json rows.
std::string summaryJson(const std::string& tracePath, const stats::KeyAverages& averages, const SummarySelection& selection);
// One row of it: {"key", "input_shapes" (null unless grouped by shape), "count", "self_cpu_time_total_us",
// "cpu_time_total_us", "self_device_time_total_us", "device_time_total_us", "cpu_memory_usage",
// "self_cpu_memory_usage", "device_memory_usage", "self_device_memory_usage", "flops"}; `diff` reuses it.
io::Json summaryRowJson(const stats::KeyAverage& row, bool groupedByInputShape);
// The same rows as CSV with a header line (keyAveragesCsv).
std::string summaryCsv(const stats::KeyAverages& averages, const SummarySelection& selection);

// The one CSV of key averages: `summary --format csv` and the key-averages dock's Copy / Export CSV. A
// header line, then one line per row of `rows` (indexes into averages.rows), in that order:
//   key, input_shapes (empty unless grouped by shape), device_type (CPU or CUDA), is_user_annotation
//   (true/false), count, self_cpu_time_total_us, cpu_time_total_us, self_device_time_total_us,
//   device_time_total_us (microseconds, shortest exact decimal), cpu_memory_usage, self_cpu_memory_usage,
//   device_memory_usage, self_device_memory_usage (bytes), flops.
// The names are the JSON form's; fields with a comma, quote or line break are quoted (RFC 4180).
std::string keyAveragesCsv(const stats::KeyAverages& averages, const std::vector<size_t>& rows);
// A CSV field: as is, or quoted (RFC 4180) when it holds a comma, quote or line break.
std::string csvField(std::string_view text);

} // namespace tilescope::report
