// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <span>
#include <vector>

namespace tilescope::stats {

// One recorded op input, as `Input Dims` / `Input type` / `Concrete Inputs` describe it.
struct OpInput
{
    std::vector<int64_t> sizes;
    std::string type;     // dtype name, or Scalar / ScalarList / TensorList / ""
    std::string concrete; // Concrete Inputs entry ("" for tensors)
    bool isList = false;  // a TensorList (its Input Dims entry is a list of lists)
};

// The integers of a Concrete Inputs entry, "[1, 2]" or "3"; empty for "", "None", "same" or a float.
std::vector<int64_t> concreteInts(std::string_view text);

// True when `type` names a tensor dtype rather than Scalar, ScalarList, TensorList or nothing.
bool isTensorType(std::string_view type);

// torch's computeFlops (torch/csrc/profiler/util.cpp, key-averages.md §8): unsigned 64-bit arithmetic,
// 0 for ops without a formula or with inputs that are not tensors.
uint64_t computeFlops(std::string_view opName, std::span<const OpInput> inputs);

} // namespace tilescope::stats
