// SPDX-License-Identifier: MIT
#pragma once

#include "session/manifestwriter.h"

#include <filesystem>

namespace tilescope::torchtool {

// DIR/tilescope-session.json (docs/sessions.md, "Manifest"), written by core's session::writeSessionManifest.
// Written last: its presence means the session ended, `status` says how.
using Manifest = session::ManifestRecord;

// Writes the manifest atomically and returns its path; throws SessionError when it cannot.
std::filesystem::path writeManifest(const std::filesystem::path& dir, const Manifest& manifest);

} // namespace tilescope::torchtool
