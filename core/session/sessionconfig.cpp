// SPDX-License-Identifier: MIT
#include "session/sessionconfig.h"

#include "io/jsonvalue.h"
#include "io/tracefileerror.h"
#include "report/jsonwriter.h"

#include <filesystem>

namespace tilescope::session {

namespace {

constexpr std::pair<SessionMode, const char*> kModes[] = {
    {SessionMode::Script, "script"},           {SessionMode::Kernel, "kernel"},
    {SessionMode::TorchScript, "torchscript"}, {SessionMode::Command, "command"},
    {SessionMode::Calibrate, "calibrate"},
};

struct Reader
{
    const io::JsonValue& object;
    const std::string& source;

    [[noreturn]] void fail(const std::string& key, const char* want) const
    {
        throw io::TraceFileError(source, std::nullopt, "session config: '" + key + "' must be " + want);
    }
    void string(const char* key, std::string& out) const
    {
        if (const io::JsonValue* v = object.find(key)) {
            if (v->type != io::JsonValue::Type::String)
                fail(key, "a string");
            out = v->text;
        }
    }
    void boolean(const char* key, bool& out) const
    {
        if (const io::JsonValue* v = object.find(key)) {
            if (v->type != io::JsonValue::Type::Bool)
                fail(key, "true or false");
            out = v->boolean;
        }
    }
    void number(const char* key, double& out) const
    {
        if (const io::JsonValue* v = object.find(key)) {
            if (!v->number())
                fail(key, "a number");
            out = *v->number();
        }
    }
    void optionalNumber(const char* key, std::optional<double>& out) const
    {
        if (const io::JsonValue* v = object.find(key); v && v->type != io::JsonValue::Type::Null) {
            if (!v->number())
                fail(key, "a number or null");
            out = *v->number();
        }
    }
    void integer(const char* key, int& out, int minimum) const
    {
        if (const io::JsonValue* v = object.find(key)) {
            const auto i = v->integer();
            if (!i || *i < minimum || *i > 1000000000)
                fail(key, minimum == 0 ? "a whole number >= 0" : "a whole number >= 1");
            out = static_cast<int>(*i);
        }
    }
};

} // namespace

const char* modeName(SessionMode mode)
{
    for (const auto& [m, name] : kModes)
        if (m == mode)
            return name;
    return "script";
}

std::optional<SessionMode> modeFromName(const std::string& name)
{
    for (const auto& [m, n] : kModes)
        if (name == n)
            return m;
    return std::nullopt;
}

std::string toJson(const SessionConfig& c)
{
    report::JsonWriter w;
    w.beginObject();
    w.key("version").value(1);
    w.key("mode").value(modeName(c.mode));
    w.key("script").value(c.script);
    w.key("args").beginArray();
    for (const std::string& a : c.args)
        w.value(a);
    w.endArray();
    w.key("kernel").value(c.kernel);
    w.key("reference").value(c.reference);
    w.key("kernel_factory").value(c.kernelFactory);
    w.key("inputs").value(c.inputs);
    w.key("torchscript").value(c.torchscript);
    w.key("command").value(c.command);
    w.key("python").value(c.python);
    w.key("env").beginObject();
    for (const auto& [k, v] : c.environment)
        w.key(k).value(v);
    w.endObject();
    w.key("cwd").value(c.workingDirectory);
    w.key("device").value(c.device);
    w.key("activities").beginArray();
    if (c.cpuActivity)
        w.value("cpu");
    if (c.cudaActivity)
        w.value("cuda");
    w.endArray();
    w.key("warmup").value(c.warmupIterations);
    w.key("iters").value(c.measuredIterations);
    w.key("schedule");
    if (c.schedule) {
        w.beginObject();
        w.key("wait").value(c.schedule->wait).key("warmup").value(c.schedule->warmup);
        w.key("active").value(c.schedule->active).key("repeat").value(c.schedule->repeat);
        w.endObject();
    } else {
        w.null();
    }
    w.key("record_shapes").value(c.recordShapes);
    w.key("profile_memory").value(c.profileMemory);
    w.key("with_stack").value(c.withStack);
    w.key("with_flops").value(c.withFlops);
    const auto optional = [&](const char* key, const std::optional<double>& v) {
        w.key(key);
        v ? (void)w.value(*v) : (void)w.null();
    };
    optional("flops", c.flopsPerCall);
    optional("bytes", c.bytesPerCall);
    optional("ref_flops", c.refFlopsPerCall);
    optional("ref_bytes", c.refBytesPerCall);
    w.key("rtol").value(c.rtol);
    w.key("atol").value(c.atol);
    w.key("quick").value(c.quick);
    w.key("out").value(c.outputDirectory);
    w.key("timeout_s").value(c.timeoutSeconds);
    w.endObject();
    return w.text() + "\n";
}

namespace {

SessionConfig sessionConfigFromValue(const io::JsonValue& root, const std::string& sourceName)
{
    if (!root.isObject())
        throw io::TraceFileError(sourceName, std::nullopt, "session config: expected a JSON object");
    const Reader r{root, sourceName};
    SessionConfig c;
    std::string mode = modeName(c.mode);
    r.string("mode", mode);
    const auto m = modeFromName(mode);
    if (!m)
        throw io::TraceFileError(sourceName, std::nullopt,
                                 "session config: unknown mode '" + mode + "' (script, kernel, torchscript, command, calibrate)");
    c.mode = *m;
    r.string("script", c.script);
    if (const io::JsonValue* args = root.find("args")) {
        if (args->type != io::JsonValue::Type::Array)
            r.fail("args", "a list of strings");
        for (const io::JsonValue& a : args->items) {
            if (a.type != io::JsonValue::Type::String)
                r.fail("args", "a list of strings");
            c.args.push_back(a.text);
        }
    }
    r.string("kernel", c.kernel);
    r.string("reference", c.reference);
    r.boolean("kernel_factory", c.kernelFactory);
    r.string("inputs", c.inputs);
    r.string("torchscript", c.torchscript);
    r.string("command", c.command);
    r.string("python", c.python);
    if (const io::JsonValue* env = root.find("env")) {
        if (!env->isObject())
            r.fail("env", "an object of strings");
        for (size_t i = 0; i < env->keys.size(); ++i) {
            if (env->values[i].type != io::JsonValue::Type::String)
                r.fail("env." + env->keys[i], "a string");
            c.environment.emplace_back(env->keys[i], env->values[i].text);
        }
    }
    r.string("cwd", c.workingDirectory);
    r.string("device", c.device);
    if (const io::JsonValue* acts = root.find("activities")) {
        if (acts->type != io::JsonValue::Type::Array)
            r.fail("activities", "a list of \"cpu\" and \"cuda\"");
        c.cpuActivity = c.cudaActivity = false;
        for (const io::JsonValue& a : acts->items) {
            if (a.type == io::JsonValue::Type::String && a.text == "cpu")
                c.cpuActivity = true;
            else if (a.type == io::JsonValue::Type::String && a.text == "cuda")
                c.cudaActivity = true;
            else
                r.fail("activities", "a list of \"cpu\" and \"cuda\"");
        }
    }
    r.integer("warmup", c.warmupIterations, 0);
    r.integer("iters", c.measuredIterations, 1);
    if (const io::JsonValue* s = root.find("schedule"); s && s->type != io::JsonValue::Type::Null) {
        if (!s->isObject())
            r.fail("schedule", "null or {\"wait\", \"warmup\", \"active\", \"repeat\"}");
        ProfileSchedule ps;
        const Reader sr{*s, sourceName};
        sr.integer("wait", ps.wait, 0);
        sr.integer("warmup", ps.warmup, 0);
        sr.integer("active", ps.active, 1);
        sr.integer("repeat", ps.repeat, 0);
        c.schedule = ps;
    }
    r.boolean("record_shapes", c.recordShapes);
    r.boolean("profile_memory", c.profileMemory);
    r.boolean("with_stack", c.withStack);
    r.boolean("with_flops", c.withFlops);
    r.optionalNumber("flops", c.flopsPerCall);
    r.optionalNumber("bytes", c.bytesPerCall);
    r.optionalNumber("ref_flops", c.refFlopsPerCall);
    r.optionalNumber("ref_bytes", c.refBytesPerCall);
    r.number("rtol", c.rtol);
    r.number("atol", c.atol);
    r.boolean("quick", c.quick);
    r.string("out", c.outputDirectory);
    r.number("timeout_s", c.timeoutSeconds);
    return c;
}

} // namespace

SessionConfig sessionConfigFromJson(std::string_view json, const std::string& sourceName)
{
    return sessionConfigFromValue(io::parseSmallJson(json, sourceName), sourceName);
}

SessionConfig readSessionConfig(const std::string& path)
{
    return sessionConfigFromValue(io::readSmallJsonFile(path), path);
}

std::vector<std::string> validate(const SessionConfig& c)
{
    namespace fs = std::filesystem;
    std::vector<std::string> problems;
    const auto needFile = [&](const std::string& path, const char* what) {
        if (path.empty())
            problems.push_back(std::string("no ") + what + " given");
        else if (!fs::is_regular_file(path))
            problems.push_back(std::string(what) + " '" + path + "' does not exist or is not a file");
    };
    const auto needCallable = [&](const std::string& spec, const char* what) {
        const size_t colon = spec.rfind(':');
        if (spec.empty())
            problems.push_back(std::string("no ") + what + " given (module:callable or file.py:callable)");
        else if (colon == std::string::npos || colon == 0 || colon + 1 == spec.size())
            problems.push_back(std::string(what) + " '" + spec + "' is not module:callable or file.py:callable");
    };
    switch (c.mode) {
    case SessionMode::Script:
        needFile(c.script, "script");
        break;
    case SessionMode::Kernel:
        needCallable(c.kernel, "kernel");
        needCallable(c.reference, "reference");
        if (c.inputs.empty())
            problems.push_back("no inputs given (e.g. float32:1024x1024,float32:1024x1024)");
        break;
    case SessionMode::TorchScript:
        needFile(c.torchscript, "TorchScript module");
        break;
    case SessionMode::Command:
        if (c.command.empty())
            problems.push_back("no command given");
        else if (c.command.find("{out}") == std::string::npos)
            problems.push_back("the command has no {out}: TileScope would not know where its traces land");
        break;
    case SessionMode::Calibrate:
        break;
    }
    if (c.outputDirectory.empty())
        problems.push_back("no output folder given");
    if (!c.cpuActivity && !c.cudaActivity && c.mode != SessionMode::Calibrate && c.mode != SessionMode::Command)
        problems.push_back("no activity selected (cpu, cuda)");
    if (c.python.empty() && (c.mode == SessionMode::Script || c.mode == SessionMode::Kernel))
        problems.push_back("no Python interpreter given");
    if (!c.workingDirectory.empty() && !fs::is_directory(c.workingDirectory))
        problems.push_back("working directory '" + c.workingDirectory + "' does not exist");
    if (c.timeoutSeconds < 0)
        problems.push_back("the timeout must be 0 (none) or positive");
    return problems;
}

} // namespace tilescope::session
