// SPDX-License-Identifier: MIT
#include "session/captureargs.h"

#include "io/decimal.h"
#include "session/sessionfiles.h"

#include <filesystem>

namespace tilescope::session {

std::vector<std::string> captureArguments(const SessionConfig& c)
{
    const SessionConfig defaults;
    std::vector<std::string> argv = {"tilescope-cli"};
    const auto option = [&](const char* name, const std::string& value) { argv.insert(argv.end(), {name, value}); };
    const auto number = [&](const char* name, double value) { option(name, io::formatShortest(value)); };
    const auto flag = [&](const char* name, bool on) {
        if (on)
            argv.emplace_back(name);
    };
    if (c.mode == SessionMode::Calibrate) {
        argv.emplace_back("calibrate");
        if (!c.device.empty())
            option("--device", c.device);
        option("--out",
               c.outputDirectory.empty() ? std::string(kCalibrationFile)
                                         : (std::filesystem::path(c.outputDirectory) / kCalibrationFile).string());
        flag("--quick", c.quick);
        return argv;
    }
    argv.emplace_back("capture");
    switch (c.mode) {
    case SessionMode::Script: option("--script", c.script); break;
    case SessionMode::Kernel:
        option("--kernel", c.kernel);
        option("--ref", c.reference);
        break;
    case SessionMode::TorchScript: option("--torchscript", c.torchscript); break;
    case SessionMode::Command: option("--command", c.command); break;
    case SessionMode::Calibrate: break;
    }
    flag("--kernel-factory", c.kernelFactory);
    if (!c.inputs.empty())
        option("--inputs", c.inputs);
    if (!c.outputDirectory.empty())
        option("--out", c.outputDirectory);
    if (c.python != defaults.python)
        option("--python", c.python);
    if (!c.device.empty())
        option("--device", c.device);
    if (!c.workingDirectory.empty())
        option("--cwd", c.workingDirectory);
    for (const auto& [name, value] : c.environment)
        option("--env", name + "=" + value);
    if (c.timeoutSeconds != defaults.timeoutSeconds)
        number("--timeout", c.timeoutSeconds);
    if (c.cpuActivity != defaults.cpuActivity || c.cudaActivity != defaults.cudaActivity)
        option("--activities",
               std::string(c.cpuActivity ? "cpu" : "") + (c.cpuActivity && c.cudaActivity ? "," : "") + (c.cudaActivity ? "cuda" : ""));
    if (c.warmupIterations != defaults.warmupIterations)
        option("--warmup", std::to_string(c.warmupIterations));
    if (c.measuredIterations != defaults.measuredIterations)
        option("--iters", std::to_string(c.measuredIterations));
    if (c.schedule)
        option("--schedule",
               std::to_string(c.schedule->wait) + "," + std::to_string(c.schedule->warmup) + "," + std::to_string(c.schedule->active) + ","
                   + std::to_string(c.schedule->repeat));
    flag("--no-record-shapes", !c.recordShapes);
    flag("--profile-memory", c.profileMemory);
    flag("--with-stack", c.withStack);
    flag("--no-flops", !c.withFlops);
    flag("--memory-snapshot", c.memorySnapshot);
    if (c.memorySnapshotMaxEntries != defaults.memorySnapshotMaxEntries)
        option("--memory-snapshot-entries", std::to_string(c.memorySnapshotMaxEntries));
    flag("--memory-timeline", c.memoryTimeline);
    for (const auto& [name, value] : {std::pair{"--flops", c.flopsPerCall},
                                      {"--bytes", c.bytesPerCall},
                                      {"--ref-flops", c.refFlopsPerCall},
                                      {"--ref-bytes", c.refBytesPerCall}})
        if (value)
            number(name, *value);
    if (c.rtol != defaults.rtol)
        number("--rtol", c.rtol);
    if (c.atol != defaults.atol)
        number("--atol", c.atol);
    if (!c.args.empty()) {
        argv.emplace_back("--");
        argv.insert(argv.end(), c.args.begin(), c.args.end());
    }
    return argv;
}

} // namespace tilescope::session
