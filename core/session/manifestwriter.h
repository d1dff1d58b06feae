// SPDX-License-Identifier: MIT
#pragma once

#include "io/smalljson.h"

#include <string>
#include <vector>

namespace tilescope::session {

// What a session records in DIR/tilescope-session.json (docs/sessions.md, "Manifest"): tilescope-torch
// writes one, and the runner writes one for a command that wrote none. readSessionManifest reads it.
struct ManifestRecord
{
    std::string mode;     // "torchscript", "calibrate", "command", ...
    bool ok = false;      // "status": "ok" or "failed"
    std::string torch;    // the torch version; left out when empty
    std::string profiler; // "kineto" or "legacy"; empty when nothing was profiled
    io::Json device;      // a JSON object; null when not known
    std::string trace;    // paths relative to DIR, empty when not produced
    std::string calibration;
    io::Json capture;  // a JSON object describing what ran (model, inputs, counts, options); null before
    std::string error; // the failure, when !ok
    std::vector<std::string> notes;
};

std::string manifestJson(const ManifestRecord& manifest);

// Writes DIR/tilescope-session.json atomically and returns its path; throws TraceFileError naming it.
std::string writeSessionManifest(const std::string& dir, const ManifestRecord& manifest);

} // namespace tilescope::session
