// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace tilescope::memory {

struct AllocatorSnapshot;

// The names a profiling session gives them (session/sessionfiles.h spells them from here).
inline constexpr const char* kSessionSnapshotFile = "memory_snapshot.pickle";
inline constexpr const char* kTimelineStem = "memory_timeline";

// The memory files that belong with a trace, found beside it: a memory timeline (a name holding
// "memory_timeline", .json, .json.gz or .raw.json.gz) and an allocator snapshot (.pickle or .pickle.gz), as a
// profiling session writes them (session/sessionfiles.h) or a user saves them next to the trace. Of several
// candidates, the one whose name starts with the trace's stem ("run1.pt.trace.json" -> "run1"); none when
// that leaves more than one, rather than guess.
struct MemoryFilesBeside
{
    std::optional<std::string> timeline;
    std::optional<std::string> snapshot;
    bool snapshotNamedForTrace = false; // its name starts with the trace's stem, or is a session's
};
MemoryFilesBeside findMemoryFilesBeside(const std::string& tracePath);

// Why the snapshot found beside a trace is not taken as that trace's: its history was recorded wholly
// before or after the trace (another run; the memory timeline is held to the same), or it records no times
// and its name does not tie it to the trace either. Empty when it goes with the trace.
std::string snapshotBesideProblem(const AllocatorSnapshot& snapshot, bool namedForTrace, int64_t firstNs, int64_t lastNs,
                                  std::optional<int64_t> baseTimeNs);

} // namespace tilescope::memory
