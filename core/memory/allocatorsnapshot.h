// SPDX-License-Identifier: MIT
#pragma once

#include "io/pickledecoder.h"
#include "memory/epochtime.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tilescope::memory {

// The CUDA caching allocator's snapshot (torch.cuda.memory._snapshot() / _dump_snapshot(), a pickle;
// trace-format.md §11.3), read through io's bounded pickle decoder: nothing in the file is executed.

// A stack frame as torch records it. C++ frames have line 0 and a filename of "??", "" or a bare file name.
struct StackFrame
{
    std::string name;
    std::string filename;
    int64_t line = 0;
};

// Frames and whole stacks are stored once (snapshots repeat the same stacks thousands of times): blocks
// and trace entries hold a StackId, AllocatorSnapshot::stackFrames() gives its frames.
using FrameId = uint32_t;
using StackId = uint32_t;
constexpr StackId kEmptyStack = 0;

enum class BlockState : uint8_t {
    ActiveAllocated,   // handed out to a tensor
    ActivePendingFree, // freed by the tensor, still in use by a stream ("active_pending_free"; the docstring's
                       // "active_awaiting_free" is read as this too)
    Inactive           // free, cached in the segment
};
// torch's spelling: "active_allocated", "active_pending_free", "inactive".
std::string_view blockStateName(BlockState state);

struct SnapshotBlock
{
    uint64_t address = 0;      // given, or (older torch) the segment's address plus the sizes of the blocks before
    int64_t size = 0;          // bytes the block spans in the segment
    int64_t requestedSize = 0; // bytes the tensor asked for (`requested_size`; `size` when absent)
    BlockState state = BlockState::Inactive;
    StackId stack = kEmptyStack; // where it was allocated (empty for inactive blocks)
};

struct SnapshotSegment
{
    int64_t device = 0;
    uint64_t address = 0;
    int64_t totalSize = 0;     // reserved bytes (cudaMalloc'd)
    int64_t allocatedSize = 0; // bytes of active_allocated blocks (`allocated_size`; computed when absent)
    int64_t activeSize = 0;    // bytes of active_allocated and active_pending_free blocks (`active_size`)
    int64_t requestedSize = 0; // bytes requested by the allocated blocks' tensors (`requested_size`)
    int64_t stream = 0;
    std::string segmentType; // "large" or "small" ("" when absent)
    bool isExpandable = false;
    StackId stack = kEmptyStack;
    std::vector<SnapshotBlock> blocks; // in file order (address order in every snapshot seen)
};

enum class TraceAction : uint8_t {
    Alloc,
    FreeRequested,
    FreeCompleted,
    SegmentAlloc,
    SegmentFree,
    SegmentMap,
    SegmentUnmap,
    Snapshot,
    Oom,
    Other // an action this reader does not know; its text is AllocatorSnapshot::otherActionNames[otherAction]
};
// torch's spelling: "alloc", "free_requested", ..., "oom"; "" for Other.
std::string_view traceActionName(TraceAction action);

struct TraceEntry
{
    TraceAction action = TraceAction::Other;
    uint32_t otherAction = 0; // index in otherActionNames when action is Other
    uint64_t address = 0;     // `addr` (0 for oom)
    int64_t size = 0;         // bytes; for oom the request that failed
    int64_t deviceFree = 0;   // oom only: `device_free`, free bytes on the device
    int64_t stream = 0;
    int64_t timeUs = kNoTimeUs; // Unix epoch microseconds (see memory/epochtime.h to place it on a trace)
    StackId stack = kEmptyStack;
};

// A record_function range edge the allocator saw (`external_annotations`, newer torch).
struct ExternalAnnotation
{
    std::string stage; // "START" or "END"
    std::string name;
    int64_t device = 0;
    int64_t timeUs = kNoTimeUs;
};

