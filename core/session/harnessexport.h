// SPDX-License-Identifier: MIT
#pragma once

#include "session/sessionconfig.h"

#include <string>

namespace tilescope::session {

// A standalone copy of the Python harness with the config embedded, to run on a remote GPU box as
// `python FILE.py [--out DIR]`; TileScope then opens the folder it writes. Script and Kernel modes only.
// Throws std::invalid_argument when the harness text has no EMBEDDED_CONFIG line or the mode is not Python.
std::string exportHarness(const SessionConfig& config, const std::string& harnessText);

// Reads the harness, exports it and writes FILE; throws TraceFileError naming the file that failed.
void writeExportedHarness(const SessionConfig& config, const std::string& harnessPath, const std::string& outPath);

} // namespace tilescope::session
