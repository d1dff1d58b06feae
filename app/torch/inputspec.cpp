// SPDX-License-Identifier: MIT
#include "inputspec.h"

#include <charconv>
#include <limits>
#include <utility>

namespace tilescope::torchtool {

namespace {

constexpr std::pair<std::string_view, std::string_view> kDtypes[] = {
    {"float32", "float32"}, {"f32", "float32"},     {"float16", "float16"}, {"f16", "float16"}, {"bfloat16", "bfloat16"},
    {"bf16", "bfloat16"},   {"float64", "float64"}, {"f64", "float64"},     {"int32", "int32"}, {"i32", "int32"},
    {"int64", "int64"},     {"i64", "int64"},       {"bool", "bool"},
};

constexpr std::string_view kExpected = "expected DTYPE:DIMS such as float32:4096x4096 (DTYPE one of float32, float16, bfloat16, "
                                       "float64, int32, int64, bool, f32, f16, bf16, f64, i32, i64; DIMS x-separated, empty for a scalar)";

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

[[noreturn]] void fail(size_t index, std::string_view item, const std::string& problem)
{
    throw InputSpecError("input spec: tensor " + std::to_string(index + 1) + " '" + std::string(item) + "': " + problem + "; "
                         + std::string(kExpected));
}

TensorSpec parseTensor(size_t index, std::string_view item)
{
    const size_t colon = item.find(':');
    if (colon == std::string_view::npos)
        fail(index, item, "no ':' between dtype and dimensions");
    const std::string_view dtypeText = trim(item.substr(0, colon));
    TensorSpec tensor;
    tensor.dtype = canonicalDtype(dtypeText);
    if (tensor.dtype.empty())
        fail(index, item, dtypeText.empty() ? std::string("missing dtype") : "unknown dtype '" + std::string(dtypeText) + "'");
    const std::string_view dims = trim(item.substr(colon + 1));
    if (dims.empty())
        return tensor; // a scalar
    size_t start = 0;
    while (true) {
        const size_t x = dims.find('x', start);
        const std::string_view dim = trim(dims.substr(start, x == std::string_view::npos ? std::string_view::npos : x - start));
        const std::string position = "dimension " + std::to_string(tensor.dims.size() + 1);
        if (dim.empty())
            fail(index, item, position + " is empty");
        int64_t value = 0;
        const auto [end, ec] = std::from_chars(dim.data(), dim.data() + dim.size(), value);
        if (dim.front() == '-' || dim.front() == '+')
            fail(index, item, position + " '" + std::string(dim) + "' must be a non-negative integer");
        if (ec == std::errc::result_out_of_range)
            fail(index, item, position + " '" + std::string(dim) + "' is too large");
        if (ec != std::errc() || end != dim.data() + dim.size())
            fail(index, item, position + " '" + std::string(dim) + "' is not an integer");
        tensor.dims.push_back(value);
        if (x == std::string_view::npos)
            break;
        start = x + 1;
    }
    // Guard the element count so a typo such as 40960000x4096 fails here, not as an obscure allocation error.
    int64_t elements = 1;
    for (const int64_t d : tensor.dims) {
        if (d != 0 && elements > std::numeric_limits<int64_t>::max() / d)
            fail(index, item, "the element count overflows 64 bits");
        elements *= d;
    }
    return tensor;
}

} // namespace

std::string canonicalDtype(std::string_view name)
{
    for (const auto& [alias, canonical] : kDtypes)
        if (alias == name)
            return std::string(canonical);
    return {};
}

std::vector<TensorSpec> parseInputSpec(std::string_view spec)
{
    std::vector<TensorSpec> tensors;
    if (trim(spec).empty())
        return tensors;
    size_t start = 0;
    while (true) {
        const size_t comma = spec.find(',', start);
        const std::string_view item = trim(spec.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
        if (item.empty())
            throw InputSpecError("input spec: tensor " + std::to_string(tensors.size() + 1) + " is empty (a stray ',' in '"
                                 + std::string(spec) + "'); " + std::string(kExpected));
        tensors.push_back(parseTensor(tensors.size(), item));
        if (comma == std::string_view::npos)
            break;
        start = comma + 1;
    }
    return tensors;
}

std::string formatTensorSpec(const TensorSpec& tensor)
{
    std::string text = tensor.dtype + ":";
    for (size_t i = 0; i < tensor.dims.size(); ++i)
        text += (i ? "x" : "") + std::to_string(tensor.dims[i]);
    return text;
}

} // namespace tilescope::torchtool
