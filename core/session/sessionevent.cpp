// SPDX-License-Identifier: MIT
#include "session/sessionevent.h"

#include "io/jsonvalue.h"
#include "io/tracefileerror.h"
#include "report/jsonwriter.h"
#include "session/sessionfiles.h"

namespace tilescope::session {

namespace {
constexpr std::string_view kPrefix = kProgressPrefix;

std::string text(const io::JsonValue& o, const char* key)
{
    const io::JsonValue* v = o.find(key);
    return v && v->type == io::JsonValue::Type::String ? v->text : std::string();
}
int integer(const io::JsonValue& o, const char* key)
{
    const io::JsonValue* v = o.find(key);
    const auto i = v ? v->integer() : std::nullopt;
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
    io::JsonValue o;
    try {
        o = io::parseSmallJson(std::string_view(line).substr(kPrefix.size()), "progress line");
    } catch (const io::TraceFileError&) {
        return e;
    }
    if (!o.isObject())
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
    report::JsonWriter w;
    w.beginObject().key("event").value("phase").key("phase").value(phase);
    if (step)
        w.key("step").value(*step);
    if (of)
        w.key("of").value(*of);
    w.key("message").value(message).endObject();
    return kProgressPrefix + w.text();
}

std::string artifactLine(std::string_view artifactKind, std::string_view absolutePath)
{
    report::JsonWriter w;
    w.beginObject().key("event").value("artifact").key("kind").value(artifactKind).key("path").value(absolutePath).endObject();
    return kProgressPrefix + w.text();
}

std::string resultLine(std::string_view manifestPath, std::string_view calibrationPath)
{
    report::JsonWriter w;
    w.beginObject().key("event").value("result");
    if (!manifestPath.empty())
        w.key("manifest").value(manifestPath);
    if (!calibrationPath.empty())
        w.key("calibration").value(calibrationPath);
    w.endObject();
    return kProgressPrefix + w.text();
}

std::string errorLine(std::string_view message)
{
    report::JsonWriter w;
    w.beginObject().key("event").value("error").key("message").value(message).endObject();
    return kProgressPrefix + w.text();
}

} // namespace tilescope::session