struct AllocatorSnapshot
{
    std::string path;
    std::vector<SnapshotSegment> segments;
    // One ring buffer per device (index = device), oldest entry first.
    std::vector<std::vector<TraceEntry>> deviceTraces;
    std::vector<ExternalAnnotation> externalAnnotations;
    // `allocator_settings` as key and Python-like value text ("max_split_size" -> "-1", "expandable_segments"
    // -> "False", "roundup_power2_divisions" -> "{'1': 0, ...}").
    std::vector<std::pair<std::string, std::string>> allocatorSettings;
    std::vector<std::string> otherActionNames;

    std::vector<StackFrame> frames; // each distinct frame once
    // Stack s is stackFrameIds[stackRanges[s].first .. stackRanges[s].second), innermost frame first as torch
    // records it; stack 0 is empty.
    std::vector<FrameId> stackFrameIds;
    std::vector<std::pair<uint32_t, uint32_t>> stackRanges;

    std::span<const FrameId> stackFrames(StackId stack) const;
    const StackFrame& frame(FrameId id) const { return frames[id]; }
    std::string_view actionName(const TraceEntry& entry) const;

    int64_t reservedBytes() const;  // sum of the segments' total_size
    int64_t allocatedBytes() const; // sum of the segments' allocated_size
    size_t blockCount() const;
};

// Reads a snapshot pickle (plain or gzip). Throws io::TraceFileError naming the file: a pickle the decoder
// refuses (truncated, code opcodes, limits), or a structure that is not a snapshot ("segments[2].blocks[0]:
// missing 'size'"). Unknown keys are ignored.
AllocatorSnapshot loadAllocatorSnapshot(const std::string& path);
// The same from bytes in memory (plain or gzip); `name` names the data in errors.
AllocatorSnapshot allocatorSnapshotFromBytes(std::string bytes, const std::string& name, const io::PickleLimits& limits = {});

// A Python frame (line > 0, a real file name) that is not torch's own (its file is not under a `torch/`
// folder: site-packages/torch, dist-packages/torch, a source checkout's torch/).
bool isUserFrame(const StackFrame& frame);
// The innermost user frame of a stack, as PyTorch's memory_viz shows first; nullopt when there is none.
std::optional<FrameId> userFrame(const AllocatorSnapshot& snapshot, StackId stack);
// The stack's frames with its user frame moved to the front (the rest in torch's innermost-first order).
std::vector<FrameId> framesUserFirst(const AllocatorSnapshot& snapshot, StackId stack);

// Allocated and reserved bytes of one device over its trace, for a graph.
struct MemoryReplayPoint
{
    int64_t timeUs;         // the entry's time_us (kNoTimeUs when absent)
    uint32_t entry;         // index in deviceTraces[device]
    int64_t allocatedBytes; // after the entry
    int64_t reservedBytes;
};

struct DeviceMemoryReplay
{
    int device = 0;
    // Before the first entry: what was allocated and reserved before recording began (the ring buffer
    // dropped or never saw it), so that the series ends at the state the segments hold.
    int64_t initialAllocatedBytes = 0;
    int64_t initialReservedBytes = 0;
    // At dump time, from the segments: requested bytes of the blocks not yet free_completed
    // (active_allocated and active_pending_free) and total_size of the segments.
    int64_t finalAllocatedBytes = 0;
    int64_t finalReservedBytes = 0;
    std::vector<MemoryReplayPoint> points; // one per entry that changes a figure, in trace order
    int64_t peakAllocatedBytes = 0;        // maxima including the initial values
    int64_t peakReservedBytes = 0;
    // False when the trace cannot end at the segments' state from non-negative starting values (a
    // snapshot whose trace and segments disagree); the series is still anchored at the final state.
    bool consistent = true;
};

// Replays deviceTraces[device]: alloc / free_completed change allocated, segment_alloc / segment_free /
// segment_map / segment_unmap change reserved; free_requested, snapshot and oom change neither. The start
// is seeded so the series ends at the final state of the segments, as torch/cuda/_memory_viz.py treats
// blocks that pre-date the ring buffer.
DeviceMemoryReplay replayDeviceMemory(const AllocatorSnapshot& snapshot, int device);

} // namespace tilescope::memory
