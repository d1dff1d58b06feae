// SPDX-License-Identifier: MIT
#include "capturecommand.h"

#include "inputerror.h"

#include "io/textfile.h"
#include "io/tracefileerror.h"
#include "session/childprocess.h"
#include "session/harnessexport.h"
#include "session/pythonlocator.h"
#include "session/sessionrunner.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace tilescope::cli {

using namespace tilescope::session;

const char* const kCaptureUsage
    = R"(  capture (--script FILE | --kernel MOD:FN --ref MOD:FN --inputs SPEC | --torchscript MODEL.pt --inputs SPEC
           | --command 'TEMPLATE with {out}' | --config SESSION.json) --out DIR [options] [-- SCRIPT_ARGS]
      runs a profiling session in a child process group and prints the trace's path. Options:
        --python EXE            interpreter (a venv's python); default: python3 when it has torch, else the
                                first with torch of $VIRTUAL_ENV/bin/python, $CONDA_PREFIX/bin/python,
                                /usr/bin/python3 (the one used is named)
        --device cpu|cuda|cuda:N   default: cuda when torch sees one, else cpu
        --cwd DIR  --env NAME=VALUE (repeatable)  --timeout SECONDS  --cpu-only
        --warmup N (10)  --iters N (5)            kernel/torchscript calls before / inside the profiled window
        --schedule WAIT,WARMUP,ACTIVE,REPEAT      script mode: steps advance on optimizer.step() or
                                                  tilescope.step(); without it the whole script is profiled
        --activities cpu,cuda   what torch.profiler records (default both; --cpu-only: cpu, on the cpu device)
        --no-record-shapes --profile-memory --with-stack --no-flops
        --memory-snapshot       record the CUDA allocator's history around the profiled window into
                                DIR/memory_snapshot.pickle (--memory-snapshot-entries N: its ring buffer, 100000)
        --memory-timeline       torch's per-category memory timeline of the window into DIR/memory_timeline.json
                                (turns on record shapes, profile memory and with stack, which it needs)
                                both: script and kernel modes, CUDA and torch >= 2.1; refused otherwise
        --flops F --bytes B [--ref-flops F --ref-bytes B]   work per call, into the annotations sidecar
        --rtol X --atol X (1e-2)  --kernel-factory          kernel mode: allclose tolerances; MOD:FN builds it
        --save-config FILE      also write the session config (re-run it with --config)
        --export-harness FILE   write a standalone Python script for this session and exit (run it on a
                                remote GPU box: python FILE [--out DIR]; open the folder it writes)
        --quiet                 no log lines, only progress
      exit status: 0 ok, 1 the session failed (its error and the end of stderr are printed), 2 usage,
      3 the kernel did not match its reference (the trace is still written)
)";

const char* const kCalibrateUsage = R"(  calibrate [--device cpu|cuda:N] --out FILE [--quick]
      measures the ceilings the roofline uses (copy bandwidth, GEMM rates) through tilescope-torch;
      use FILE with classify/device --ceilings
)";

namespace {

constexpr int kExitSessionFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitCheckFailed = 3;

std::atomic<bool> g_cancel{false};

void onInterrupt(int) { g_cancel.store(true); }

struct Usage
{
    std::string message;
};

double number(const std::string& text, const std::string& option)
{
    double v = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || ptr != text.data() + text.size())
        throw Usage{"--" + option + " expects a number, got '" + text + "'"};
    return v;
}

int whole(const std::string& text, const std::string& option, int minimum)
{
    int v = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || ptr != text.data() + text.size() || v < minimum)
        throw Usage{"--" + option + " expects a whole number >= " + std::to_string(minimum) + ", got '" + text + "'"};
    return v;
}

std::vector<std::string> commaSeparated(const std::string& text)
{
    std::vector<std::string> parts;
    for (size_t start = 0;;) {
        const size_t comma = text.find(',', start);
        parts.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos)
            return parts;
        start = comma + 1;
    }
}

