// SPDX-License-Identifier: MIT
#include "progress.h"

#include "io/smalljson.h"

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
    io::Json j = {{"event", "phase"}, {"phase", std::string(phase)}};
    if (step)
        j["step"] = *step;
    if (of)
        j["of"] = *of;
    j["message"] = std::string(message);
    emit(io::dumpJson(j));
}

void Progress::artifact(std::string_view kind, const std::string& absolutePath)
{
    emit(io::dumpJson({{"event", "artifact"}, {"kind", std::string(kind)}, {"path", absolutePath}}));
}

void Progress::result(const std::string& manifestPath, const std::string& calibrationPath)
{
    io::Json j = {{"event", "result"}};
    if (!manifestPath.empty())
        j["manifest"] = manifestPath;
    if (!calibrationPath.empty())
        j["calibration"] = calibrationPath;
    emit(io::dumpJson(j));
}

void Progress::error(std::string_view message)
{
    emit(io::dumpJson({{"event", "error"}, {"message", std::string(message)}}));
}

} // namespace tilescope::torchtool
