// SPDX-License-Identifier: MIT
#include "session/sessionmanifest.h"

#include "io/smalljson.h"
#include "io/tracefileerror.h"
#include "session/sessionfiles.h"

#include <filesystem>

namespace tilescope::session {

namespace fs = std::filesystem;

namespace {
std::string text(const io::Json& o, const char* key) { return io::jsonText(o, key); }
std::string resolved(const fs::path& dir, const std::string& relative)
{
    if (relative.empty())
        return {};
    const fs::path p(relative);
    return (p.is_absolute() ? p : dir / p).lexically_normal().string();
}
} // namespace

SessionManifest readSessionManifest(const std::string& path)
{
    const io::Json root = io::readSmallJsonFile(path);
    if (!io::jsonMember(root, "status"))
        throw io::TraceFileError(path, std::nullopt, "not a TileScope session manifest (no \"status\")");
    const fs::path dir = fs::absolute(fs::path(path)).parent_path();
    SessionManifest m;
    m.mode = text(root, "mode");
    m.status = text(root, "status");
    m.torch = text(root, "torch");
    m.profiler = text(root, "profiler");
    if (const io::Json* d = io::jsonMember(root, "device"); d && d->is_object())
        m.deviceName = text(*d, "name");
    m.trace = resolved(dir, text(root, "trace"));
    m.keyAverages = resolved(dir, text(root, "key_averages"));
    m.annotations = resolved(dir, text(root, "annotations"));
    m.calibration = resolved(dir, text(root, "calibration"));
    m.memorySnapshot = resolved(dir, text(root, "memory_snapshot"));
    m.memoryTimeline = resolved(dir, text(root, "memory_timeline"));
    if (const io::Json* s = io::jsonMember(root, "sources"); s && s->is_array())
        for (const io::Json& item : *s)
            if (item.is_object())
                m.sources.push_back({text(item, "kernel"), resolved(dir, text(item, "path"))});
    if (const io::Json* c = io::jsonMember(root, "checks"); c && c->is_array())
        for (const io::Json& item : *c) {
            if (!item.is_object())
                continue;
            SessionCheck check;
            check.name = text(item, "name");
            if (const io::Json* p = io::jsonMember(item, "passed"))
                check.passed = p->is_boolean() && p->get<bool>();
            if (const io::Json* e = io::jsonMember(item, "max_abs_error"))
                check.maxAbsError = io::jsonDouble(e);
            check.detail = text(item, "detail");
            m.checks.push_back(check);
        }
    if (const io::Json* n = io::jsonMember(root, "notes"); n && n->is_array())
        for (const io::Json& item : *n)
            if (item.is_string())
                m.notes.push_back(item.get<std::string>());
    return m;
}

std::optional<std::string> manifestInFolder(const std::string& folder)
{
    std::error_code ec;
    const fs::path p = fs::path(folder) / kManifestFile;
    if (fs::is_directory(folder, ec) && fs::is_regular_file(p, ec))
        return p.string();
    return std::nullopt;
}

} // namespace tilescope::session
