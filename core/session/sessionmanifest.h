// SPDX-License-Identifier: MIT
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tilescope::session {

struct SessionCheck
{
    std::string name; // "allclose"
    bool passed = false;
    std::optional<double> maxAbsError;
    std::string detail;
};

struct KernelSource
{
    std::string kernel; // the kernel name in the trace, when known
    std::string path;   // absolute
};

// DIR/tilescope-session.json (docs/sessions.md); paths are made absolute against DIR.
struct SessionManifest
{
    std::string mode, status, torch, profiler, deviceName;
    std::string trace, keyAverages, annotations, calibration;
    std::string memorySnapshot, memoryTimeline; // "memory_snapshot", "memory_timeline"; empty when not recorded
    std::vector<KernelSource> sources;
    std::vector<SessionCheck> checks;
    std::vector<std::string> notes;
};

// Throws TraceFileError naming the file when it is not a manifest.
SessionManifest readSessionManifest(const std::string& path);

// The manifest of a folder that holds one, else nullopt; lets the app open a session folder.
std::optional<std::string> manifestInFolder(const std::string& folder);

} // namespace tilescope::session
