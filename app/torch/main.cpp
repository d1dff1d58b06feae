// SPDX-License-Identifier: MIT
// tilescope-torch: the LibTorch child process of a TileScope session (docs/sessions.md). It profiles a
// TorchScript module in-process or measures a device's roofline ceilings, reporting progress as
// `@tilescope {json}` lines on stdout. Kept apart from tilescope-cli so only this binary links torch.
#include "calibration.h"
#include "failure.h"
#include "progress.h"
#include "sessionerror.h"
#include "torchcapture.h"
#include "version.h"

#include <charconv>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

using namespace tilescope::torchtool;

namespace {

constexpr const char* kUsage
    = "usage:\n"
      "  tilescope-torch capture --torchscript MODEL.pt --out DIR [--inputs SPEC] [--device cpu|cuda[:N]]\n"
      "                          [--warmup N (10)] [--iters N (5)] [--record-shapes] [--profile-memory] [--with-stack]\n"
      "                          [--profiler auto|kineto|legacy]\n"
      "  tilescope-torch calibrate [--device cpu|cuda[:N]] --out FILE|DIR/ [--quick] [--runs N]\n"
      "  tilescope-torch --version\n"
      "SPEC: comma-separated DTYPE:DIMS, e.g. float32:4096x4096,bf16:64x128 (docs/sessions.md)\n";

struct UsageError
{
    std::string message;
};

int parseCount(std::string_view option, const std::string& text)
{
    int value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value < 0)
        throw UsageError{std::string(option) + " needs a non-negative integer, got '" + text + "'"};
    return value;
}

// Options of one command: those taking a value and flags, each with what to do with it.
struct OptionTable
{
    std::map<std::string, std::function<void(const std::string&)>, std::less<>> values;
    std::map<std::string, std::function<void()>, std::less<>> flags;

    void parse(const std::vector<std::string>& args) const
    {
        for (size_t i = 0; i < args.size(); ++i) {
            const std::string& arg = args[i];
            if (const auto flag = flags.find(arg); flag != flags.end()) {
                flag->second();
            } else if (const auto value = values.find(arg); value != values.end()) {
                if (i + 1 >= args.size())
                    throw UsageError{arg + " needs a value"};
                value->second(args[++i]);
            } else {
                throw UsageError{"unknown option '" + arg + "'"};
            }
        }
    }
};

int capture(const std::vector<std::string>& args, Progress& progress)
{
    CaptureOptions o;
    bool haveInputs = false;
    OptionTable table;
    table.values = {{"--torchscript", [&](const std::string& v) { o.model = v; }},
                    {"--inputs",
                     [&](const std::string& v) {
                         o.inputs = v;
                         haveInputs = true;
                     }},
                    {"--out", [&](const std::string& v) { o.out = v; }},
                    {"--device", [&](const std::string& v) { o.device = v; }},
                    {"--profiler",
                     [&](const std::string& v) {
                         if (v != "auto" && v != "kineto" && v != "legacy")
                             throw UsageError{"--profiler must be auto, kineto or legacy, got '" + v + "'"};
                         o.profiler = v;
                     }},
                    {"--warmup", [&](const std::string& v) { o.warmup = parseCount("--warmup", v); }},
                    {"--iters", [&](const std::string& v) { o.iters = parseCount("--iters", v); }}};
    table.flags = {{"--record-shapes", [&] { o.recordShapes = true; }},
                   {"--profile-memory", [&] { o.profileMemory = true; }},
                   {"--with-stack", [&] { o.withStack = true; }}};
    table.parse(args);
    if (o.model.empty())
        throw UsageError{"capture needs --torchscript MODEL.pt"};
    if (o.out.empty())
        throw UsageError{"capture needs --out DIR"};
    (void)haveInputs; // no --inputs: forward() takes no arguments
    return runCapture(o, progress);
}

int calibrate(const std::vector<std::string>& args, Progress& progress)
{
    CalibrationOptions o;
    OptionTable table;
    table.values = {{"--device", [&](const std::string& v) { o.device = v; }},
                    {"--out", [&](const std::string& v) { o.out = v; }},
                    {"--runs", [&](const std::string& v) { o.runs = parseCount("--runs", v); }}};
    table.flags = {{"--quick", [&] { o.quick = true; }}};
    table.parse(args);
    if (o.out.empty())
        throw UsageError{"calibrate needs --out FILE"};
    return runCalibration(o, progress);
}

} // namespace

int main(int argc, char** argv)
{
    Progress progress;
    const std::vector<std::string> all(argv + 1, argv + argc);
    if (all.empty() || all[0] == "--help" || all[0] == "-h") {
        std::fputs(kUsage, all.empty() ? stderr : stdout);
        return all.empty() ? kExitUsage : kExitOk;
    }
    if (all[0] == "--version") {
        std::printf("tilescope-torch %s (commit %s)\n", tilescope::kVersion, tilescope::kCommit);
        return kExitOk;
    }
    const std::vector<std::string> args(all.begin() + 1, all.end());
    try {
        if (all[0] == "capture")
            return capture(args, progress);
        if (all[0] == "calibrate")
            return calibrate(args, progress);
        throw UsageError{"unknown command '" + all[0] + "' (capture or calibrate)"};
    } catch (const UsageError& e) {
        reportFailure(progress, e.message, kExitUsage);
        std::fputs(kUsage, stderr);
        return kExitUsage;
    }
}
