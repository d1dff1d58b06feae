// SPDX-License-Identifier: MIT
#include "manifest.h"

#include "outputfiles.h"

namespace tilescope::torchtool {

std::string Manifest::toJson() const
{
    io::Json j = {{"version", 1}, {"mode", mode}, {"status", ok ? "ok" : "failed"}, {"torch", torch}};
    if (!profiler.empty())
        j["profiler"] = profiler;
    if (!device.is_null())
        j["device"] = device;
    if (!trace.empty())
        j["trace"] = trace;
    if (!calibration.empty())
        j["calibration"] = calibration;
    if (!capture.is_null())
        j["capture"] = capture;
    if (!error.empty())
        j["error"] = error;
    j["notes"] = notes;
    return io::dumpJson(j) + "\n";
}

std::filesystem::path writeManifest(const std::filesystem::path& dir, const Manifest& manifest)
{
    const std::filesystem::path path = dir / kManifestName;
    writeFileAtomically(path, manifest.toJson());
    return path;
}

} // namespace tilescope::torchtool
