// SPDX-License-Identifier: MIT
#pragma once

#include "session/sessionconfig.h"
#include "session/sessionevent.h"
#include "session/sessionmanifest.h"

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace tilescope::session {

// Where the programs TileScope runs live.
struct SessionTools
{
    std::string harness;   // tilescope_harness.py (Script and Kernel modes)
    std::string torchTool; // tilescope-torch (TorchScript and Calibrate modes); empty when not built
    std::string app;       // tilescope, the desktop app: draws tilescope-cli report's pictures; empty when not built
};

// TILESCOPE_HARNESS / TILESCOPE_TORCH / TILESCOPE_APP override; else next to the executable, the install's
// share folder, then the build and source trees this binary came from.
SessionTools locateSessionTools(const std::string& executablePath);

// This process's executable (/proc/self/exe), or argv0 where that cannot be read.
std::string currentExecutablePath(const std::string& argv0);

struct SessionResult
{
    enum class Status { Ok, Failed, Cancelled, TimedOut };
    Status status = Status::Failed;
    std::string error;       // one paragraph for the user; empty when Ok
    std::string commandLine; // what ran, quoted as a shell would need it
    int exitCode = -1, signal = 0;
    double seconds = 0;
    std::vector<std::string> stderrTail; // the last lines of stderr (and error events)
    std::string outputDirectory, configPath, manifestPath;
    std::string tracePath; // set when a trace exists, also after a failure (it may open partially)
    std::string keyAveragesPath, annotationsPath, calibrationPath;
    std::string memorySnapshotPath, memoryTimelinePath; // --memory-snapshot, --memory-timeline: open with the trace
    SessionManifest manifest;                           // empty fields when the child wrote none
};
const char* statusName(SessionResult::Status status);

// The argv a config runs as (the harness reads its config from configPath).
std::vector<std::string> sessionCommand(const SessionConfig& config, const SessionTools& tools, const std::string& configPath);

// Runs a session to its end in a child process group: writes DIR/tilescope-session-config.json, streams
// events, honours cancel and the config's timeout, and collects what the child produced.
SessionResult runSession(const SessionConfig& config, const SessionTools& tools, const std::function<void(const SessionEvent&)>& onEvent,
                         const std::atomic<bool>* cancel = nullptr);

} // namespace tilescope::session
