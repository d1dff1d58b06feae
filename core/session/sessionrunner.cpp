// SPDX-License-Identifier: MIT
#include "session/sessionrunner.h"

#include "io/decimal.h"
#include "io/smalljson.h"
#include "io/textfile.h"
#include "io/tracefileerror.h"
#include "session/childprocess.h"
#include "session/commandline.h"
#include "session/manifestwriter.h"
#include "session/sessionfiles.h"

#include <cstdlib>
#include <deque>
#include <filesystem>

#ifndef TILESCOPE_SOURCE_DIR
#define TILESCOPE_SOURCE_DIR ""
#endif
#ifndef TILESCOPE_BINARY_DIR
#define TILESCOPE_BINARY_DIR ""
#endif

namespace tilescope::session {

namespace fs = std::filesystem;

namespace {

constexpr size_t kStderrTailLines = 30;

std::string firstExisting(const std::vector<fs::path>& candidates)
{
    std::error_code ec;
    for (const fs::path& p : candidates)
        if (!p.empty() && fs::is_regular_file(p, ec))
            return fs::absolute(p).lexically_normal().string();
    return {};
}

std::string replaceAll(std::string text, const std::string& from, const std::string& to)
{
    for (size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size())
        text.replace(at, from.size(), to);
    return text;
}

// A file the child wrote during this session (not one left from an earlier run in the same folder).
bool freshFile(const std::string& path, fs::file_time_type startedAt)
{
    std::error_code ec;
    return !path.empty() && fs::is_regular_file(path, ec) && fs::last_write_time(path, ec) >= startedAt;
}

// Traces a Command session left in its folder, newest first.
std::string newestTrace(const fs::path& dir, fs::file_time_type startedAt)
{
    std::string best;
    fs::file_time_type bestTime{};
    std::error_code ec;
    for (const auto& entry : fs::recursive_directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        const bool json = name.size() > 5 && (name.ends_with(".json") || name.ends_with(".json.gz"));
        if (!entry.is_regular_file(ec) || !json || name.starts_with(kSessionFilePrefix) || name.ends_with(".annotations.json")
            || name == kKeyAveragesFile || name == kCalibrationFile || name.find(kMemoryTimelineStem) != std::string::npos)
            continue;
        const auto t = entry.last_write_time(ec);
        if (t >= startedAt && (best.empty() || t > bestTime)) {
            best = entry.path().string();
            bestTime = t;
        }
    }
    return best;
}

// Command and Calibrate children may not write a manifest; the runner writes one for them.
void writeOwnManifest(const fs::path& dir, const SessionConfig& c, const std::string& trace, const std::string& calibration, bool ok)
{
    ManifestRecord m;
    m.mode = modeName(c.mode);
    m.ok = ok;
    if (!trace.empty())
        m.trace = fs::relative(trace, dir).string();
    if (!calibration.empty())
        m.calibration = fs::relative(calibration, dir).string();
    m.notes = {"manifest written by TileScope: the command wrote none"};
    writeSessionManifest(dir.string(), m);
}

} // namespace

const char* statusName(SessionResult::Status status)
{
    switch (status) {
    case SessionResult::Status::Ok: return "ok";
    case SessionResult::Status::Failed: return "failed";
    case SessionResult::Status::Cancelled: return "cancelled";
    case SessionResult::Status::TimedOut: return "timed out";
    }
    return "failed";
}

SessionTools locateSessionTools(const std::string& executablePath)
{
    std::error_code ec;
    fs::path exeDir = fs::weakly_canonical(fs::path(executablePath), ec).parent_path();
    const fs::path source(TILESCOPE_SOURCE_DIR), binary(TILESCOPE_BINARY_DIR);
    SessionTools t;
    const char* harnessEnv = std::getenv("TILESCOPE_HARNESS");
    t.harness = firstExisting({harnessEnv ? fs::path(harnessEnv) : fs::path(), exeDir / "harness" / "tilescope_harness.py",
                               exeDir.parent_path() / "share" / "tilescope" / "harness" / "tilescope_harness.py",
                               source.empty() ? fs::path() : source / "resources" / "harness" / "tilescope_harness.py"});
    const char* torchEnv = std::getenv("TILESCOPE_TORCH");
    t.torchTool = firstExisting({torchEnv ? fs::path(torchEnv) : fs::path(), exeDir / "tilescope-torch",
                                 exeDir / "torch" / "tilescope-torch", exeDir.parent_path() / "torch" / "tilescope-torch",
                                 binary.empty() ? fs::path() : binary / "app" / "tilescope-torch",
                                 binary.empty() ? fs::path() : binary / "app" / "torch" / "tilescope-torch"});
    const char* appEnv = std::getenv("TILESCOPE_APP");
    t.app = firstExisting(
        {appEnv ? fs::path(appEnv) : fs::path(), exeDir / "tilescope", binary.empty() ? fs::path() : binary / "app" / "tilescope"});
    return t;
}

std::string currentExecutablePath(const std::string& argv0)
{
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    return ec ? argv0 : self.string();
}

std::vector<std::string> sessionCommand(const SessionConfig& c, const SessionTools& tools, const std::string& configPath)
{
    const std::string out = c.outputDirectory;
    switch (c.mode) {
    case SessionMode::Script:
    case SessionMode::Kernel: return {c.python, "-u", tools.harness, "--config", configPath};
    case SessionMode::TorchScript: {
        std::vector<std::string> argv = {tools.torchTool, "capture",
                                         "--torchscript", c.torchscript,
                                         "--inputs",      c.inputs,
                                         "--out",         out,
                                         "--warmup",      std::to_string(c.warmupIterations),
                                         "--iters",       std::to_string(c.measuredIterations)};
        if (!c.device.empty())
            argv.insert(argv.end(), {"--device", c.device});
        if (c.recordShapes)
            argv.push_back("--record-shapes");
        if (c.profileMemory)
            argv.push_back("--profile-memory");
        if (c.withStack)
            argv.push_back("--with-stack");
        return argv;
    }
    case SessionMode::Calibrate: {
        std::vector<std::string> argv = {tools.torchTool, "calibrate", "--out", (fs::path(out) / kCalibrationFile).string()};
        if (!c.device.empty())
            argv.insert(argv.end(), {"--device", c.device});
        if (c.quick)
            argv.push_back("--quick");
        return argv;
    }
    case SessionMode::Command: {
        const std::string quotedOut = shellQuoted({out}), quotedPython = shellQuoted({c.python});
        return {"/bin/sh", "-c", replaceAll(replaceAll(c.command, "{out}", quotedOut), "{python}", quotedPython)};
    }
    }
    return {};
}

SessionResult runSession(const SessionConfig& input, const SessionTools& tools, const std::function<void(const SessionEvent&)>& onEvent,
                         const std::atomic<bool>* cancel)
{
    SessionResult result;
    SessionConfig c = input;
    const auto emit = [&](const SessionEvent& e) {
        if (onEvent)
            onEvent(e);
    };
    std::vector<std::string> problems = validate(c);
    const bool python = c.mode == SessionMode::Script || c.mode == SessionMode::Kernel;
    const bool torchTool = c.mode == SessionMode::TorchScript || c.mode == SessionMode::Calibrate;
    if (python && tools.harness.empty())
        problems.push_back("the TileScope Python harness (tilescope_harness.py) was not found; set TILESCOPE_HARNESS");
    if (torchTool && tools.torchTool.empty())
        problems.push_back("tilescope-torch (LibTorch capture) was not built here: it needs LibTorch "
                           "(Debian: libtorch-dev) at build time; or set TILESCOPE_TORCH");
    if (!problems.empty()) {
        for (const std::string& p : problems)
            result.error += (result.error.empty() ? "" : "; ") + p;
        return result;
    }
    std::error_code ec;
    const fs::path dir = fs::absolute(c.outputDirectory).lexically_normal();
    fs::create_directories(dir, ec);
    if (!fs::is_directory(dir)) {
        result.error = "cannot create the output folder '" + dir.string() + "': " + ec.message();
        return result;
    }
    c.outputDirectory = dir.string();
    if (!c.script.empty())
        c.script = fs::absolute(c.script).string();
    if (!c.torchscript.empty())
        c.torchscript = fs::absolute(c.torchscript).string();
    result.outputDirectory = dir.string();
    result.configPath = (dir / kConfigFile).string();
    // An earlier session's manifest in the same folder must not pass for this one's.
    fs::remove(dir / kManifestFile, ec);
    const auto startedAt = fs::file_time_type::clock::now() - std::chrono::seconds(1);
    try {
        io::writeTextFile(result.configPath, toJson(c), "the session config");
    } catch (const io::TraceFileError& e) {
        result.error = e.what();
        return result;
    }

    ChildSpec spec;
    spec.argv = sessionCommand(c, tools, result.configPath);
    spec.workingDirectory = c.workingDirectory;
    spec.environment = c.environment;
    spec.environment.emplace_back("PYTHONUNBUFFERED", "1");
    spec.environment.emplace_back("TILESCOPE_SESSION_OUT", dir.string());
    result.commandLine = shellQuoted(spec.argv);
    emit({SessionEvent::Kind::Phase, false, "setup", -1, -1, "running " + result.commandLine, {}, {}});

    std::deque<std::string> tail;
    std::string lastError;
    const auto onLine = [&](const std::string& line, bool isStderr) {
        SessionEvent e = parseSessionLine(line, isStderr);
        if (isStderr || e.kind == SessionEvent::Kind::Error) {
            tail.push_back(e.message);
            if (tail.size() > kStderrTailLines)
                tail.pop_front();
        }
        if (e.kind == SessionEvent::Kind::Error)
            lastError = e.message;
        emit(e);
    };
    const ChildOutcome outcome = runChild(spec, onLine, cancel, c.timeoutSeconds);
    result.exitCode = outcome.exitCode;
    result.signal = outcome.signal;
    result.seconds = outcome.seconds;
    result.stderrTail.assign(tail.begin(), tail.end());

    // What the child produced, from its manifest or from the folder.
    const fs::path manifest = dir / kManifestFile;
    const bool exitedOk = outcome.started && outcome.exited && outcome.exitCode == 0;
    if ((c.mode == SessionMode::Command || c.mode == SessionMode::Calibrate) && !fs::exists(manifest)) {
        const std::string trace = c.mode == SessionMode::Command ? newestTrace(dir, startedAt) : std::string();
        const std::string calibration = (dir / kCalibrationFile).string();
        try {
            writeOwnManifest(dir, c, trace, freshFile(calibration, startedAt) ? calibration : std::string(),
                             exitedOk && (c.mode == SessionMode::Calibrate || !trace.empty()));
        } catch (const io::TraceFileError& e) {
            lastError = e.what();
        }
    }
    if (fs::is_regular_file(manifest, ec)) {
        try {
            result.manifest = readSessionManifest(manifest.string());
            result.manifestPath = manifest.string();
        } catch (const io::TraceFileError& e) {
            lastError = e.what();
        }
    }
    const SessionManifest& m = result.manifest;
    const std::string defaultTrace = (dir / kTraceFile).string();
    const std::string trace = !m.trace.empty() ? m.trace : defaultTrace;
    if (freshFile(trace, startedAt))
        result.tracePath = trace;
    if (freshFile(m.keyAverages, startedAt))
        result.keyAveragesPath = m.keyAverages;
    if (freshFile(m.annotations, startedAt))
        result.annotationsPath = m.annotations;
    if (freshFile(m.calibration, startedAt))
        result.calibrationPath = m.calibration;
    if (freshFile(m.memorySnapshot, startedAt))
        result.memorySnapshotPath = m.memorySnapshot;
    if (freshFile(m.memoryTimeline, startedAt))
        result.memoryTimelinePath = m.memoryTimeline;

    const std::string program = spec.argv.empty() ? std::string() : fs::path(spec.argv[0]).filename().string();
    if (outcome.cancelled) {
        result.status = SessionResult::Status::Cancelled;
        result.error = "cancelled: the session's processes were ended";
    } else if (outcome.timedOut) {
        result.status = SessionResult::Status::TimedOut;
        result.error = "timed out after " + io::formatShortest(c.timeoutSeconds) + " s: the session's processes were ended";
    } else if (!outcome.started) {
        result.error = outcome.startError;
    } else if (!outcome.exited) {
        result.error = program + " was killed by signal " + std::to_string(outcome.signal);
    } else if (outcome.exitCode != 0) {
        result.error = program + " exited with code " + std::to_string(outcome.exitCode);
    } else if (result.manifestPath.empty()) {
        result.error = program + " finished without writing " + std::string(kManifestFile);
    } else if (m.status != "ok") {
        result.error = "the session reports status '" + m.status + "'";
    } else if (result.tracePath.empty() && c.mode != SessionMode::Calibrate) {
        result.error = "the session finished but wrote no trace";
    } else if (c.mode == SessionMode::Calibrate && result.calibrationPath.empty()) {
        result.error = std::string("the calibration finished but wrote no ") + kCalibrationFile;
    } else {
        result.status = SessionResult::Status::Ok;
    }
    if (result.status != SessionResult::Status::Ok && !lastError.empty())
        result.error += ": " + lastError;
    return result;
}

} // namespace tilescope::session