ProfileSchedule parseSchedule(const std::string& text)
{
    std::vector<int> parts;
    for (const std::string& part : commaSeparated(text))
        parts.push_back(whole(part, "schedule", 0));
    if (parts.size() != 4 || parts[2] < 1)
        throw Usage{"--schedule expects WAIT,WARMUP,ACTIVE,REPEAT with ACTIVE >= 1, got '" + text + "'"};
    return {parts[0], parts[1], parts[2], parts[3]};
}

struct CaptureArguments
{
    SessionConfig config;
    std::string saveConfig, exportHarness;
    bool quiet = false;
    bool pythonGiven = false;
};

CaptureArguments parseCapture(int argc, char** argv)
{
    CaptureArguments a;
    SessionConfig& c = a.config;
    std::optional<SessionMode> mode;
    const auto setMode = [&](SessionMode m) {
        if (mode && *mode != m)
            throw Usage{"capture takes one of --script, --kernel, --torchscript, --command or --config"};
        mode = m;
    };
    bool cpuOnly = false;
    for (int i = 2; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--") {
            for (++i; i < argc; ++i)
                c.args.emplace_back(argv[i]);
            break;
        }
        if (!arg.starts_with("--"))
            throw Usage{"unexpected argument '" + arg + "' (script arguments go after --)"};
        std::string name = arg.substr(2), value;
        bool inlineValue = false;
        if (const size_t eq = name.find('='); eq != std::string::npos) {
            value = name.substr(eq + 1);
            name = name.substr(0, eq);
            inlineValue = true;
        }
        static const std::vector<std::string> flags = {"cpu-only",        "no-record-shapes", "profile-memory", "with-stack", "no-flops",
                                                       "memory-snapshot", "memory-timeline",  "kernel-factory", "quiet"};
        const bool isFlag = std::find(flags.begin(), flags.end(), name) != flags.end();
        if (isFlag && inlineValue)
            throw Usage{"option --" + name + " takes no value"};
        if (!isFlag && !inlineValue) {
            if (i + 1 >= argc)
                throw Usage{"option --" + name + " needs a value"};
            value = argv[++i];
        }
        if (name == "config") { // give it first: options after it override the file
            c = readSessionConfig(value);
            setMode(c.mode);
        } else if (name == "script") {
            setMode(SessionMode::Script);
            c.script = value;
        } else if (name == "kernel") {
            setMode(SessionMode::Kernel);
            c.kernel = value;
        } else if (name == "ref") {
            setMode(SessionMode::Kernel);
            c.reference = value;
        } else if (name == "torchscript") {
            setMode(SessionMode::TorchScript);
            c.torchscript = value;
        } else if (name == "command") {
            setMode(SessionMode::Command);
            c.command = value;
        } else if (name == "inputs") {
            c.inputs = value;
        } else if (name == "out") {
            c.outputDirectory = value;
        } else if (name == "python") {
            c.python = value;
            a.pythonGiven = true;
        } else if (name == "device") {
            c.device = value;
        } else if (name == "cwd") {
            c.workingDirectory = value;
        } else if (name == "env") {
            const size_t eq = value.find('=');
            if (eq == std::string::npos || eq == 0)
                throw Usage{"--env expects NAME=VALUE, got '" + value + "'"};
            c.environment.emplace_back(value.substr(0, eq), value.substr(eq + 1));
        } else if (name == "timeout") {
            c.timeoutSeconds = number(value, name);
        } else if (name == "warmup") {
            c.warmupIterations = whole(value, name, 0);
        } else if (name == "iters") {
            c.measuredIterations = whole(value, name, 1);
        } else if (name == "schedule") {
            c.schedule = parseSchedule(value);
        } else if (name == "flops") {
            c.flopsPerCall = number(value, name);
        } else if (name == "bytes") {
            c.bytesPerCall = number(value, name);
        } else if (name == "ref-flops") {
            c.refFlopsPerCall = number(value, name);
        } else if (name == "ref-bytes") {
            c.refBytesPerCall = number(value, name);
        } else if (name == "rtol") {
            c.rtol = number(value, name);
        } else if (name == "atol") {
            c.atol = number(value, name);
        } else if (name == "save-config") {
            a.saveConfig = value;
        } else if (name == "export-harness") {
            a.exportHarness = value;
        } else if (name == "cpu-only") {
            cpuOnly = true;
        } else if (name == "no-record-shapes") {
            c.recordShapes = false;
        } else if (name == "profile-memory") {
            c.profileMemory = true;
        } else if (name == "with-stack") {
            c.withStack = true;
        } else if (name == "no-flops") {
            c.withFlops = false;
        } else if (name == "memory-snapshot") {
            c.memorySnapshot = true;
        } else if (name == "memory-timeline") {
            c.memoryTimeline = true;
        } else if (name == "memory-snapshot-entries") {
            c.memorySnapshotMaxEntries = whole(value, name, 1);
        } else if (name == "activities") {
            c.cpuActivity = c.cudaActivity = false;
            for (const std::string& activity : commaSeparated(value)) {
                if (activity == "cpu")
                    c.cpuActivity = true;
                else if (activity == "cuda")
                    c.cudaActivity = true;
                else if (!activity.empty()) // '': none (a command session records what it records)
                    throw Usage{"--activities expects cpu, cuda or cpu,cuda, got '" + value + "'"};
            }
        } else if (name == "kernel-factory") {
            c.kernelFactory = true;
        } else if (name == "quiet") {
            a.quiet = true;
        } else {
            throw Usage{"unknown option --" + name + " for 'capture'"};
        }
    }
    if (!mode)
        throw Usage{"capture needs --script, --kernel/--ref, --torchscript, --command or --config"};
    c.mode = *mode;
    if (cpuOnly) {
        c.cudaActivity = false;
        c.cpuActivity = true;
        if (c.device.empty())
            c.device = "cpu";
    }
    return a;
}

