// SPDX-License-Identifier: MIT
#pragma once

#include "io/smalljson.h"

#include <filesystem>
#include <string>
#include <vector>

namespace tilescope::torchtool {

// DIR/tilescope-session.json (docs/sessions.md, "Manifest"). Written last: its presence means the
// session ended, `status` says how.
struct Manifest
{
    std::string mode;   // "torchscript" or "calibrate"
    bool ok = false;
    std::string torch;  // TORCH_VERSION of the LibTorch built against
    std::string profiler;     // "kineto" or "legacy"; empty when nothing was profiled
    io::Json device;          // a JSON object; null when not known yet
    std::string trace;        // paths relative to DIR, empty when not produced
    std::string calibration;
    io::Json capture;         // a JSON object describing what ran (model, inputs, counts, options); null before
    std::string error;        // the failure, when !ok
    std::vector<std::string> notes;

    std::string toJson() const;
};

inline constexpr const char* kManifestName = "tilescope-session.json";

// Writes DIR/tilescope-session.json atomically and returns its path.
std::filesystem::path writeManifest(const std::filesystem::path& dir, const Manifest& manifest);

} // namespace tilescope::torchtool
