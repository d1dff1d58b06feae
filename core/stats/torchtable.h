// SPDX-License-Identifier: MIT
#pragma once

#include "stats/keyaverages.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tilescope::stats {

enum class MemoryUnitStyle : uint8_t { Modern, Legacy }; // "KB" (torch 2.x) or "Kb" (older torch)

struct TorchTableOptions
{
    std::optional<SortKey> sortBy;
    int rowLimit = 100; // -1: all rows
    int maxNameColumnWidth = 55;
    int maxShapesColumnWidth = 80;
    std::string header;
    bool topLevelEventsOnly = false;
    std::optional<std::string> timeUnit; // "s", "ms" or "us": every time in that unit
    MemoryUnitStyle memoryUnits = MemoryUnitStyle::Modern;
    std::string deviceName = "CUDA";
};

// prof.key_averages().table(...) byte for byte (torch's _build_table, key-averages.md §6).
std::string renderTorchTable(const KeyAverages& averages, const TorchTableOptions& options);

// torch's FLOPs column: one unit for the whole table, chosen by its smallest non-zero count ("Total TFLOPs",
// the counts times scale); no header when the trace has no FLOPs (recorded without with_flops, or all 0).
struct FlopsUnit
{
    double scale = 1.0;
    std::string header;
};
FlopsUnit flopsUnitOf(const KeyAverages& averages);
// A FLOPs cell in that unit: "--" for none, else three decimals ("2.749").
std::string formatTorchFlops(uint64_t flops, const FlopsUnit& unit);

// The optional columns torch's table has for these rows (_build_table): CUDA times where some row has self
// device time; memory with profile_memory, device memory only where some row also has some (and the run used
// the GPU); FLOPs where flops.header is set. summary's table and the app's follow it.
struct TorchTableColumns
{
    bool deviceTime = false;
    bool memory = false;
    bool deviceMemory = false;
    FlopsUnit flops;
};
TorchTableColumns torchTableColumnsOf(const KeyAverages& averages);

// torch's cell formatters.
std::string formatTorchTime(double us, const std::optional<std::string>& unit = std::nullopt);
std::string formatTorchPercent(double value, double total);
std::string formatTorchMemory(int64_t bytes, MemoryUnitStyle style = MemoryUnitStyle::Modern);
std::string formatFixed(double value, int precision);
// A rate with an SI prefix and two decimals: "1.23 TFLOP/s" for (1.23e12, "FLOP/s"); T, G, else M.
std::string formatRate(double value, const char* unit);
// A count with thousands separators: 8772 -> "8,772".
std::string formatCount(uint64_t count);
// torch's name cell: longer than max_name_column_width - 4 code points, the first width - 3 and "...".
std::string shortenTorchName(std::string_view name, int maxNameColumnWidth);

} // namespace tilescope::stats
