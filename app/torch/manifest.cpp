// SPDX-License-Identifier: MIT
#include "manifest.h"

#include "outputfiles.h"
#include "report/jsonwriter.h"

namespace tilescope::torchtool {

std::string Manifest::toJson() const
{
    report::JsonWriter w;
    w.beginObject().key("version").value(1).key("mode").value(mode).key("status").value(ok ? "ok" : "failed");
    w.key("torch").value(torch);
    if (!profiler.empty())
        w.key("profiler").value(profiler);
    if (!deviceJson.empty())
        w.key("device").raw(deviceJson);
    if (!trace.empty())
        w.key("trace").value(trace);
    if (!calibration.empty())
        w.key("calibration").value(calibration);
    if (!captureJson.empty())
        w.key("capture").raw(captureJson);
    if (!error.empty())
        w.key("error").value(error);
    w.key("notes").beginArray();
    for (const std::string& note : notes)
        w.value(note);
    w.endArray().endObject();
    return w.text() + "\n";
}

std::filesystem::path writeManifest(const std::filesystem::path& dir, const Manifest& manifest)
{
    const std::filesystem::path path = dir / kManifestName;
    writeFileAtomically(path, manifest.toJson());
    return path;
}

} // namespace tilescope::torchtool
