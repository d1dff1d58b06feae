// SPDX-License-Identifier: MIT
#pragma once

#include "memory/allocatorsnapshot.h"
#include "memory/memorytimeline.h"

#include <string>

namespace tilescope::report {

// `tilescope-cli memory FILE` when FILE is not a trace: an allocator snapshot or a memory timeline.

enum class MemoryFileKind : uint8_t {
    AllocatorSnapshot, // a pickle (PROTO byte 0x80 first, after gunzip)
    MemoryTimeline,    // a JSON array whose first element is an array ("[[", whitespace aside)
    Other              // anything else: a trace, or not memory data
};
// Looks at the first bytes only (gzip inflated). Throws io::TraceFileError when the file cannot be read.
MemoryFileKind detectMemoryFile(const std::string& path);

// {"segments": COUNT, "reserved_bytes", "allocated_bytes" (sums of total_size and allocated_size),
//  "ooms": [{"requested_bytes", "device_free_bytes", "frames": [{"name", "filename", "line"}]}],
//  "actions": {ACTION: COUNT} (over all devices, in torch's order, only those present),
//  "largest_blocks": [{"size", "requested_size", "state", "frames"}] (the 10 largest blocks that are not
//  inactive, largest first)}. Every "frames" list holds all the recorded frames with the user frame
//  (memory::userFrame) moved to the front, then the others innermost first as torch records them.
std::string snapshotJson(const memory::AllocatorSnapshot& snapshot);
std::string snapshotText(const memory::AllocatorSnapshot& snapshot);

// {"form": "sizes"|"raw", "rows", "first_time_us", "last_time_us", "peak_total_bytes", "peak_total_time_us",
//  "final_total_bytes", "categories": [{"name", "color" (#rrggbb), "torch_color", "peak_bytes",
//  "peak_time_us", "final_bytes"}] (torch's 8, in its order), and for the raw form "raw_records" and
//  "raw_actions": {"PREEXISTING", "CREATE", "INCREMENT_VERSION", "DESTROY"}}. Times are epoch µs; a peak's
//  time is the first row that reaches it; times are null for an empty timeline.
std::string memoryTimelineJson(const memory::MemoryTimeline& timeline);
std::string memoryTimelineText(const memory::MemoryTimeline& timeline);

// Reads PATH by content as a snapshot or a timeline and returns its report, `format` "table" or "json".
// Throws io::TraceFileError for a file that is neither ("...: not an allocator snapshot or a memory
// timeline") or is malformed.
std::string memoryFileReport(const std::string& path, const std::string& format);

} // namespace tilescope::report
