// SPDX-License-Identifier: MIT
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tilescope::session {

// One line of a session's output, read as docs/sessions.md describes.
struct SessionEvent
{
    enum class Kind { Log, Phase, Artifact, Result, Error };
    Kind kind = Kind::Log;
    bool fromStderr = false;
    std::string phase;              // Phase
    int step = -1, of = -1;         // Phase, when it counts
    std::string message;            // Log: the line; Phase, Error: the text
    std::string artifactKind, path; // Artifact; Result: path is the manifest
};

// "@tilescope {json}" lines become events; other lines, and @tilescope lines whose JSON is broken,
// are log lines (a broken progress line must not end a session).
SessionEvent parseSessionLine(const std::string& line, bool fromStderr);

// The writer's side: one "@tilescope {json}" line each, without the newline (tilescope-torch prints
// them; the Python harness writes the same form itself). Empty paths are left out of a result line.
std::string phaseLine(std::string_view phase, std::string_view message, std::optional<int> step = {}, std::optional<int> of = {});
std::string artifactLine(std::string_view artifactKind, std::string_view absolutePath);
std::string resultLine(std::string_view manifestPath, std::string_view calibrationPath = {});
std::string errorLine(std::string_view message);

} // namespace tilescope::session
