// SPDX-License-Identifier: MIT
#include "devicetimer.h"

#if TILESCOPE_TORCH_CUDA_API
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#endif

#include <algorithm>
#include <chrono>

namespace tilescope::torchtool {

double DeviceTimer::seconds(const std::function<void()>& work) const
{
#if TILESCOPE_TORCH_CUDA_API
    if (m_device.cuda) {
        at::cuda::CUDAEvent start(cudaEventDefault), end(cudaEventDefault); // cudaEventDefault: with timing
        const at::cuda::CUDAStream stream = at::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(m_device.index));
        start.record(stream);
        work();
        end.record(stream);
        end.synchronize();
        return static_cast<double>(start.elapsed_time(end)) / 1e3;
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
