// SPDX-License-Identifier: MIT
#include "session/sessionconfig.h"

#include "io/smalljson.h"
#include "io/tracefileerror.h"

#include <filesystem>

namespace tilescope::session {

namespace {

constexpr std::pair<SessionMode, const char*> kModes[] = {
    {SessionMode::Script, "script"},   {SessionMode::Kernel, "kernel"},       {SessionMode::TorchScript, "torchscript"},
    {SessionMode::Command, "command"}, {SessionMode::Calibrate, "calibrate"},
};

struct Reader
{
    const io::Json& object;
    const std::string& source;

    [[noreturn]] void fail(const std::string& key, const char* want) const
    {
        throw io::TraceFileError(source, std::nullopt, "session config: '" + key + "' must be " + want);
    }
    void string(const char* key, std::string& out) const
    {
        if (const io::Json* v = io::jsonMember(object, key)) {
            if (!v->is_string())
                fail(key, "a string");
            out = v->get<std::string>();
        }
    }
    void boolean(const char* key, bool& out) const
    {
        if (const io::Json* v = io::jsonMember(object, key)) {
            if (!v->is_boolean())
                fail(key, "true or false");
            out = v->get<bool>();
        }
    }
    void number(const char* key, double& out) const
    {
        if (const io::Json* v = io::jsonMember(object, key)) {
            if (!v->is_number())
                fail(key, "a number");
            out = v->get<double>();
        }
    }
    void optionalNumber(const char* key, std::optional<double>& out) const
    {
        if (const io::Json* v = io::jsonMember(object, key); v && !v->is_null()) {
            if (!v->is_number())
                fail(key, "a number or null");
            out = v->get<double>();
        }
    }
    void integer(const char* key, int& out, int minimum) const
    {
        if (const io::Json* v = io::jsonMember(object, key)) {
            const auto i = io::jsonInteger(v);
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
    io::Json j;
    j["version"] = 1;
    j["mode"] = modeName(c.mode);
    j["script"] = c.script;
    j["args"] = c.args;
    j["kernel"] = c.kernel;
    j["reference"] = c.reference;
    j["kernel_factory"] = c.kernelFactory;
    j["inputs"] = c.inputs;
    j["torchscript"] = c.torchscript;
    j["command"] = c.command;
    j["python"] = c.python;
    io::Json& env = j["env"] = io::Json::object();
    for (const auto& [k, v] : c.environment)
        env[k] = v;
    j["cwd"] = c.workingDirectory;
    j["device"] = c.device;
    io::Json& activities = j["activities"] = io::Json::array();
    if (c.cpuActivity)
        activities.push_back("cpu");
    if (c.cudaActivity)
        activities.push_back("cuda");
    j["warmup"] = c.warmupIterations;
    j["iters"] = c.measuredIterations;
    if (c.schedule)
        j["schedule"] = {
            {"wait", c.schedule->wait}, {"warmup", c.schedule->warmup}, {"active", c.schedule->active}, {"repeat", c.schedule->repeat}};
    else
        j["schedule"] = nullptr;
    j["record_shapes"] = c.recordShapes;
    j["profile_memory"] = c.profileMemory;
    j["with_stack"] = c.withStack;
    j["with_flops"] = c.withFlops;
    j["memory_snapshot"] = c.memorySnapshot;
    j["memory_timeline"] = c.memoryTimeline;
    j["memory_snapshot_max_entries"] = c.memorySnapshotMaxEntries;
    j["flops"] = io::jsonNumber(c.flopsPerCall);
    j["bytes"] = io::jsonNumber(c.bytesPerCall);
    j["ref_flops"] = io::jsonNumber(c.refFlopsPerCall);
    j["ref_bytes"] = io::jsonNumber(c.refBytesPerCall);
    j["rtol"] = io::jsonNumber(c.rtol);
    j["atol"] = io::jsonNumber(c.atol);
    j["quick"] = c.quick;
    j["out"] = c.outputDirectory;
    j["timeout_s"] = io::jsonNumber(c.timeoutSeconds);
    return io::dumpJson(j) + "\n";
}

namespace {

SessionConfig sessionConfigFromValue(const io::Json& root, const std::string& sourceName)
{
    if (!root.is_object())
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
    if (const io::Json* args = io::jsonMember(root, "args")) {
        if (!args->is_array())
            r.fail("args", "a list of strings");
        for (const io::Json& a : *args) {
            if (!a.is_string())
                r.fail("args", "a list of strings");
            c.args.push_back(a.get<std::string>());
        }
    }
    r.string("kernel", c.kernel);
    r.string("reference", c.reference);
    r.boolean("kernel_factory", c.kernelFactory);
    r.string("inputs", c.inputs);
    r.string("torchscript", c.torchscript);
    r.string("command", c.command);
    r.string("python", c.python);
    if (const io::Json* env = io::jsonMember(root, "env")) {
        if (!env->is_object())
            r.fail("env", "an object of strings");
        for (const auto& [key, value] : env->items()) {
            if (!value.is_string())
                r.fail("env." + key, "a string");
            c.environment.emplace_back(key, value.get<std::string>());
        }
    }
    r.string("cwd", c.workingDirectory);
    r.string("device", c.device);
    if (const io::Json* acts = io::jsonMember(root, "activities")) {
        if (!acts->is_array())
            r.fail("activities", "a list of \"cpu\" and \"cuda\"");
        c.cpuActivity = c.cudaActivity = false;
        for (const io::Json& a : *acts) {
            if (a == "cpu")
                c.cpuActivity = true;
            else if (a == "cuda")
                c.cudaActivity = true;
            else
                r.fail("activities", "a list of \"cpu\" and \"cuda\"");
        }
    }
    r.integer("warmup", c.warmupIterations, 0);
    r.integer("iters", c.measuredIterations, 1);
    if (const io::Json* s = io::jsonMember(root, "schedule"); s && !s->is_null()) {
        if (!s->is_object())
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
    r.boolean("memory_snapshot", c.memorySnapshot);
    r.boolean("memory_timeline", c.memoryTimeline);
    r.integer("memory_snapshot_max_entries", c.memorySnapshotMaxEntries, 1);
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

SessionConfig readSessionConfig(const std::string& path) { return sessionConfigFromValue(io::readSmallJsonFile(path), path); }

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
    case SessionMode::Script: needFile(c.script, "script"); break;
    case SessionMode::Kernel:
        needCallable(c.kernel, "kernel");
        needCallable(c.reference, "reference");
        if (c.inputs.empty())
            problems.push_back("no inputs given (e.g. float32:1024x1024,float32:1024x1024)");
        break;
    case SessionMode::TorchScript: needFile(c.torchscript, "TorchScript module"); break;
    case SessionMode::Command:
        if (c.command.empty())
            problems.push_back("no command given");
        else if (c.command.find("{out}") == std::string::npos)
            problems.push_back("the command has no {out}: TileScope would not know where its traces land");
        break;
    case SessionMode::Calibrate: break;
    }
    if ((c.memorySnapshot || c.memoryTimeline) && c.mode != SessionMode::Script && c.mode != SessionMode::Kernel)
        problems.push_back(std::string("the memory snapshot and timeline (--memory-snapshot, --memory-timeline) are recorded by the "
                                       "Python harness, so only in script and kernel sessions, not in a ")
                           + modeName(c.mode) + " session");
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
