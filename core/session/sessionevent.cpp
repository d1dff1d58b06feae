// SPDX-License-Identifier: MIT
#include "session/sessionevent.h"

#include "io/smalljson.h"
#include "io/tracefileerror.h"
#include "session/sessionfiles.h"

namespace tilescope::session {

namespace {
constexpr std::string_view kPrefix = kProgressPrefix;

std::string text(const io::Json& o, const char* key) { return io::jsonText(o, key); }
int integer(const io::Json& o, const char* key)
{
    const auto i = io::jsonInteger(io::jsonMember(o, key));
    return i && *i >= 0 && *i < (1 << 30) ? static_cast<int>(*i) : -1;
}
} // namespace

SessionEvent parseSessionLine(const std::string& line, bool fromStderr)
{
    SessionEvent e;
    e.fromStderr = fromStderr;
    e.message = line;
    if (fromStderr || line.compare(0, kPrefix.size(), kPrefix) != 0)
        return e;
    io::Json o;
    try {
        o = io::parseSmallJson(std::string_view(line).substr(kPrefix.size()), "progress line");
    } catch (const io::TraceFileError&) {
        return e;
    }
    if (!o.is_object())
        return e;
    const std::string kind = text(o, "event");
    if (kind == "phase") {
        e.kind = SessionEvent::Kind::Phase;
        e.phase = text(o, "phase");
        e.step = integer(o, "step");
        e.of = integer(o, "of");
        e.message = text(o, "message");
        if (e.message.empty())
            e.message = e.phase;
    } else if (kind == "artifact") {
        e.kind = SessionEvent::Kind::Artifact;
        e.artifactKind = text(o, "kind");
        e.path = text(o, "path");
        e.message = e.artifactKind + ": " + e.path;
    } else if (kind == "result") {
        e.kind = SessionEvent::Kind::Result;
        e.path = text(o, "manifest");
        e.message = "result: " + e.path;
    } else if (kind == "error") {
        e.kind = SessionEvent::Kind::Error;
        e.message = text(o, "message");
    } else if (kind == "log") {
        e.message = text(o, "message");
    }
    return e;
}

std::string phaseLine(std::string_view phase, std::string_view message, std::optional<int> step, std::optional<int> of)
{
    io::Json j = {{"event", "phase"}, {"phase", std::string(phase)}};
    if (step)
        j["step"] = *step;
    if (of)
        j["of"] = *of;
    j["message"] = std::string(message);
    return kProgressPrefix + io::dumpJson(j);
}

std::string artifactLine(std::string_view artifactKind, std::string_view absolutePath)
{
    return kProgressPrefix
        + io::dumpJson({{"event", "artifact"}, {"kind", std::string(artifactKind)}, {"path", std::string(absolutePath)}});
}

std::string resultLine(std::string_view manifestPath, std::string_view calibrationPath)
{
    io::Json j = {{"event", "result"}};
    if (!manifestPath.empty())
        j["manifest"] = std::string(manifestPath);
    if (!calibrationPath.empty())
        j["calibration"] = std::string(calibrationPath);
    return kProgressPrefix + io::dumpJson(j);
}

std::string errorLine(std::string_view message)
{
    return kProgressPrefix + io::dumpJson({{"event", "error"}, {"message", std::string(message)}});
}

} // namespace tilescope::session
