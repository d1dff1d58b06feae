// SPDX-License-Identifier: MIT
#pragma once

#include <optional>
#include <string>

namespace tilescope::memory {

// The memory files that belong with a trace, found beside it: a memory timeline (a name holding
// "memory_timeline", .json, .json.gz or .raw.json.gz) and an allocator snapshot (.pickle or .pickle.gz), as a
// profiling session writes them (session/sessionfiles.h) or a user saves them next to the trace. Of several
// candidates, the one whose name starts with the trace's stem ("run1.pt.trace.json" -> "run1"); none when
// that leaves more than one, rather than guess.
struct MemoryFilesBeside
{
    std::optional<std::string> timeline;
    std::optional<std::string> snapshot;
};
MemoryFilesBeside findMemoryFilesBeside(const std::string& tracePath);

} // namespace tilescope::memory
