// SPDX-License-Identifier: MIT
#include "devicetimer.h"

#if TILESCOPE_TORCH_CUDA_API
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include <stdexcept>
#endif

#include <algorithm>
#include <chrono>

namespace tilescope::torchtool {

double DeviceTimer::seconds(const std::function<void()>& work) const
{
#if TILESCOPE_TORCH_CUDA_API
    if (m_device.cuda) {
        // Events on torch's current stream of the device, where the timed ops are queued.
        const cudaStream_t stream = c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(m_device.index)).stream();
        cudaEvent_t start = nullptr, end = nullptr;
        if (cudaEventCreate(&start) != cudaSuccess || cudaEventCreate(&end) != cudaSuccess)
            throw std::runtime_error("cudaEventCreate failed");
        cudaEventRecord(start, stream);
        work();
        cudaEventRecord(end, stream);
        float milliseconds = 0;
        const bool ok = cudaEventSynchronize(end) == cudaSuccess && cudaEventElapsedTime(&milliseconds, start, end) == cudaSuccess;
        cudaEventDestroy(start);
        cudaEventDestroy(end);
        if (!ok)
            throw std::runtime_error("timing with CUDA events failed");
        return static_cast<double>(milliseconds) / 1e3;
    }
#endif
    synchronize(m_device);
    const auto begin = std::chrono::steady_clock::now();
    work();
    synchronize(m_device);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
}

std::string DeviceTimer::method() const
{
    if (!m_device.cuda)
        return "steady_clock";
    return TILESCOPE_TORCH_CUDA_API ? "cuda_events" : "steady_clock+synchronize";
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

} // namespace tilescope::torchtool
