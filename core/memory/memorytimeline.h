// SPDX-License-Identifier: MIT
#pragma once

#include "memory/epochtime.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilescope::memory {

// prof.export_memory_timeline's files (trace-format.md §11.2): live bytes per category of torch's memory
// profiler over time. Both forms are read by content (plain or gzip):
//   - the `.json` form: [times, sizes], one row of 9 ints per time (slot 0 unused, then the 8 categories);
//   - the raw form: [[timestamp, action, numbytes, category], ...] (torch's export_memory_timeline_raw),
//     replayed here into the same rows as torch's own _coalesce_timeline does.
// Times are Unix epoch microseconds; memory/epochtime.h puts them on a trace's clock
// (epochUs * 1000 - baseTimeNanoseconds), which is how the memory panel aligns them with the timeline.

enum class MemoryCategory : uint8_t { Parameter, OptimizerState, Input, Temporary, Activation, Gradient, AutogradDetail, Unknown };
constexpr size_t kMemoryCategoryCount = 8;

struct MemoryCategoryInfo
{
    std::string_view name;       // torch's: "PARAMETER", ..., "AUTOGRAD_DETAIL", "unknown"
    std::string_view colourName; // torch's matplotlib colour: "darkgreen", ..., "grey"
    std::string_view colour;     // the same as "#rrggbb"
};
// In torch's order (the row slots 1..8 and the raw category indices 0..7).
const MemoryCategoryInfo& memoryCategoryInfo(size_t category);

enum class MemoryTimelineForm : uint8_t { Sizes, Raw };

using CategoryBytes = std::array<int64_t, kMemoryCategoryCount>;

struct MemoryTimeline
{
    std::string path;
    MemoryTimelineForm form = MemoryTimelineForm::Sizes;
    // One row per distinct time, times never decreasing; a row is the state after its time: live bytes per
    // category, not stacked (stack them to draw). Pre-existing memory sits at the smallest real time.
    std::vector<int64_t> timesUs;
    std::vector<CategoryBytes> rows;
    // Raw form only: records read and their count per action (1 PREEXISTING, 2 CREATE, 3 INCREMENT_VERSION,
    // 4 DESTROY at index action - 1).
    uint64_t rawRecordCount = 0;
    std::array<uint64_t, 4> rawActionCounts{};
    // Raw form only: whether its timestamps were nanoseconds (torch's raw export) and were floored to µs.
    bool rawTimesWereNanoseconds = false;

    size_t size() const { return timesUs.size(); }
    int64_t totalBytes(size_t row) const; // the row's categories summed
};

// A maximum and where it is (the first row that reaches it); row is SIZE_MAX for an empty timeline.
struct MemoryTimelinePeak
{
    int64_t bytes = 0;
    int64_t timeUs = kNoTimeUs;
    size_t row = SIZE_MAX;
};
MemoryTimelinePeak peakTotal(const MemoryTimeline& timeline);
MemoryTimelinePeak peakOfCategory(const MemoryTimeline& timeline, size_t category);

// Reads either form. Throws io::TraceFileError naming the file on malformed JSON or a wrong shape ("row 12
// has 8 values, expected 9", "record 40: category 9 is not 0..7", "times[3] is before times[2]").
MemoryTimeline loadMemoryTimeline(const std::string& path);
MemoryTimeline memoryTimelineFromBytes(std::string_view bytes, const std::string& name);

// Why the timeline cannot go with a trace of span [firstNs, lastNs] and that baseTimeNanoseconds: it does not
// reach into the span (exported from another run, or empty), and nothing of it would be drawn there. Empty
// when it does.
std::string timelineOutsideTraceText(const MemoryTimeline& timeline, int64_t firstNs, int64_t lastNs, std::optional<int64_t> baseTimeNs);

} // namespace tilescope::memory
