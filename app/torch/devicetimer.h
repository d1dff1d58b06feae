// SPDX-License-Identifier: MIT
#pragma once

#include "torchdevice.h"

#include <functional>
#include <string>
#include <vector>

namespace tilescope::torchtool {

// Times one call of a piece of device work, in seconds: CUDA events on the work's stream on a GPU
// (as roofline.md §4 measured the H200), steady_clock on the CPU. A GPU build without the CUDA runtime
// headers falls back to steady_clock around device synchronisations.
class DeviceTimer
{
public:
    explicit DeviceTimer(const DeviceChoice& device)
        : m_device(device)
    { }
    double seconds(const std::function<void()>& work) const;
    std::string method() const; // "cuda_events", "steady_clock", "steady_clock+synchronize"

private:
    DeviceChoice m_device;
};

// The median of a few values (the mean of the middle two for an even count).
double median(std::vector<double> values);

} // namespace tilescope::torchtool
