// SPDX-License-Identifier: MIT
#pragma once

#include <functional>
#include <string>

namespace tilescope::io {

// Small text files TileScope writes or reads whole (session configs, manifests, the harness).
// Both throw TraceFileError naming the file; `what` says what it is ("the session config").
std::string readTextFile(const std::string& path, const std::string& what);
void writeTextFile(const std::string& path, const std::string& text, const std::string& what);

// Writes PATH through PATH.tmp and a rename, so a reader never sees half a file (manifests, calibration,
// sidecars, exports). `check`, when given, sees the temporary file before anything is replaced and may throw
// to keep the old file; the temporary is removed then. Throws TraceFileError naming PATH.
void writeTextFileAtomically(const std::string& path, const std::string& text, const std::string& what,
                             const std::function<void(const std::string& temporaryPath)>& check = {});

} // namespace tilescope::io
