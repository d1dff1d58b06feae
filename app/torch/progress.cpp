// SPDX-License-Identifier: MIT
#include "progress.h"

#include "report/jsonwriter.h"

#include <cstdio>

namespace tilescope::torchtool {

void Progress::emit(const std::string& json)
{
    // stdio, not iostream: LibTorch and Kineto log through stdio too, and lines must never interleave mid-line.
    std::fputs(("@tilescope " + json + "\n").c_str(), stdout);
    std::fflush(stdout);
}

void Progress::phase(std::string_view phase, std::string_view message, std::optional<int> step, std::optional<int> of)
{
    report::JsonWriter w;
    w.beginObject().key("event").value("phase").key("phase").value(phase);
    if (step)
        w.key("step").value(*step);
    if (of)
        w.key("of").value(*of);
    w.key("message").value(message).endObject();
    emit(w.text());
}

void Progress::artifact(std::string_view kind, const std::string& absolutePath)
{
    report::JsonWriter w;
    w.beginObject().key("event").value("artifact").key("kind").value(kind).key("path").value(absolutePath).endObject();
    emit(w.text());
}

void Progress::result(const std::string& manifestPath, const std::string& calibrationPath)
{
    report::JsonWriter w;
    w.beginObject().key("event").value("result");
    if (!manifestPath.empty())
        w.key("manifest").value(manifestPath);
    if (!calibrationPath.empty())
        w.key("calibration").value(calibrationPath);
    w.endObject();
    emit(w.text());
}

void Progress::error(std::string_view message)
{
    report::JsonWriter w;
    w.beginObject().key("event").value("error").key("message").value(message).endObject();
    emit(w.text());
}

} // namespace tilescope::torchtool
