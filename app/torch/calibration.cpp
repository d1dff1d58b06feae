// SPDX-License-Identifier: MIT
#include "calibration.h"

#include "devicetimer.h"
#include "failure.h"
#include "manifest.h"
#include "outputfiles.h"
#include "progress.h"
#include "io/smalljson.h"
#include "sessionerror.h"
#include "session/sessionfiles.h"
#include "torchdevice.h"

#include <torch/torch.h>

#include <filesystem>
#include <functional>
#include <vector>

namespace tilescope::torchtool {

namespace fs = std::filesystem;

namespace {

constexpr int kWarmupRuns = 2;

// What one calibrate run measures, from roofline.md §4: a device-to-device copy_ of a 2 GiB float32
// tensor counted as read + write, and 8192³ torch.mm per dtype. The CPU gets smaller sizes (its copy
// and SGEMM rates settle well below these) and only fp32; --quick shrinks everything for tests.
struct Plan
{
    int64_t copyBytes;
    int64_t mmSize;
    int runs;
};

Plan planFor(const CalibrationOptions& o, bool cuda)
{
    Plan plan = cuda ? Plan{int64_t(2) << 30, 8192, 10} : Plan{int64_t(512) << 20, 2048, 10};
    if (o.quick)
        plan = Plan{int64_t(16) << 20, cuda ? 1024 : 256, 3};
    if (o.runs)
        plan.runs = *o.runs;
    return plan;
}

struct Measurement
{
    std::string key;                                    // calibration.json key
    std::string label;                                  // progress message
    std::function<double(const DeviceTimer&, int)> run; // returns the rate (per second), median of N runs
};

double medianRate(const DeviceTimer& timer, int runs, double work, const std::function<void()>& step)
{
    for (int i = 0; i < kWarmupRuns; ++i)
        step();
    std::vector<double> seconds;
    for (int i = 0; i < runs; ++i)
        seconds.push_back(timer.seconds(step));
    return work / median(seconds);
}

Measurement copyMeasurement(const c10::Device& device, int64_t bytes)
{
    return {"copy_bytes_per_s", "copy_ of " + std::to_string(bytes >> 20) + " MiB float32 (read + write)",
            [device, bytes](const DeviceTimer& timer, int runs) {
                const auto options = torch::TensorOptions().dtype(torch::kFloat).device(device);
                const torch::Tensor source = torch::ones({bytes / 4}, options);
                torch::Tensor destination = torch::empty_like(source);
                return medianRate(timer, runs, 2.0 * static_cast<double>(bytes), [&] { destination.copy_(source); });
            }};
}

// An n³ torch.mm in `type`; with allowTf32 the float32 case runs on TF32 tensor cores.
Measurement mmMeasurement(const std::string& key, const std::string& what, const c10::Device& device, int64_t n, c10::ScalarType type,
                          bool allowTf32)
{
    return {key, what + " mm " + std::to_string(n) + "^3", [=](const DeviceTimer& timer, int runs) {
                at::Context& context = at::globalContext();
                const bool previous = context.allowTF32CuBLAS();
                context.setAllowTF32CuBLAS(allowTf32);
                const auto options = torch::TensorOptions().dtype(type).device(device);
                const torch::Tensor a = torch::randn({n, n}, options), b = torch::randn({n, n}, options);
                torch::Tensor c = torch::empty({n, n}, options);
                const double rate = medianRate(timer, runs, 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n),
                                               [&] { torch::mm_out(c, a, b); });
                context.setAllowTF32CuBLAS(previous);
                return rate;
            }};
}

std::vector<Measurement> measurementsFor(const DeviceChoice& choice, const c10::Device& device, const Plan& plan)
{
    std::vector<Measurement> list{copyMeasurement(device, plan.copyBytes)};
    if (choice.cuda) {
        list.push_back(mmMeasurement("bf16_mm_flops_per_s", "bf16", device, plan.mmSize, torch::kBFloat16, false));
        list.push_back(mmMeasurement("fp16_mm_flops_per_s", "fp16", device, plan.mmSize, torch::kHalf, false));
        list.push_back(mmMeasurement("fp32_notf32_mm_flops_per_s", "fp32 (TF32 off)", device, plan.mmSize, torch::kFloat, false));
        list.push_back(mmMeasurement("tf32_mm_flops_per_s", "tf32", device, plan.mmSize, torch::kFloat, true));
    } else {
        list.push_back(mmMeasurement("fp32_notf32_mm_flops_per_s", "fp32", device, plan.mmSize, torch::kFloat, false));
    }
    return list;
}

bool wantsFolder(const std::string& out)
{
    std::error_code ec;
    return (!out.empty() && out.back() == '/') || fs::is_directory(out, ec);
}

std::string measure(const CalibrationOptions& o, Progress& progress, Manifest& manifest)
{
    const DeviceChoice choice = parseDeviceChoice(o.device);
    const c10::Device device = openDevice(choice);
    manifest.device = deviceJson(choice);
    const Plan plan = planFor(o, choice.cuda);
    if (plan.runs < 1)
        throw SessionError("--runs must be >= 1", kExitUsage);
    const DeviceTimer timer(choice);
    torch::manual_seed(0);
    torch::NoGradGuard noGrad;

    io::Json file = io::Json::object();
    const std::vector<Measurement> list = measurementsFor(choice, device, plan);
    for (size_t i = 0; i < list.size(); ++i) {
        const Measurement& m = list[i];
        progress.phase("calibrate", m.label + " on " + choice.text() + ", median of " + std::to_string(plan.runs), int(i + 1),
                       int(list.size()));
        file[m.key] = io::jsonNumber(m.run(timer, plan.runs));
    }
    if (choice.cuda) {
        if (const auto p = gpuProperties(choice.index)) {
            file["gpu"] = p->name;
            file["sms"] = p->sms;
            file["cc"] = std::to_string(p->major) + "." + std::to_string(p->minor);
        } else {
            manifest.notes.push_back("built without the CUDA runtime headers: no GPU name, SM count or capability");
        }
    } else {
        file["cpu"] = cpuName();
        file["threads"] = at::get_num_threads();
    }
    file["torch"] = torchVersion();
    file["device"] = choice.text();
    file["timing"] = timer.method();
    file["runs"] = plan.runs;
    file["copy_bytes"] = plan.copyBytes;
    file["mm_size"] = plan.mmSize;
    file["quick"] = o.quick;
    // Indented one space per level, like the json.dump(indent=1) of the H200 calibration.json.
    return io::dumpJson(file, 1) + "\n";
}

} // namespace

