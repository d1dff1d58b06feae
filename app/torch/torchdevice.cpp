// SPDX-License-Identifier: MIT
#include "torchdevice.h"

#include "sessionerror.h"

#include <torch/cuda.h>
#include <torch/version.h>

#if TILESCOPE_TORCH_CUDA_API
#include <cuda_runtime_api.h>
#endif

#include <charconv>
#include <fstream>

namespace tilescope::torchtool {

DeviceChoice parseDeviceChoice(std::string_view text)
{
    DeviceChoice choice;
    if (text == "cpu")
        return choice;
    choice.cuda = true;
    if (text == "cuda")
        return choice;
    if (text.substr(0, 5) == "cuda:" && text.size() > 5) {
        const std::string_view number = text.substr(5);
        const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), choice.index);
        if (ec == std::errc() && end == number.data() + number.size() && choice.index >= 0)
            return choice;
    }
    throw SessionError("bad --device '" + std::string(text) + "': expected cpu, cuda or cuda:N", kExitUsage);
}

c10::Device openDevice(const DeviceChoice& choice)
{
    if (!choice.cuda)
        return c10::Device(c10::kCPU);
    if (!torch::cuda::is_available())
        throw SessionError("CUDA requested (" + choice.text() + ") but not available: this LibTorch (" + torchVersion()
                           + ") has no CUDA support or finds no GPU and driver");
    const size_t count = torch::cuda::device_count();
    if (static_cast<size_t>(choice.index) >= count)
        throw SessionError("CUDA requested (" + choice.text() + ") but only " + std::to_string(count) + " GPU(s) are visible");
    return c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(choice.index));
}

void synchronize(const DeviceChoice& choice)
{
    if (choice.cuda)
        torch::cuda::synchronize(choice.index);
}

std::optional<GpuProperties> gpuProperties([[maybe_unused]] int index)
{
#if TILESCOPE_TORCH_CUDA_API
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, index) != cudaSuccess)
        return std::nullopt;
    return GpuProperties{p.name, p.major, p.minor, p.multiProcessorCount, static_cast<int64_t>(p.totalGlobalMem)};
#else
    return std::nullopt;
#endif
}

io::Json deviceJson(const DeviceChoice& choice)
{
    io::Json j = {{"type", choice.cuda ? "cuda" : "cpu"}};
    if (choice.cuda) {
        j["index"] = choice.index;
        if (const auto p = gpuProperties(choice.index)) {
            j["name"] = p->name;
            j["capability"] = std::to_string(p->major) + "." + std::to_string(p->minor);
            j["sms"] = p->sms;
            j["total_memory"] = p->totalMemory;
        }
    } else {
        j["name"] = cpuName();
    }
    return j;
}

std::string cpuName()
{
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("model name", 0) == 0) {
            const size_t colon = line.find(':');
            if (colon != std::string::npos) {
                size_t start = line.find_first_not_of(" \t", colon + 1);
                if (start != std::string::npos)
                    return line.substr(start);
            }
        }
    }
    return "unknown CPU";
}

std::string torchVersion() { return TORCH_VERSION; }

} // namespace tilescope::torchtool
