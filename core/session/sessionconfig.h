// SPDX-License-Identifier: MIT
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tilescope::session {

enum class SessionMode {
    Script,      // a Python script under torch.profiler
    Kernel,      // a module:callable kernel against a module:callable reference
    TorchScript, // a TorchScript module profiled in-process by LibTorch (tilescope-torch)
    Command,     // any command line that writes traces into {out}
    Calibrate,   // measure the roofline's ceilings (tilescope-torch calibrate)
};
const char* modeName(SessionMode mode);
std::optional<SessionMode> modeFromName(const std::string& name);

// torch.profiler.schedule: steps advance on each optimizer step or tilescope.step().
struct ProfileSchedule
{
    int wait = 1, warmup = 1, active = 3, repeat = 1;
};

// Everything a profiling session needs, JSON-serialisable (docs/sessions.md). The Python harness reads
// the same JSON, so a saved config re-runs the session, here or on another machine.
struct SessionConfig
{
    SessionMode mode = SessionMode::Script;

    std::string script;            // Script: the .py file
    std::vector<std::string> args; // Script: its arguments
    std::string kernel, reference; // Kernel: "module:callable" or "path/file.py:callable"
    bool kernelFactory = false;    // Kernel: call kernel() once (outside the profiler) to build it
    std::string inputs;            // Kernel, TorchScript: docs/sessions.md input spec
    std::string torchscript;       // TorchScript: the .pt file
    std::string command;           // Command: template with {out} and {python}

    std::string python = "python3"; // the interpreter (a venv's python works)
    std::vector<std::pair<std::string, std::string>> environment;
    std::string workingDirectory; // empty: the output folder's parent... see resolvedWorkingDirectory
    std::string device;           // empty: cuda when available, else cpu; or "cpu", "cuda", "cuda:N"

    bool cpuActivity = true, cudaActivity = true;
    int warmupIterations = 10;               // Kernel, TorchScript: calls before the profiled window
    int measuredIterations = 5;              // Kernel, TorchScript: calls inside it
    std::optional<ProfileSchedule> schedule; // Script: unset profiles the whole script
    bool recordShapes = true, profileMemory = false, withStack = false, withFlops = true;
    // Script, Kernel (docs/sessions.md, "Memory recording"): the CUDA allocator's history around the profiled
    // window (memory_snapshot.pickle), and torch's per-category memory timeline (memory_timeline.json; the
    // harness turns on recordShapes, profileMemory and withStack for it). Both need CUDA and torch >= 2.1.
    bool memorySnapshot = false, memoryTimeline = false;
    int memorySnapshotMaxEntries = 100000; // _record_memory_history(max_entries=): the history's ring buffer

    std::optional<double> flopsPerCall, bytesPerCall;       // Kernel: into the annotations sidecar
    std::optional<double> refFlopsPerCall, refBytesPerCall; // Kernel: for the reference region
    double rtol = 1e-2, atol = 1e-2;                        // Kernel: the allclose check
    bool quick = false;                                     // Calibrate: small sizes, few runs

    std::string outputDirectory;
    double timeoutSeconds = 0; // 0: none
};

std::string toJson(const SessionConfig& config);
// Throws TraceFileError naming `sourceName` when the JSON is malformed or a field has the wrong type.
SessionConfig sessionConfigFromJson(std::string_view json, const std::string& sourceName);
SessionConfig readSessionConfig(const std::string& path);

// What is missing or contradictory, as sentences a user can act on; empty when the config can run.
std::vector<std::string> validate(const SessionConfig& config);

} // namespace tilescope::session