int runCalibration(const CalibrationOptions& o, Progress& progress)
{
    if (o.out.empty())
        return reportFailure(progress, "no output: pass --out FILE", kExitUsage);
    // A folder gets a session folder's layout (docs/sessions.md): calibration.json and the manifest.
    const bool folder = wantsFolder(o.out);
    fs::path dir, file;
    try {
        dir = prepareOutputDir(folder ? o.out : fs::absolute(o.out).parent_path().string());
        file = folder ? dir / session::kCalibrationFile : fs::absolute(o.out);
    } catch (const SessionError& e) {
        return reportFailure(progress, e.what(), e.exitCode());
    }
    Manifest manifest;
    manifest.mode = "calibrate";
    manifest.torch = torchVersion();
    int exitCode = kExitOk;
    try {
        progress.phase("setup", "calibrating " + o.device + (o.quick ? " (quick)" : ""));
        writeFileAtomically(file, measure(o, progress, manifest));
        progress.artifact("calibration", file.string());
        manifest.ok = true;
        manifest.calibration = file.filename().string();
    } catch (const SessionError& e) {
        manifest.error = e.what();
        exitCode = e.exitCode();
    } catch (const c10::Error& e) {
        manifest.error = "torch error: " + firstLine(e.what_without_backtrace());
        exitCode = kExitFailed;
    } catch (const std::exception& e) {
        manifest.error = std::string("error: ") + e.what();
        exitCode = kExitFailed;
    }
    fs::path manifestPath;
    if (folder) {
        try {
            manifestPath = writeManifest(dir, manifest);
            progress.artifact("manifest", manifestPath.string());
        } catch (const SessionError& e) {
            return reportFailure(progress, manifest.error.empty() ? e.what() : manifest.error + "; " + e.what(), kExitFailed);
        }
    }
    if (exitCode != kExitOk)
        return reportFailure(progress, manifest.error, exitCode);
    progress.phase("done", "wrote " + file.string());
    progress.result(manifestPath.string(), file.string());
    return kExitOk;
}

} // namespace tilescope::torchtool
