// SPDX-License-Identifier: MIT
#include "session/manifestwriter.h"

#include "io/textfile.h"
#include "session/sessionfiles.h"

#include <filesystem>

namespace tilescope::session {

std::string manifestJson(const ManifestRecord& m)
{
    io::Json j = {{"version", 1}, {"mode", m.mode}, {"status", m.ok ? "ok" : "failed"}};
    if (!m.torch.empty())
        j["torch"] = m.torch;
    if (!m.profiler.empty())
        j["profiler"] = m.profiler;
    if (!m.device.is_null())
        j["device"] = m.device;
    if (!m.trace.empty())
        j["trace"] = m.trace;
    if (!m.calibration.empty())
        j["calibration"] = m.calibration;
    if (!m.capture.is_null())
        j["capture"] = m.capture;
    if (!m.error.empty())
        j["error"] = m.error;
    j["notes"] = m.notes;
    return io::dumpJson(j) + "\n";
}

std::string writeSessionManifest(const std::string& dir, const ManifestRecord& manifest)
{
    const std::string path = (std::filesystem::path(dir) / kManifestFile).string();
    io::writeTextFileAtomically(path, manifestJson(manifest), "the session manifest");
    return path;
}

} // namespace tilescope::session
