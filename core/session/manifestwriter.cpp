// SPDX-License-Identifier: MIT
#include "session/manifestwriter.h"

#include "io/textfile.h"
#include "report/jsonwriter.h"
#include "session/sessionfiles.h"

#include <filesystem>

namespace tilescope::session {

std::string manifestJson(const ManifestRecord& m)
{
    report::JsonWriter w;
    w.beginObject().key("version").value(1).key("mode").value(m.mode).key("status").value(m.ok ? "ok" : "failed");
    if (!m.torch.empty())
        w.key("torch").value(m.torch);
    if (!m.profiler.empty())
        w.key("profiler").value(m.profiler);
    if (!m.deviceJson.empty())
        w.key("device").raw(m.deviceJson);
    if (!m.trace.empty())
        w.key("trace").value(m.trace);
    if (!m.calibration.empty())
        w.key("calibration").value(m.calibration);
    if (!m.captureJson.empty())
        w.key("capture").raw(m.captureJson);
    if (!m.error.empty())
        w.key("error").value(m.error);
    w.key("notes").beginArray();
    for (const std::string& note : m.notes)
        w.value(note);
    w.endArray().endObject();
    return w.text() + "\n";
}

std::string writeSessionManifest(const std::string& dir, const ManifestRecord& manifest)
{
    const std::string path = (std::filesystem::path(dir) / kManifestFile).string();
    io::writeTextFileAtomically(path, manifestJson(manifest), "the session manifest");
    return path;
}

} // namespace tilescope::session
