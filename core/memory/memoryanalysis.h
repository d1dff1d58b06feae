// SPDX-License-Identifier: MIT
#pragma once

#include "analysis/steps.h"
#include "trace/trace.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tilescope::memory {

// What a trace's `[memory]` / `[OutOfMemory]` instants say (trace-format.md §11.1): per device the
// allocator's totals over time, the peaks and who was running then, out-of-memory requests, each
// allocation paired with its free, per-op statistics, per-step totals and a suspected leak. Built in one
// cheap pass by analyzeMemory; read-only afterwards. Events, records and tracks are indices into the
// Trace it was built from.

// One point of a device's step function: the allocator's totals right after a record.
struct MemorySample
{
    int64_t time;
    int64_t allocated; // Total Allocated (or the running sum of Bytes, DeviceMemory::allocatedFromRunningSum)
    int64_t reserved;  // Total Reserved (0 when DeviceMemory::hasReserved is false)
    uint32_t record;   // Trace::memory index
};

struct DeviceMemory
{
    std::string name;       // "cuda:0", "cpu", "mps:0", ...
    int16_t deviceType = 0; // c10::DeviceType
    int16_t deviceId = -1;
    std::vector<MemorySample> samples; // by time, records of one time in file order; no OOM records
    // The 1.8 format records no totals: `allocated` is then a running sum of Bytes from 0 (the level
    // before the profiler started is unknown) and there is no reserved series.
    bool allocatedFromRunningSum = false;
    bool hasReserved = true;

    int64_t peakAllocated = 0;                      // the largest recorded Total Allocated, exactly
    uint32_t peakAllocatedSample = trace::kNoIndex; // `samples` index, the first of equal maxima
    int64_t peakAllocatedTime = 0;
    uint32_t peakOp = trace::kNoIndex; // innermost host op on the peak record's thread at its time
    int64_t peakReserved = 0;
    uint32_t peakReservedSample = trace::kNoIndex;
    int64_t peakReservedTime = 0;
    int64_t finalAllocated = 0;
    int64_t finalReserved = 0;
    uint64_t allocs = 0, frees = 0;
    int64_t allocBytes = 0, freeBytes = 0; // both positive

    const MemorySample* peakSample() const { return peakAllocatedSample < samples.size() ? &samples[peakAllocatedSample] : nullptr; }
};

// An `[OutOfMemory]` record: an allocation that failed. It is not an allocation and moves no total.
struct OutOfMemoryEvent
{
    uint32_t device; // MemoryAnalysis::devices index
    int64_t requestedBytes;
    int64_t allocated; // the totals the record carries, else the device's series at that time (kNoId if none)
    int64_t reserved;
    int64_t time;
    uint32_t op; // innermost host op on its thread, kNoIndex when none
    uint32_t record;
};

// One allocation paired with its free: the next free of the same address on the same device (addresses
// are reused). A free whose allocation happened before the trace has allocRecord kNoIndex.
struct MemoryBlock
{
    uint32_t device;
    int64_t address;
    int64_t bytes;
    int64_t allocTime;                // kNoId when allocated before the trace
    int64_t freeTime;                 // kNoId when not freed inside the trace
    uint32_t allocRecord, freeRecord; // Trace::memory indices, kNoIndex when absent
    uint32_t allocOp, freeOp;         // innermost host op at each, kNoIndex when none
    // Not freed by the trace's end. False for an allocation whose address was allocated again with no
    // free between (a free the trace lost): its end is unknown.
    bool liveAtEnd;

    int64_t lifetime() const { return allocTime != trace::kNoId && freeTime != trace::kNoId ? freeTime - allocTime : trace::kNoId; }
};

// Allocations and frees of one op name, self: each record counts for the innermost host op running on
// its thread, not for the ops around it.
struct OpMemory
{
    trace::StringId name; // kNoIndex: records outside any op
    uint64_t calls = 0;   // events of that name (cpu_op / user_annotation) in the trace
    uint64_t allocs = 0;
    int64_t allocBytes = 0;
    uint64_t frees = 0;
    int64_t freeBytes = 0;       // positive
    int64_t liveAtPeakBytes = 0; // its allocations still live at their device's peak

