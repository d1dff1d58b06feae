// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tilescope::torchtool {

// One tensor of a session's --inputs (docs/sessions.md, "Input spec"). Plain C++: no torch here,
// so the parser is tested without LibTorch.
struct TensorSpec
{
    std::string dtype;         // canonical torch name: float32, float16, bfloat16, float64, int32, int64, bool
    std::vector<int64_t> dims; // empty for a scalar
};

class InputSpecError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

// Parses e.g. "float32:4096x4096,bf16:64x128" or "i64:" (a scalar). An empty spec means no inputs.
// Throws InputSpecError naming the offending tensor and what is wrong with it.
std::vector<TensorSpec> parseInputSpec(std::string_view spec);

// The canonical dtype for a torch name or alias; empty when unknown.
std::string canonicalDtype(std::string_view name);

// "float32:4096x4096", the canonical text of one tensor (for the manifest and messages).
std::string formatTensorSpec(const TensorSpec& tensor);

} // namespace tilescope::torchtool
