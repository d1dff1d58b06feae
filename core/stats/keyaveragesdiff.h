// SPDX-License-Identifier: MIT
#pragma once

#include "stats/keyaverages.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilescope::stats {

// How a row changed from before to after (the words of HTA's TraceDiff, with "removed" for its "deleted").
enum class DiffChange : uint8_t { Added, Removed, Increased, Decreased, Unchanged };
std::string diffChangeName(DiffChange change);

// One key_averages row of two traces side by side. A row is matched by torch's group key: key, device
// type, user annotation and, when both sides are grouped by shape, input shapes.
struct KeyAverageDiffRow
{
    std::string key;
    std::string inputShapes; // empty unless grouped by shape
    DeviceType deviceType = DeviceType::CPU;
    bool isUserAnnotation = false;
    std::optional<KeyAverage> before; // none: the row is only in after (added)
    std::optional<KeyAverage> after;  // none: the row is only in before (removed)
    // after - before, a missing side counting as 0.
    int64_t deltaCount = 0;
    double deltaSelfCpuTimeTotal = 0;
    double deltaSelfDeviceTimeTotal = 0;
    double deltaDeviceTimeTotal = 0;

    // Added or removed when one side is missing; else by the device-time-total delta (what the diff sorts
    // by), or the self CPU delta when that is 0 (a CPU op without GPU work); unchanged when both are 0.
    DiffChange change() const;
};

// One side's table footers: what `summary` prints as "Self CPU time total" and "Self CUDA time total" (its
// rows summed in its default order, so the figures are summary's to the last digit).
struct KeyAveragesTotals
{
    double selfCpuTimeTotal = 0;
    double selfDeviceTimeTotal = 0;
    bool useDevice = false; // the side has GPU activity (summary prints the CUDA footer only then)
};

struct KeyAveragesDiff
{
    std::vector<KeyAverageDiffRow> rows; // largest |device-time delta| first (ties: |self CPU delta|, then key)
    bool groupedByInputShape = false;
    KeyAveragesTotals before, after;
};

// Matches the rows of two key averages grouped the same way (both by key, or both by key and input
// shapes: std::invalid_argument otherwise).
KeyAveragesDiff diffKeyAverages(const KeyAverages& before, const KeyAverages& after);

} // namespace tilescope::stats
