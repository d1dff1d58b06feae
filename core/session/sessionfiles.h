// SPDX-License-Identifier: MIT
#pragma once

#include "memory/memoryfiles.h"

// The names in a session folder (docs/sessions.md, "Output folder"): the one list the runner, the app and
// tilescope-torch use. The Python harness (resources/harness/tilescope_harness.py) spells the same names.
namespace tilescope::session {

inline constexpr const char* kManifestFile = "tilescope-session.json";      // written last: "complete"
inline constexpr const char* kConfigFile = "tilescope-session-config.json"; // the config the session ran with
inline constexpr const char* kTraceFile = "trace.pt.trace.json";
inline constexpr const char* kKeyAveragesFile = "key_averages.json";
inline constexpr const char* kCalibrationFile = "calibration.json";
// --memory-snapshot: torch.cuda.memory._dump_snapshot's pickle of the allocator's history (a pickle is a
// program: read it only with TileScope's data-only decoder, never with Python's unpickler).
inline constexpr const char* kMemorySnapshotFile = memory::kSessionSnapshotFile;
// --memory-timeline: prof.export_memory_timeline's [times, sizes per category]. The app finds a timeline
// beside a trace by this stem (*memory_timeline*.json), and a Command session's trace search skips it.
inline constexpr const char* kMemoryTimelineFile = "memory_timeline.json";
inline constexpr const char* kMemoryTimelineStem = memory::kTimelineStem;
inline constexpr const char* kSessionFilePrefix = "tilescope-session"; // the manifest and the config

// The prefix of a progress line on the child's stdout (docs/sessions.md, "Progress lines").
inline constexpr const char* kProgressPrefix = "@tilescope ";

} // namespace tilescope::session
