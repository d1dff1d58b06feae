// SPDX-License-Identifier: MIT
#pragma once

#include "io/smalljson.h"

#include <c10/core/Device.h>

#include <optional>
#include <string>
#include <string_view>

// CUDA device properties and CUDA-event timing need the CUDA runtime headers, which only a LibTorch
// built with CUDA and a toolkit on the build machine provide (CMake defines TILESCOPE_TORCH_WITH_CUDA).
// Only the runtime API and c10's stream header are used: ATen/cuda would also want the cuBLAS, cuSPARSE
// and cuSOLVER headers, which pip-installed toolkits spread over several folders.
#if defined(TILESCOPE_TORCH_WITH_CUDA) && __has_include(<cuda_runtime_api.h>) && __has_include(<c10/cuda/CUDAStream.h>)
#define TILESCOPE_TORCH_CUDA_API 1
#else
#define TILESCOPE_TORCH_CUDA_API 0
#endif

namespace tilescope::torchtool {

// --device: "cpu", "cuda" (device 0) or "cuda:N".
struct DeviceChoice
{
    bool cuda = false;
    int index = 0;
    std::string text() const { return cuda ? "cuda:" + std::to_string(index) : "cpu"; }
};

// Throws SessionError (usage) for anything else.
DeviceChoice parseDeviceChoice(std::string_view text);

// Checks that the device exists in this process (CUDA compiled in, a driver, enough GPUs); throws
// SessionError saying which part is missing.
c10::Device openDevice(const DeviceChoice& choice);

// Waits for all queued work on the device (no-op on the CPU).
void synchronize(const DeviceChoice& choice);

struct GpuProperties
{
    std::string name;
    int major = 0, minor = 0;
    int sms = 0;
    int64_t totalMemory = 0;
};
// Empty when this build has no CUDA runtime headers (TILESCOPE_TORCH_CUDA_API 0).
std::optional<GpuProperties> gpuProperties(int index);

// The manifest's "device" object: {"type": "cuda", "index": 0, "name": ..., "capability": "9.0", ...}.
io::Json deviceJson(const DeviceChoice& choice);

// The CPU's "model name" from /proc/cpuinfo, else "unknown CPU".
std::string cpuName();

// TORCH_VERSION of the headers built against, e.g. "1.13.0".
std::string torchVersion();

} // namespace tilescope::torchtool
