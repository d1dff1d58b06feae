// SPDX-License-Identifier: MIT
#pragma once

#include <filesystem>
#include <memory>
#include <string>

namespace tilescope::torchtool {

struct ProfilerOptions
{
    bool cuda = false; // also record CUDA activity (kernels, memcpys, runtime calls)
    bool recordShapes = false;
    bool profileMemory = false;
    bool withStack = false;
};

// Records one profiled window and writes it as a Chrome trace.
class TraceRecorder
{
public:
    virtual ~TraceRecorder() = default;
    virtual std::string name() const = 0; // "kineto" or "legacy", as the manifest says
    virtual void start() = 0;
    virtual void stopAndSave(const std::filesystem::path& trace) = 0;
};

// Whether this LibTorch has Kineto. No header tells (USE_KINETO is a build flag of torch itself), so it
// is asked at run time: an empty Kineto session whose save() throws in builds without it (Debian's 1.13).
bool kinetoAvailable(const ProfilerOptions& options, const std::filesystem::path& scratchDir);

// Kineto through torch::autograd::profiler::enableProfiler/disableProfiler: CPU ops, and with `cuda`
// the GPU kernels and runtime calls from CUPTI. ProfilerResult::save writes the torch.profiler JSON.
std::unique_ptr<TraceRecorder> makeKinetoRecorder(const ProfilerOptions& options);

// The legacy autograd profiler (enableProfilerLegacy): CPU ops only (CUDA time per op in CUDA mode),
// written by torch's legacy Chrome-trace writer, the format torch.autograd.profiler exports.
std::unique_ptr<TraceRecorder> makeLegacyRecorder(const ProfilerOptions& options);

} // namespace tilescope::torchtool
