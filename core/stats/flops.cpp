// SPDX-License-Identifier: MIT
#include "stats/flops.h"

#include <charconv>

namespace tilescope::stats {

namespace {

uint64_t product(const std::vector<int64_t>& sizes)
{
    uint64_t p = 1;
    for (const int64_t s : sizes)
        p *= static_cast<uint64_t>(s);
    return p;
}

bool tensorAt(std::span<const OpInput> inputs, size_t i)
{
    return i < inputs.size() && !inputs[i].isList && isTensorType(inputs[i].type);
}

uint64_t matmulFlops(const std::vector<int64_t>& mat1, const std::vector<int64_t>& mat2)
{
    if (mat1.empty() || mat1.back() == 0)
        return 0;
    return 2 * (product(mat1) / static_cast<uint64_t>(mat1.back())) * product(mat2);
}

uint64_t batchedMatmulFlops(const std::vector<int64_t>& mat1, const std::vector<int64_t>& mat2)
{
    if (mat1.size() < 2 || mat1.back() == 0 || mat1.front() == 0)
        return 0;
    return 2 * (product(mat1) / static_cast<uint64_t>(mat1.back()) / static_cast<uint64_t>(mat1.front())) * product(mat2);
}

} // namespace

bool isTensorType(std::string_view type)
{
    return !(type.empty() || type == "Scalar" || type == "ScalarList" || type == "TensorList" || type == "GenericList"
             || type == "None");
}

uint64_t computeFlops(std::string_view op, std::span<const OpInput> in)
{
    if (op == "aten::mm")
        return tensorAt(in, 0) && tensorAt(in, 1) ? matmulFlops(in[0].sizes, in[1].sizes) : 0;
    if (op == "aten::addmm")
        return tensorAt(in, 1) && tensorAt(in, 2) ? matmulFlops(in[1].sizes, in[2].sizes) : 0;
    if (op == "aten::bmm")
        return tensorAt(in, 0) && tensorAt(in, 1) ? batchedMatmulFlops(in[0].sizes, in[1].sizes) : 0;
    if (op == "aten::baddbmm")
        return tensorAt(in, 1) && tensorAt(in, 2) ? batchedMatmulFlops(in[1].sizes, in[2].sizes) : 0;
    if (op == "aten::mul" || op == "aten::add")
        return tensorAt(in, 0) ? product(in[0].sizes) : 0;
    if (op == "aten::conv2d") {
        if (!tensorAt(in, 0) || !tensorAt(in, 1) || in.size() < 7)
            return 0;
        const auto& x = in[0].sizes;
        const auto& w = in[1].sizes;
        if (x.size() != 4 || w.size() != 4)
            return 0;
        const auto stride = concreteInts(in[3].concrete);
        const auto padding = concreteInts(in[4].concrete);
        const auto dilation = concreteInts(in[5].concrete);
        const auto groups = concreteInts(in[6].concrete);
        if (stride.size() != 2 || padding.size() != 2 || dilation.size() != 2 || groups.size() != 1 || groups[0] == 0
            || stride[0] == 0 || stride[1] == 0)
            return 0;
        const int64_t oh = (x[2] + 2 * padding[0] - dilation[0] * (w[2] - 1) - 1) / stride[0] + 1;
        const int64_t ow = (x[3] + 2 * padding[1] - dilation[1] * (w[3] - 1) - 1) / stride[1] + 1;
        const auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
        return 2 * u(x[0]) * u(oh) * u(ow) * u(w[2]) * u(w[3]) * u(x[1]) * u(w[0]) / u(groups[0]);
    }
    return 0;
}

std::vector<int64_t> concreteInts(std::string_view text)
{
    std::vector<int64_t> out;
    const char* p = text.data();
    const char* end = p + text.size();
    while (p < end) {
        if ((*p >= '0' && *p <= '9') || *p == '-') {
            int64_t v = 0;
            const auto r = std::from_chars(p, end, v);
            if (r.ec != std::errc())
                return {};
            out.push_back(v);
            p = r.ptr;
        } else if (*p == '[' || *p == ']' || *p == ',' || *p == ' ') {
            ++p;
        } else {
            return {}; // not a list of integers ("same", "None", a float)
        }
    }
    return out;
}


} // namespace tilescope::stats
