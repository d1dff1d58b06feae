// SPDX-License-Identifier: MIT
#include "torchcapture.h"

#include "failure.h"
#include "inputspec.h"
#include "manifest.h"
#include "outputfiles.h"
#include "profilers.h"
#include "progress.h"
#include "io/smalljson.h"
#include "sessionerror.h"
#include "session/sessionfiles.h"
#include "torchdevice.h"
#include "torchinputs.h"

#include <torch/script.h>

#include <filesystem>

namespace tilescope::torchtool {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kInputSeed = 0;

io::Json captureJson(const CaptureOptions& o, const std::vector<TensorSpec>& specs)
{
    io::Json inputs = io::Json::array();
    for (const TensorSpec& spec : specs)
        inputs.push_back(formatTensorSpec(spec));
    return {{"model", fs::absolute(o.model).string()},
            {"inputs", std::move(inputs)},
            {"seed", kInputSeed},
            {"warmup", o.warmup},
            {"iters", o.iters},
            {"label", kForwardLabel},
            {"record_shapes", o.recordShapes},
            {"profile_memory", o.profileMemory},
            {"with_stack", o.withStack},
            {"with_flops", o.recordShapes}};
}

torch::jit::Module loadModel(const std::string& path, const c10::Device& device)
{
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
        throw SessionError("TorchScript model not found: " + path);
    try {
        torch::jit::Module module = torch::jit::load(path, device);
        module.eval();
        return module;
    } catch (const c10::Error& e) {
        throw SessionError("cannot load TorchScript model " + path + ": " + firstLine(e.what_without_backtrace()));
    }
}

std::unique_ptr<TraceRecorder> chooseRecorder(const std::string& wanted, const ProfilerOptions& options, const fs::path& dir,
                                              std::vector<std::string>& notes)
{
    if (wanted == "legacy")
        return makeLegacyRecorder(options);
    const bool kineto = kinetoAvailable(options, dir);
    if (wanted == "kineto" && !kineto)
        throw SessionError("--profiler kineto: this LibTorch (" + torchVersion() + ") was built without Kineto (USE_KINETO=0)");
    if (kineto)
        return makeKinetoRecorder(options);
    notes.push_back("this LibTorch (" + torchVersion() + ") has no Kineto: used the legacy autograd profiler, CPU ops only"
                    + std::string(options.cuda ? " (with per-op CUDA time, no kernels)" : ""));
    return makeLegacyRecorder(options);
}

void runSession(const CaptureOptions& o, const fs::path& dir, Progress& progress, Manifest& manifest)
{
    progress.phase("setup", "parsing the input spec");
    const std::vector<TensorSpec> specs = parseSpecOrThrow(o.inputs);
    manifest.capture = captureJson(o, specs);
    const DeviceChoice choice = parseDeviceChoice(o.device);
    const c10::Device device = openDevice(choice);
    manifest.device = deviceJson(choice);

    progress.phase("setup", "loading " + o.model + " on " + choice.text());
    torch::jit::Module module = loadModel(o.model, device);
    std::vector<c10::IValue> inputs = makeInputs(specs, device, kInputSeed);
    // Inference: no autograd graph, as torch.no_grad() in the Python harness.
    torch::NoGradGuard noGrad;

    // Warm-up outside the profiler: TorchScript's profiling executor specialises and optimises the graph
    // during the first calls, and the allocator and cuBLAS warm up.
    for (int k = 1; k <= o.warmup; ++k) {
        progress.phase("warmup", "warm-up " + std::to_string(k) + "/" + std::to_string(o.warmup), k, o.warmup);
        module.forward(inputs);
    }
    synchronize(choice);

    const ProfilerOptions profilerOptions{choice.cuda, o.recordShapes, o.profileMemory, o.withStack};
    const std::unique_ptr<TraceRecorder> recorder = chooseRecorder(o.profiler, profilerOptions, dir, manifest.notes);
    manifest.profiler = recorder->name();
    recorder->start();
    for (int k = 1; k <= o.iters; ++k) {
        progress.phase("profile", "profile " + std::to_string(k) + "/" + std::to_string(o.iters), k, o.iters);
        RECORD_USER_SCOPE(kForwardLabel);
        module.forward(inputs);
    }
    // Inside the profiled window, so the last kernels are complete when the trace is collected.
    synchronize(choice);

    progress.phase("export", "writing " + std::string(session::kTraceFile) + " (" + recorder->name() + ")");
    const fs::path trace = dir / session::kTraceFile;
    recorder->stopAndSave(trace);
    manifest.trace = session::kTraceFile;
    progress.artifact("trace", trace.string());
}

} // namespace

int runCapture(const CaptureOptions& o, Progress& progress)
{
    fs::path dir;
    try {
        dir = prepareOutputDir(o.out);
    } catch (const SessionError& e) {
        return reportFailure(progress, e.what(), e.exitCode());
    }
    Manifest manifest;
    manifest.mode = "torchscript";
    manifest.torch = torchVersion();
    int exitCode = kExitOk;
    std::string failure;
    try {
        if (o.warmup < 0 || o.iters < 1)
            throw SessionError("--warmup must be >= 0 and --iters >= 1", kExitUsage);
        runSession(o, dir, progress, manifest);
        manifest.ok = true;
    } catch (const SessionError& e) {
        failure = e.what();
        exitCode = e.exitCode();
    } catch (const c10::Error& e) {
        failure = "torch error: " + firstLine(e.what_without_backtrace());
        exitCode = kExitFailed;
    } catch (const std::exception& e) {
        failure = std::string("error: ") + e.what();
        exitCode = kExitFailed;
    }
    manifest.error = failure;
    try {
        const fs::path path = writeManifest(dir, manifest);
        progress.artifact("manifest", path.string());
        if (exitCode != kExitOk)
            return reportFailure(progress, failure, exitCode);
        progress.phase("done", "captured " + std::to_string(o.iters) + " calls of " + o.model);
        progress.result(path.string());
    } catch (const SessionError& e) {
        return reportFailure(progress, failure.empty() ? e.what() : failure + "; " + e.what(), kExitFailed);
    }
    return kExitOk;
}

} // namespace tilescope::torchtool
