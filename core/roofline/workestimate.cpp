// SPDX-License-Identifier: MIT
#include "roofline/workestimate.h"

#include "io/jsonvalue.h"
#include "io/tracefileerror.h"
#include "trace/trace.h"

#include <charconv>
#include <set>
#include <vector>

namespace tilescope::roofline {

using trace::Event;
using trace::kNoIndex;

namespace {

std::vector<std::vector<int64_t>> parseShapes(std::string_view text)
{
    std::vector<std::vector<int64_t>> out;
    int depth = 0;
    const char* p = text.data();
    const char* end = p + text.size();
    while (p < end) {
        const char c = *p;
        if (c == '[') {
            if (++depth == 2)
                out.emplace_back();
            ++p;
        } else if (c == ']') {
            --depth;
            ++p;
        } else if ((c >= '0' && c <= '9') || c == '-') {
            int64_t v = 0;
            const auto r = std::from_chars(p, end, v);
            if (depth == 2 && !out.empty())
                out.back().push_back(v);
            p = r.ptr == p ? p + 1 : r.ptr;
        } else {
            ++p;
        }
    }
    return out;
}

std::vector<std::string> parseTypes(std::string_view text)
{
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t comma = text.find(", ", start);
        out.emplace_back(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
        if (comma == std::string_view::npos)
            break;
        start = comma + 2;
    }
    return out;
}

int elementSize(std::string_view type)
{
    if (type == "double" || type == "long int" || type == "c10::complex<float>")
        return 8;
    if (type == "float" || type == "int")
        return 4;
    if (type == "c10::BFloat16" || type == "c10::Half" || type == "short int")
        return 2;
    if (type.find("Float8") != std::string_view::npos || type == "bool" || type == "unsigned char" || type == "signed char")
        return 1;
    return 0;
}

std::string roofOfType(std::string_view type, bool matmul, bool allowTf32)
{
    if (type == "double")
        return "fp64";
    if (!matmul)
        return "fp32"; // non-matmul work runs on CUDA cores whatever the dtype (§6.2)
    if (type == "c10::BFloat16")
        return "bf16";
    if (type == "c10::Half")
        return "fp16";
    if (type.find("Float8") != std::string_view::npos)
        return "fp8";
    if (type == "signed char" || type == "unsigned char")
        return "int8";
    return allowTf32 ? "tf32" : "fp32";
}

const std::set<std::string_view> kElementwise{"aten::mul", "aten::add", "aten::sub", "aten::div", "aten::mul_", "aten::add_",
                                              "aten::sub_", "aten::div_", "aten::relu", "aten::relu_", "aten::exp", "aten::neg",
                                              "aten::sigmoid", "aten::tanh", "aten::gelu", "aten::silu", "aten::fill_", "aten::zero_"};

} // namespace

// Level B: the op's own inputs (roofline.md §6.1): torch's FLOP formula for matmuls, 1 FLOP per output
// element for elementwise ops; compulsory bytes = every tensor input once + the output.
std::optional<Work> opWork(const trace::Trace& t, const Event& op, bool allowTf32)
{
    if (op.op == kNoIndex)
        return std::nullopt;
    const std::string_view name = t.strings.view(op.name);
    const trace::OpInfo& info = t.ops[op.op];
    const auto shapes = parseShapes(t.strings.view(info.inputShapes));
    const auto types = parseTypes(t.strings.view(info.inputTypes));
    auto prod = [](const std::vector<int64_t>& s) {
        double p = 1;
        for (const int64_t v : s)
            p *= double(v);
        return p;
    };
    auto bytesOf = [&](size_t i) { return i < shapes.size() && i < types.size() ? prod(shapes[i]) * elementSize(types[i]) : 0.0; };
    const bool mm = name == "aten::mm" || name == "aten::bmm";
    const bool addmm = name == "aten::addmm" || name == "aten::baddbmm";
    if (mm || addmm) {
        const size_t a = addmm ? 1 : 0, b = a + 1;
        if (b >= shapes.size() || b >= types.size() || shapes[a].size() < 2 || shapes[b].size() < 2 || elementSize(types[a]) == 0)
            return std::nullopt;
        Work w;
        w.level = 'B';
        w.flops = double(info.flops);
        std::vector<int64_t> out = shapes[a];
        out.back() = shapes[b].back();
        w.bytes = bytesOf(a) + bytesOf(b) + prod(out) * elementSize(types[a]) + (addmm ? bytesOf(0) : 0.0);
        w.roof = roofOfType(types[a], true, allowTf32);
        return w;
    }
    if (kElementwise.count(name)) {
        // The dtype and the output come from the dimensioned tensors; 0-dim operands (Python numbers)
        // count their bytes only.
        double outElements = 0;
        std::string dtype;
        double inBytes = 0;
        for (size_t i = 0; i < shapes.size() && i < types.size(); ++i) {
            if (elementSize(types[i]) == 0)
                continue;
            inBytes += bytesOf(i);
            if (!shapes[i].empty() && prod(shapes[i]) >= outElements) {
                outElements = prod(shapes[i]);
                dtype = types[i];
            }
        }
        if (dtype.empty())
            return std::nullopt;
        Work w;
        w.level = 'B';
        const bool fills = name == "aten::fill_" || name == "aten::zero_";
        w.flops = fills ? 0 : outElements;
        w.bytes = (fills ? 0 : inBytes) + outElements * elementSize(dtype);
        w.roof = roofOfType(dtype, false, allowTf32);
        return w;
    }
    return std::nullopt;
}

std::optional<double> bytesArg(const trace::Trace& t, const Event& e)
{
    const std::string_view raw = t.rawArgs(e);
    if (raw.empty())
        return std::nullopt;
    try {
        const auto args = io::parseSmallJson(raw, "args");
        if (const auto* b = args.find("bytes"))
            return b->number();
    } catch (const io::TraceFileError&) {
    }
    return std::nullopt;
}

std::string kernelHint(std::string_view name)
{
    for (const char* token : {"nvjet", "wgmma", "hmma", "16816", "tensorop", "xmma", "flash", "fmha", "sdpa", "mma"})
        if (name.find(token) != std::string_view::npos)
            return token;
    return {};
}

} // namespace tilescope::roofline
