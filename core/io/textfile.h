// SPDX-License-Identifier: MIT
#pragma once

#include <string>

namespace tilescope::io {

// Small text files TileScope writes or reads whole (session configs, manifests, the harness).
// Both throw TraceFileError naming the file; `what` says what it is ("the session config").
std::string readTextFile(const std::string& path, const std::string& what);
void writeTextFile(const std::string& path, const std::string& text, const std::string& what);

} // namespace tilescope::io
