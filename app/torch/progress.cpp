// SPDX-License-Identifier: MIT
#include "progress.h"

#include "session/sessionevent.h"

#include <cstdio>

namespace tilescope::torchtool {

void Progress::emit(const std::string& line)
{
    // stdio, not iostream: LibTorch and Kineto log through stdio too, and lines must never interleave mid-line.
    std::fputs((line + "\n").c_str(), stdout);
    std::fflush(stdout);
}

void Progress::phase(std::string_view phase, std::string_view message, std::optional<int> step, std::optional<int> of)
{
    emit(session::phaseLine(phase, message, step, of));
}

void Progress::artifact(std::string_view kind, const std::string& absolutePath) { emit(session::artifactLine(kind, absolutePath)); }

void Progress::result(const std::string& manifestPath, const std::string& calibrationPath)
{
    emit(session::resultLine(manifestPath, calibrationPath));
}

void Progress::error(std::string_view message) { emit(session::errorLine(message)); }

} // namespace tilescope::torchtool