std::string progressText(const SessionEvent& e)
{
    std::string s = "[" + e.phase;
    if (e.step >= 0)
        s += " " + std::to_string(e.step) + (e.of > 0 ? "/" + std::to_string(e.of) : std::string());
    return s + "] " + e.message;
}

} // namespace

int runCaptureCommand(int argc, char** argv)
{
    CaptureArguments a;
    try {
        a = parseCapture(argc, argv);
    } catch (const Usage& u) {
        return printUsageError("capture", u.message);
    }
    const SessionTools tools = locateSessionTools(currentExecutablePath(argv[0]));
    if (!a.saveConfig.empty()) {
        io::writeTextFile(a.saveConfig, toJson(a.config), "the session config");
    }
    if (!a.exportHarness.empty()) {
        if (tools.harness.empty())
            throw io::TraceFileError("tilescope_harness.py", std::nullopt, "the TileScope harness was not found; set TILESCOPE_HARNESS");
        writeExportedHarness(a.config, tools.harness, a.exportHarness);
        std::cout << a.exportHarness << "\n";
        std::cerr << "tilescope-cli: wrote " << a.exportHarness << "; run it with: python3 " << a.exportHarness
                  << " [--out DIR], then open DIR in TileScope\n";
        return 0;
    }
    const std::vector<std::string> problems = validate(a.config);
    if (!problems.empty()) {
        for (const std::string& p : problems)
            std::cerr << "tilescope-cli: capture: " << p << "\n";
        return kExitUsage;
    }
    if (!a.pythonGiven) {
        // Without --python, prefer an interpreter that has torch; when none has, the harness reports it.
        const std::string note = resolveDefaultPython(a.config);
        if (!note.empty())
            std::cerr << "tilescope-cli: " << note << "\n";
    }
    std::signal(SIGINT, onInterrupt);
    std::signal(SIGTERM, onInterrupt);
    const SessionResult r = runSession(
        a.config, tools,
        [&](const SessionEvent& e) {
            switch (e.kind) {
            case SessionEvent::Kind::Phase: std::cerr << progressText(e) << "\n"; break;
            case SessionEvent::Kind::Log:
                if (!a.quiet)
                    std::cerr << (e.fromStderr ? "  ! " : "  ") << e.message << "\n";
                break;
            case SessionEvent::Kind::Error: std::cerr << "  error: " << e.message << "\n"; break;
            case SessionEvent::Kind::Artifact:
            case SessionEvent::Kind::Result:
                if (!a.quiet)
                    std::cerr << "  " << e.message << "\n";
                break;
            }
        },
        &g_cancel);
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    for (const std::string& note : r.manifest.notes)
        std::cerr << "tilescope-cli: note: " << note << "\n";
    bool checkFailed = false;
    for (const SessionCheck& check : r.manifest.checks) {
        std::cerr << "tilescope-cli: check " << check.name << ": " << (check.passed ? "passed" : "FAILED")
                  << (check.detail.empty() ? "" : " (" + check.detail + ")") << "\n";
        checkFailed = checkFailed || !check.passed;
    }
    // Also after a failure: the allocator's history of a run that ran out of memory is what explains it.
    if (!r.memorySnapshotPath.empty())
        std::cerr << "tilescope-cli: memory snapshot: " << r.memorySnapshotPath << "\n";
    if (!r.memoryTimelinePath.empty())
        std::cerr << "tilescope-cli: memory timeline: " << r.memoryTimelinePath << "\n";
    if (r.status != SessionResult::Status::Ok) {
        std::cerr << "tilescope-cli: capture " << statusName(r.status) << ": " << r.error << "\n";
        std::cerr << "  command: " << r.commandLine << "\n";
        if (!r.stderrTail.empty() && !a.quiet) {
            std::cerr << "  last lines of stderr:\n";
            for (const std::string& line : r.stderrTail)
                std::cerr << "    " << line << "\n";
        }
        if (!r.tracePath.empty())
            std::cerr << "  a partial trace was written: " << r.tracePath << "\n";
        return kExitSessionFailed;
    }
    std::cout << (r.tracePath.empty() ? r.calibrationPath : r.tracePath) << "\n";
    return checkFailed ? kExitCheckFailed : 0;
}