    int64_t sizeIncrease() const { return allocBytes - freeBytes; }
};

struct StepMemory
{
    trace::StringId name;
    uint32_t event;
    int64_t start, end;
    std::vector<int64_t> allocatedAtEnd; // per device: its last sample at or before `end`, kNoId if none
};

struct SuspectedLeak
{
    uint32_t device;
    uint32_t firstStep, lastStep; // MemoryAnalysis::steps indices of the first and last growing step
    uint32_t steps;               // lastStep - firstStep + 1
    uint32_t growingSteps;        // of those, the ones that grew
    int64_t growthBytes;          // from the end of the step before firstStep to the end of lastStep
    int64_t growthBytesPerStep;   // growthBytes / steps
};

// Leak thresholds. Fewer growing steps look like warm-up (optimizer state, allocator caches, lazy
// buffers), which grows once or twice and then stays.
constexpr uint32_t kLeakMinGrowingSteps = 3;
// Step-end totals that differ by less than this count as equal: small temporaries (a loss scalar, a
// metric) come and go around a step's end without being growth or return.
constexpr int64_t kStepNoiseBytes = int64_t(1) << 20;

struct MemoryAnalysis
{
    // Accelerators by (type, id), then the CPU.
    std::vector<DeviceMemory> devices;
    std::vector<OutOfMemoryEvent> ooms; // by time
    // Allocations by time (frees of earlier allocations by their free time), empty when the trace has no
    // addresses (1.8 format: hasAddresses false).
    std::vector<MemoryBlock> blocks;
    bool hasAddresses = false;
    std::vector<OpMemory> ops; // top allocators first: by alloc bytes, then alloc count, then name
    analysis::StepSource stepSource = analysis::StepSource::None;
    std::vector<StepMemory> steps;    // by start: analysis::findSteps
    std::vector<SuspectedLeak> leaks; // at most one per device
    // By TrackId, for the tracks of memory records: the track whose ops they are attributed to (kNoIndex
    // for other tracks).
    std::vector<trace::TrackId> opTrackOf;

    bool empty() const { return devices.empty() && ooms.empty(); }
    // The device the steps and the leak verdict are about first: the largest peak allocated (the CPU
    // totals of a CUDA run are tiny), kNoIndex when there is no device.
    uint32_t primaryDevice() const;
    // The leak with the largest growth, nullptr when none.
    const SuspectedLeak* worstLeak() const;
};

MemoryAnalysis analyzeMemory(const trace::Trace& trace);

// The op a click on a device's graph at `time` points at: the innermost host op running at `time` on the
// thread of the device's last record at or before it; kNoIndex when none.
uint32_t memoryOpAt(const trace::Trace& trace, const MemoryAnalysis& analysis, uint32_t device, int64_t time);

// What to say instead of an empty graph when Trace::memory is empty (the CLI prefixes the file name).
constexpr std::string_view kNoMemoryRecordsText = "this trace was recorded without profile_memory=True (no [memory] events)";

// "cuda:0", "cpu" (whatever its id), "mps:0", "xpu:1", ...; an unknown type as "device<type>:<id>".
std::string memoryDeviceName(int deviceType, int deviceId);

// The leak rule over one device's step-end totals (kNoId values are not allowed). A window of consecutive
// steps in which the total never drops by kStepNoiseBytes or more, with at least kLeakMinGrowingSteps
// steps that each grow by kStepNoiseBytes or more, whose first growth is never given back later (no later
// step ends below the first growing step's total by kStepNoiseBytes or more). Of several, the one that
// grew most. The indices in the result are into `allocatedAtEnd` (device 0).
std::optional<SuspectedLeak> findSuspectedLeak(std::span<const int64_t> allocatedAtEnd);
// The leak rule per device over steps [firstStep, endStep) of an analysis (MemoryAnalysis::leaks is all of
// them; the findings of a time range use the steps inside it). Step indices in the result are the analysis's.
std::vector<SuspectedLeak> findLeaksInSteps(const MemoryAnalysis& analysis, uint32_t firstStep, uint32_t endStep);

} // namespace tilescope::memory
