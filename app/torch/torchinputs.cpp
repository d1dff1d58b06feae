// SPDX-License-Identifier: MIT
#include "torchinputs.h"

#include <torch/torch.h>

namespace tilescope::torchtool {

namespace {

c10::ScalarType scalarType(const std::string& dtype)
{
    if (dtype == "float32")
        return c10::kFloat;
    if (dtype == "float16")
        return c10::kHalf;
    if (dtype == "bfloat16")
        return c10::kBFloat16;
    if (dtype == "float64")
        return c10::kDouble;
    if (dtype == "int32")
        return c10::kInt;
    if (dtype == "int64")
        return c10::kLong;
    return c10::kBool; // parseInputSpec admits no other name
}

} // namespace

std::vector<c10::IValue> makeInputs(const std::vector<TensorSpec>& specs, const c10::Device& device, uint64_t seed)
{
    torch::manual_seed(seed);
    std::vector<c10::IValue> inputs;
    inputs.reserve(specs.size());
    for (const TensorSpec& spec : specs) {
        const c10::ScalarType type = scalarType(spec.dtype);
        const auto options = torch::TensorOptions().dtype(type).device(device);
        const std::vector<int64_t>& dims = spec.dims;
        if (type == c10::kBool)
            inputs.emplace_back(torch::randint(0, 2, dims, options.dtype(c10::kLong)).to(c10::kBool));
        else if (c10::isFloatingType(type))
            inputs.emplace_back(torch::randn(dims, options));
        else
            inputs.emplace_back(torch::randint(0, 16, dims, options));
    }
    return inputs;
}

} // namespace tilescope::torchtool
