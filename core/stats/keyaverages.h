// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilescope::trace {
class Trace;
}

namespace tilescope::stats {

enum class DeviceType : uint8_t { CPU, CUDA };

// One row of torch's prof.key_averages(): a FunctionEventAvg.
struct KeyAverage
{
    std::string key;
    std::string inputShapes; // str(input_shapes) when grouped by shape, else empty
    DeviceType deviceType = DeviceType::CPU;
    bool isUserAnnotation = false;
    bool hasCpuParent = false; // of the group's first event, for top_level_events_only
    int64_t count = 0;
    double cpuTimeTotal = 0;
    double selfCpuTimeTotal = 0;
    double deviceTimeTotal = 0;
    double selfDeviceTimeTotal = 0;
    int64_t cpuMemoryUsage = 0;
    int64_t selfCpuMemoryUsage = 0;
    int64_t deviceMemoryUsage = 0;
    int64_t selfDeviceMemoryUsage = 0;
    uint64_t flops = 0;

    double cpuTimeAverage() const { return count == 0 ? 0.0 : cpuTimeTotal / static_cast<double>(count); }
    double deviceTimeAverage() const { return count == 0 ? 0.0 : deviceTimeTotal / static_cast<double>(count); }
};

struct KeyAveragesOptions
{
    static KeyAveragesOptions byInputShape(bool grouped = true)
    {
        KeyAveragesOptions o;
        o.groupByInputShape = grouped;
        return o;
    }
    bool groupByInputShape = false;
    // Only events that start in [first, second) (trace ns), e.g. a range selected in the timeline.
    // Not a torch notion: torch always averages the whole profile.
    std::optional<std::pair<int64_t, int64_t>> window;
    // Threads the averages use (three steps run side by side): 0 for the cores once the trace is large
    // enough to be worth a thread's start, 1 for one, N > 1 for N whatever the size.
    unsigned threads = 0;
};

struct KeyAverages
{
    std::vector<KeyAverage> rows; // torch's group order (first occurrence after its global sort)
    bool groupedByInputShape = false;
    bool useDevice = false;     // the trace has CUDA activity
    bool profileMemory = false; // the profile_memory key or [memory] instants
    bool withFlops = false;     // the with_flops key: FLOPs are computed only then
    // Sums the table footers print (key-averages.md §6.5), added in the table's row order as torch does.
    double selfCpuTimeTotal(const std::vector<size_t>& order) const;
    double selfDeviceTimeTotal(const std::vector<size_t>& order) const;
};

// torch's _parse_kineto_results + _build_tree + key_averages, computed from the trace alone
// (key-averages.md; where the trace lacks what torch used, the substitute is named in the code).
KeyAverages computeKeyAverages(const trace::Trace& trace, const KeyAveragesOptions& options = {});

// Sort keys as torch names them; "cuda", "xpu" and "privateuse1" mean "device".
enum class SortKey : uint8_t {
    CpuTime,
    DeviceTime,
    CpuTimeTotal,
    DeviceTimeTotal,
    SelfCpuTimeTotal,
    SelfDeviceTimeTotal,
    CpuMemoryUsage,
    DeviceMemoryUsage,
    SelfCpuMemoryUsage,
    SelfDeviceMemoryUsage,
    Count,
    Flops
};
std::optional<SortKey> sortKeyFromName(std::string_view name);
std::string sortKeyName(SortKey key); // torch's spelling with "cuda"
std::vector<std::string> sortKeyNames();
double sortValue(const KeyAverage& row, SortKey key);
// Row indices sorted descending and stable, as Python's sorted(..., reverse=True).
std::vector<size_t> sortedRowOrder(const KeyAverages& averages, std::optional<SortKey> key);
// The sort `summary` uses when none is given (and the report's and the diff's totals): self device time when
// the trace has GPU activity, else self CPU time.
SortKey defaultSortKey(const KeyAverages& averages);

} // namespace tilescope::stats
