// SPDX-License-Identifier: MIT
#include "trace/eventkind.h"

#include <array>
#include <cctype>
#include <string>

namespace tilescope::trace {

EventKind eventKindFromCategory(std::string_view category)
{
    std::string lower(category);
    for (char& c : lower)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    static const std::array<std::pair<std::string_view, EventKind>, 17> table{{
        {"cpu_op", EventKind::CpuOp},
        {"operator", EventKind::CpuOp},
        {"user_annotation", EventKind::UserAnnotation},
        {"cuda_runtime", EventKind::CudaRuntime},
        {"runtime", EventKind::CudaRuntime},
        {"cuda_driver", EventKind::CudaDriver},
        {"overhead", EventKind::Overhead},
        {"python_function", EventKind::PythonFunction},
        {"kernel", EventKind::Kernel},
        {"gpu_memcpy", EventKind::GpuMemcpy},
        {"memcpy", EventKind::GpuMemcpy},
        {"gpu_memset", EventKind::GpuMemset},
        {"memset", EventKind::GpuMemset},
        {"gpu_user_annotation", EventKind::GpuUserAnnotation},
        {"cuda_sync", EventKind::CudaSync},
        {"trace", EventKind::TraceSpan},
        {"cpu_instant_event", EventKind::Instant},
    }};
    for (const auto& [name, kind] : table)
        if (lower == name)
            return kind;
    return EventKind::Other;
}

std::string_view eventKindName(EventKind kind)
{
    static constexpr std::array<std::string_view, static_cast<size_t>(EventKind::Count)> names{
        "cpu_op",     "user_annotation", "cuda_runtime",        "cuda_driver", "overhead", "python_function", "kernel",
        "gpu_memcpy", "gpu_memset",      "gpu_user_annotation", "cuda_sync",   "Trace",    "instant",         "other"};
    return names[static_cast<size_t>(kind)];
}

bool isCommunicationKernel(std::string_view kernelName)
{
    if (kernelName.starts_with("void "))
        kernelName.remove_prefix(5);
    return kernelName.starts_with("ncclKernel_") || kernelName.starts_with("ncclDevKernel_");
}

bool isElementwiseKernel(std::string_view kernelName)
{
    if (kernelName.starts_with("void "))
        kernelName.remove_prefix(5);
    return kernelName.find("elementwise_kernel") != std::string_view::npos || kernelName.starts_with("triton_poi_");
}

} // namespace tilescope::trace