int runCalibrateCommand(int argc, char** argv)
{
    const SessionTools tools = locateSessionTools(currentExecutablePath(argv[0]));
    if (tools.torchTool.empty()) {
        std::cerr << "tilescope-cli: calibrate needs tilescope-torch, which is built only where LibTorch is found "
                     "(Debian: libtorch-dev; or set TILESCOPE_TORCH)\n";
        return kExitSessionFailed;
    }
    ChildSpec spec;
    spec.argv = {tools.torchTool, "calibrate"};
    for (int i = 2; i < argc; ++i)
        spec.argv.emplace_back(argv[i]);
    std::signal(SIGINT, onInterrupt);
    const ChildOutcome outcome = runChild(
        spec,
        [](const std::string& line, bool isStderr) {
            const SessionEvent e = parseSessionLine(line, isStderr);
            if (e.kind == SessionEvent::Kind::Phase)
                std::cerr << progressText(e) << "\n";
            else if (e.kind == SessionEvent::Kind::Error)
                std::cerr << "  error: " << e.message << "\n";
            else if (e.kind == SessionEvent::Kind::Log)
                (isStderr ? std::cerr : std::cout) << e.message << "\n";
        },
        &g_cancel);
    std::signal(SIGINT, SIG_DFL);
    if (!outcome.started) {
        std::cerr << "tilescope-cli: calibrate: " << outcome.startError << "\n";
        return kExitSessionFailed;
    }
    if (outcome.cancelled)
        std::cerr << "tilescope-cli: calibrate cancelled\n";
    return outcome.exited ? outcome.exitCode : kExitSessionFailed;
}

} // namespace tilescope::cli
