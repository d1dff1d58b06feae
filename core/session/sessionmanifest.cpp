// SPDX-License-Identifier: MIT
#include "session/sessionmanifest.h"

#include "io/jsonvalue.h"
#include "io/tracefileerror.h"
#include "session/sessionfiles.h"

#include <filesystem>

namespace tilescope::session {

namespace fs = std::filesystem;

namespace {
std::string text(const io::JsonValue& o, const char* key)
{
    const io::JsonValue* v = o.find(key);
    return v && v->type == io::JsonValue::Type::String ? v->text : std::string();
}
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
    const io::JsonValue root = io::readSmallJsonFile(path);
    if (!root.isObject() || !root.find("status"))
        throw io::TraceFileError(path, std::nullopt, "not a TileScope session manifest (no \"status\")");
    const fs::path dir = fs::absolute(fs::path(path)).parent_path();
    SessionManifest m;
    m.mode = text(root, "mode");
    m.status = text(root, "status");
    m.torch = text(root, "torch");
    m.profiler = text(root, "profiler");
    if (const io::JsonValue* d = root.find("device"); d && d->isObject())
        m.deviceName = text(*d, "name");
    m.trace = resolved(dir, text(root, "trace"));
    m.keyAverages = resolved(dir, text(root, "key_averages"));
    m.annotations = resolved(dir, text(root, "annotations"));
    m.calibration = resolved(dir, text(root, "calibration"));
    if (const io::JsonValue* s = root.find("sources"); s && s->type == io::JsonValue::Type::Array)
        for (const io::JsonValue& item : s->items)
            if (item.isObject())
                m.sources.push_back({text(item, "kernel"), resolved(dir, text(item, "path"))});
    if (const io::JsonValue* c = root.find("checks"); c && c->type == io::JsonValue::Type::Array)
        for (const io::JsonValue& item : c->items) {
            if (!item.isObject())
                continue;
            SessionCheck check;
            check.name = text(item, "name");
            if (const io::JsonValue* p = item.find("passed"))
                check.passed = p->type == io::JsonValue::Type::Bool && p->boolean;
            if (const io::JsonValue* e = item.find("max_abs_error"))
                check.maxAbsError = e->number();
            check.detail = text(item, "detail");
            m.checks.push_back(check);
        }
    if (const io::JsonValue* n = root.find("notes"); n && n->type == io::JsonValue::Type::Array)
        for (const io::JsonValue& item : n->items)
            if (item.type == io::JsonValue::Type::String)
                m.notes.push_back(item.text);
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
