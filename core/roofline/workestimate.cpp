// SPDX-License-Identifier: MIT
#include "roofline/workestimate.h"

#include "io/smalljson.h"
#include "io/tracefileerror.h"
#include "stats/torchtable.h"
#include "trace/trace.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

namespace tilescope::roofline {

using trace::Event;
using trace::EventKind;
using trace::kNoIndex;
using trace::OpInputList;
using OpRecord = trace::OpInputList;
using trace::concreteInts;

namespace {

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

double numel(std::span<const int64_t> sizes)
{
    double p = 1;
    for (const int64_t v : sizes)
        p *= double(v);
    return p;
}

bool isTensor(const OpRecord& r, size_t i)
{
    return i < r.inputs.size() && !r.inputs[i].isList && trace::isTensorType(r.inputs[i].type) && elementSize(r.inputs[i].type) > 0;
}

// One read of a tensor input: a stride-0 (expanded, broadcast) dimension counts once.
double tensorBytes(const OpRecord& r, size_t i)
{
    if (!isTensor(r, i))
        return 0;
    const auto& sizes = r.inputs[i].sizes;
    const auto& strides = r.inputs[i].strides;
    const bool haveStrides = strides.size() == sizes.size();
    double elements = 1;
    for (size_t d = 0; d < sizes.size(); ++d)
        if (!haveStrides || strides[d] != 0)
            elements *= double(sizes[d]);
    return elements * elementSize(r.inputs[i].type);
}

double allTensorBytes(const OpRecord& r)
{
    double bytes = 0;
    for (size_t i = 0; i < r.inputs.size(); ++i)
        bytes += tensorBytes(r, i);
    return bytes;
}

// Concrete Inputs entry i, or empty when the trace has none.
std::string_view concrete(const OpRecord& r, size_t i)
{
    return r.hasConcrete && i < r.inputs.size() ? std::string_view(r.inputs[i].concrete) : std::string_view();
}

std::string columnsUsed(const OpRecord& r, bool concreteUsed)
{
    std::string c = "Input Dims, Input type";
    if (r.hasStrides)
        c += ", Input Strides";
    if (concreteUsed)
        c += ", Concrete Inputs";
    return c;
}

std::string gflop(double f) { return stats::formatFixed(f / 1e9, 3) + " GFLOP"; }

const std::set<std::string_view> kElementwise{"aten::mul",
                                              "aten::add",
                                              "aten::sub",
                                              "aten::div",
                                              "aten::mul_",
                                              "aten::add_",
                                              "aten::sub_",
                                              "aten::div_",
                                              "aten::relu",
                                              "aten::relu_",
                                              "aten::exp",
                                              "aten::neg",
                                              "aten::sigmoid",
                                              "aten::tanh",
                                              "aten::gelu",
                                              "aten::silu",
                                              "aten::fill_",
                                              "aten::zero_",
                                              "aten::pow",
                                              "aten::sqrt",
                                              "aten::rsqrt",
                                              "aten::abs",
                                              "aten::clamp_",
                                              "aten::clamp_min_",
                                              "aten::gelu_backward",
                                              "aten::silu_backward",
                                              "aten::threshold_backward",
                                              "aten::sigmoid_backward",
                                              "aten::tanh_backward"};

// Reductions: 1 FLOP per input element (§6.1); the reduced dims sit at a per-op Concrete Inputs position.
const std::unordered_map<std::string_view, size_t> kReductionDimPosition{
    {"aten::sum", 1}, {"aten::mean", 1}, {"aten::nansum", 1}, {"aten::amax", 1},   {"aten::amin", 1},      {"aten::max", 1},
    {"aten::min", 1}, {"aten::prod", 1}, {"aten::argmax", 1}, {"aten::argmin", 1}, {"aten::logsumexp", 1}, {"aten::any", 1},
    {"aten::all", 1}, {"aten::norm", 2}, {"aten::var", 1},    {"aten::std", 1}};

const std::set<std::string_view> kSoftmax{"aten::softmax", "aten::_softmax", "aten::log_softmax", "aten::_log_softmax",
                                          "aten::_safe_softmax"};

const std::set<std::string_view> kNormalisation{"aten::layer_norm",
                                                "aten::native_layer_norm",
                                                "aten::rms_norm",
                                                "aten::_fused_rms_norm",
                                                "aten::batch_norm",
                                                "aten::native_batch_norm",
                                                "aten::_native_batch_norm_legit",
                                                "aten::_native_batch_norm_legit_no_training",
                                                "aten::cudnn_batch_norm",
                                                "aten::group_norm",
                                                "aten::native_group_norm",
                                                "aten::instance_norm"};

// "A few FLOP/element" for softmax and normalisation (§6.1): max/mean, subtract, exp/square, sum, divide/scale.
constexpr double kFewFlopsPerElement = 5;

struct AttentionOp
{
    std::string_view name;
    size_t causalPosition;
    bool sequenceBeforeHeads; // [B, S, H, D] rather than [B, H, S, D]
    bool maskType;            // the position holds custom_mask_type (0 = no mask) rather than is_causal
};
constexpr AttentionOp kAttention[] = {
    {"aten::scaled_dot_product_attention", 5, false, false},
    {"aten::_scaled_dot_product_flash_attention", 4, false, false},
    {"aten::_scaled_dot_product_efficient_attention", 6, false, false},
    {"aten::_scaled_dot_product_cudnn_attention", 6, false, false},
    {"aten::_cudnn_attention_forward", 10, false, false},
    {"aten::_flash_attention_forward", 8, true, false},
    {"aten::_efficient_attention_forward", 9, true, true},
};

struct ConvolutionOp
{
    std::string_view name;
    size_t stride, padding, dilation, groups;
    size_t transposed; // npos when the op has no such argument
    bool hasBias;
};
constexpr size_t kNone = size_t(-1);
constexpr ConvolutionOp kConvolution[] = {
    {"aten::conv1d", 3, 4, 5, 6, kNone, true},   {"aten::conv2d", 3, 4, 5, 6, kNone, true},
    {"aten::conv3d", 3, 4, 5, 6, kNone, true},   {"aten::convolution", 3, 4, 5, 8, 6, true},
    {"aten::_convolution", 3, 4, 5, 8, 6, true}, {"aten::cudnn_convolution", 3, 2, 4, 5, kNone, false},
};

Work bWork(double flops, double bytes, std::string roof, std::string basis)
{
    Work w;
    w.level = 'B';
    w.flops = flops;
    w.bytes = bytes;
    w.roof = std::move(roof);
    w.basis = std::move(basis);
    return w;
}

Work unknown(std::string reason)
{
    Work w;
    w.basis = std::move(reason);
    return w;
}

// The op's dtype: from its dimensioned tensors, as torch's type promotion does (0-dim operands are numbers).
std::string dtypeOf(const OpRecord& r)
{
    std::string fallback;
    for (size_t i = 0; i < r.inputs.size(); ++i)
        if (isTensor(r, i)) {
            if (!r.inputs[i].sizes.empty())
                return std::string(r.inputs[i].type);
            if (fallback.empty())
                fallback = r.inputs[i].type;
        }
    return fallback;
}

} // namespace

WorkEstimator::WorkEstimator(const trace::Trace& t, bool allowTf32)
    : m_trace(t)
    , m_allowTf32(allowTf32)
{
    // Autograd nodes of convolutions: their input 0 is the gradient of the forward output, so its Input Dims
    // give the output shape when Concrete Inputs (stride, padding) were not recorded.
    for (uint32_t i = 0; i < t.events.size(); ++i) {
        const Event& e = t.events[i];
        if (e.kind != EventKind::CpuOp)
            continue;
        const std::string_view name = t.strings.view(e.name);
        if (name.find("ConvolutionBackward") == std::string_view::npos || name.starts_with("autograd::") || e.op == kNoIndex)
            continue;
        const int64_t sequence = t.ops[e.op].sequence;
        if (sequence == trace::kNoId)
            continue;
        const auto [it, inserted] = m_convBackwardBySequence.try_emplace(sequence, i);
        if (!inserted)
            it->second = kNoIndex; // two nodes with one number (several forward threads): ambiguous
    }
}

const Work& WorkEstimator::opWork(uint32_t op) const
{
    auto it = m_cache.find(op);
    if (it == m_cache.end())
        it = m_cache.emplace(op, estimate(op)).first;
    return it->second;
}

std::optional<std::vector<int64_t>> WorkEstimator::convOutputFromBackward(const Event& op) const
{
    if (op.op == kNoIndex || m_trace.ops[op.op].sequence == trace::kNoId)
        return std::nullopt;
    const auto it = m_convBackwardBySequence.find(m_trace.ops[op.op].sequence);
    if (it == m_convBackwardBySequence.end() || it->second == kNoIndex)
        return std::nullopt;
    const OpRecord node = m_trace.inputsOf(m_trace.events[it->second]);
    if (!isTensor(node, 0))
        return std::nullopt;
    return std::vector<int64_t>(node.inputs[0].sizes.begin(), node.inputs[0].sizes.end());
}

Work WorkEstimator::convolution(const Event& op, const OpRecord& r) const
{
    const std::string_view name = m_trace.strings.view(op.name);
    const ConvolutionOp* spec = nullptr;
    for (const ConvolutionOp& c : kConvolution)
        if (c.name == name)
            spec = &c;
    if (!isTensor(r, 0) || !isTensor(r, 1))
        return unknown(std::string(name) + ": input or weight not recorded as a tensor");
    const auto& x = r.inputs[0].sizes;
    const auto& w = r.inputs[1].sizes;
    if (x.size() < 3 || x.size() != w.size() || w[1] <= 0 || x[1] % w[1] != 0)
        return unknown(std::string(name) + ": input " + std::to_string(x.size()) + "-D and weight " + std::to_string(w.size())
                       + "-D do not form a batched convolution (unbatched input is not modelled)");
    if (spec->transposed != kNone && concrete(r, spec->transposed) == "True")
        return unknown(std::string(name) + ": transposed convolution is not modelled");
    const size_t spatial = x.size() - 2;
    const int64_t n = x[0], cout = w[0];
    // Output size: from stride/padding/dilation (Concrete Inputs), else from the backward node's grad_output.
    std::vector<int64_t> out;
    std::string how;
    auto perDim = [&](size_t pos) {
        auto v = concreteInts(concrete(r, pos));
        if (v.size() == 1)
            v.assign(spatial, v[0]);
        return v;
    };
    const auto stride = perDim(spec->stride), padding = perDim(spec->padding), dilation = perDim(spec->dilation);
    if (stride.size() == spatial && padding.size() == spatial && dilation.size() == spatial
        && std::all_of(stride.begin(), stride.end(), [](int64_t s) { return s > 0; })) {
        for (size_t d = 0; d < spatial; ++d)
            out.push_back((x[d + 2] + 2 * padding[d] - dilation[d] * (w[d + 2] - 1) - 1) / stride[d] + 1);
        how = "stride, padding, dilation from Concrete Inputs";
    } else if (const auto grad = convOutputFromBackward(op); grad && grad->size() == x.size() && (*grad)[0] == n && (*grad)[1] == cout) {
        out.assign(grad->begin() + 2, grad->end());
        how = "output size from the Input Dims of its autograd backward node (same Sequence number)";
    } else {
        return unknown(std::string(name)
                       + ": stride and padding unknown (no Concrete Inputs, no backward node with the output "
                         "shape); not assuming stride 1");
    }
    const double outSpatial = numel(out);
    double kernel = 1;
    for (size_t d = 0; d < spatial; ++d)
        kernel *= double(w[d + 2]);
    // torch's formula (key-averages.md §8): 2·N·out·kernel·Cin·Cout/groups, with Cin/groups = weight[1].
    double flops = 2 * double(n) * outSpatial * kernel * double(w[1]) * double(cout);
    const trace::OpInfo* info = op.op == kNoIndex ? nullptr : &m_trace.ops[op.op];
    if (info && info->flops > 0 && how.starts_with("stride"))
        flops = double(info->flops); // aten::conv2d: torch's own number, bit for bit
    const double outBytes = double(n) * double(cout) * outSpatial * elementSize(r.inputs[0].type);
    const double bytes = tensorBytes(r, 0) + tensorBytes(r, 1) + (spec->hasBias ? tensorBytes(r, 2) : 0.0) + outBytes;
    return bWork(flops, bytes, roofOfType(r.inputs[0].type, true, m_allowTf32),
                 std::string(name) + ": convolution 2·N·Cout·(Cin/groups)·kernel·output = " + gflop(flops) + " per call, " + how
                     + "; bytes = input + weight" + (spec->hasBias ? " + bias" : "") + " + output ("
                     + columnsUsed(r, how.starts_with("stride")) + ")");
}

Work WorkEstimator::estimate(uint32_t index) const
{
    const Event& op = m_trace.events[index];
    const std::string_view name = m_trace.strings.view(op.name);
    const std::string opName(name);
    const bool matmulFamily = name == "aten::mm" || name == "aten::bmm" || name == "aten::addmm" || name == "aten::baddbmm";
    const bool known = matmulFamily || name == "aten::matmul" || name == "aten::linear" || name == "aten::copy_" || kElementwise.count(name)
        || kReductionDimPosition.count(name) || kSoftmax.count(name) || kNormalisation.count(name)
        || std::any_of(std::begin(kAttention), std::end(kAttention), [&](const AttentionOp& a) { return a.name == name; })
        || std::any_of(std::begin(kConvolution), std::end(kConvolution), [&](const ConvolutionOp& c) { return c.name == name; });
    if (!known) {
        if (name.find("backward") != std::string_view::npos || name.find("Backward") != std::string_view::npos)
            return unknown(opName + ": no formula for backward ops");
        return unknown({});
    }
    if (op.op == kNoIndex)
        return unknown(opName + ": the trace has no Input Dims (record_shapes off)");
    const OpRecord r = m_trace.inputsOf(op);
    const std::string dtype = dtypeOf(r);

    if (matmulFamily) {
        const bool addmm = name == "aten::addmm" || name == "aten::baddbmm";
        const size_t a = addmm ? 1 : 0, b = a + 1;
        if (!isTensor(r, a) || !isTensor(r, b) || r.inputs[a].sizes.size() < 2 || r.inputs[b].sizes.size() < 2)
            return unknown(opName + ": matrices not recorded as tensors");
        std::vector<int64_t> out(r.inputs[a].sizes.begin(), r.inputs[a].sizes.end());
        out.back() = r.inputs[b].sizes.back();
        const double flops = double(m_trace.ops[op.op].flops);
        return bWork(
            flops, tensorBytes(r, a) + tensorBytes(r, b) + numel(out) * elementSize(r.inputs[a].type) + (addmm ? tensorBytes(r, 0) : 0.0),
            roofOfType(r.inputs[a].type, true, m_allowTf32),
            opName + ": torch's FLOP formula = " + gflop(flops) + " per call; bytes = inputs + output (" + columnsUsed(r, false) + ")");
    }
    if (name == "aten::matmul" || name == "aten::linear") {
        if (!isTensor(r, 0) || !isTensor(r, 1) || r.inputs[0].sizes.empty() || r.inputs[1].sizes.empty())
            return unknown(opName + ": operands not recorded as tensors");
        const auto& x = r.inputs[0].sizes;
        const auto& y = r.inputs[1].sizes;
        double flops = 0, outElements = 0;
        if (name == "aten::linear") { // input [..., in] · weight[out, in]ᵀ
            const double rows = numel(x) / double(std::max<int64_t>(1, x.back()));
            flops = 2 * rows * double(x.back()) * double(y[0]);
            outElements = rows * double(y[0]);
        } else { // torch.matmul: 1-D operands gain a unit dimension, leading dimensions broadcast
            const double n = x.size() >= 2 ? double(x[x.size() - 2]) : 1, k = double(x.back());
            const double m = y.size() >= 2 ? double(y.back()) : 1;
            double batch = 1;
            const size_t bx = x.size() > 2 ? x.size() - 2 : 0, by = y.size() > 2 ? y.size() - 2 : 0;
            for (size_t d = 0; d < std::max(bx, by); ++d) {
                const int64_t dx = d < bx ? x[bx - 1 - d] : 1, dy = d < by ? y[by - 1 - d] : 1;
                batch *= double(std::max(dx, dy));
            }
            flops = 2 * batch * n * k * m;
            outElements = batch * n * m;
        }
        return bWork(flops, tensorBytes(r, 0) + tensorBytes(r, 1) + tensorBytes(r, 2) + outElements * elementSize(r.inputs[0].type),
                     roofOfType(r.inputs[0].type, true, m_allowTf32),
                     opName + ": 2·rows·inner·columns = " + gflop(flops) + " per call (torch reports no flops for " + opName
                         + "); bytes = inputs + output (" + columnsUsed(r, false) + ")");
    }
    for (const AttentionOp& a : kAttention) {
        if (a.name != name)
            continue;
        if (!isTensor(r, 0) || !isTensor(r, 1) || !isTensor(r, 2) || r.inputs[0].sizes.size() != 4 || r.inputs[1].sizes.size() != 4
            || r.inputs[2].sizes.size() != 4)
            return unknown(opName + ": Q, K, V are not 4-D tensors (packed variable-length attention is not modelled)");
        const auto& q = r.inputs[0].sizes;
        const auto& k = r.inputs[1].sizes;
        const double b = double(q[0]), h = double(a.sequenceBeforeHeads ? q[2] : q[1]), sq = double(a.sequenceBeforeHeads ? q[1] : q[2]);
        const double d = double(q[3]), sk = double(a.sequenceBeforeHeads ? k[1] : k[2]);
        const std::string_view flag = concrete(r, a.causalPosition);
        const bool causal = a.maskType ? (!concreteInts(flag).empty() && concreteInts(flag)[0] != 0) : flag == "True";
        const bool flagKnown = a.maskType ? !concreteInts(flag).empty() : (flag == "True" || flag == "False");
        const double flops = 4 * b * h * sq * sk * d * (causal ? 0.5 : 1.0);
        std::vector<int64_t> out(q.begin(), q.end());
        out.back() = r.inputs[2].sizes.back();
        const double bytes = tensorBytes(r, 0) + tensorBytes(r, 1) + tensorBytes(r, 2) + numel(out) * elementSize(r.inputs[0].type);
        return bWork(flops, bytes, roofOfType(r.inputs[0].type, true, m_allowTf32),
                     opName + ": attention 4·B·H·Sq·Sk·D" + (causal ? "/2 (causal)" : "") + " = " + gflop(flops) + " per call"
                         + (flagKnown ? "" : ", causal flag not recorded: assumed unmasked, an upper bound") + "; bytes = Q + K + V + O ("
                         + columnsUsed(r, flagKnown) + ")");
    }
    if (std::any_of(std::begin(kConvolution), std::end(kConvolution), [&](const ConvolutionOp& c) { return c.name == name; }))
        return convolution(op, r);
    if (dtype.empty())
        return unknown(opName + ": no tensor inputs recorded");

    if (name == "aten::copy_") { // copy_(self, src): reads src, writes self
        if (!isTensor(r, 0) || !isTensor(r, 1))
            return unknown(opName + ": operands not recorded as tensors");
        return bWork(0, tensorBytes(r, 1) + numel(r.inputs[0].sizes) * elementSize(r.inputs[0].type), roofOfType(dtype, false, m_allowTf32),
                     opName + ": data movement, bytes = source + destination (" + columnsUsed(r, false) + ")");
    }
    if (kElementwise.count(name)) {
        // The output comes from the dimensioned tensors; 0-dim operands (Python numbers) count their bytes only.
        double outElements = 0;
        std::string outType;
        for (size_t i = 0; i < r.inputs.size(); ++i)
            if (isTensor(r, i) && !r.inputs[i].sizes.empty() && numel(r.inputs[i].sizes) >= outElements) {
                outElements = numel(r.inputs[i].sizes);
                outType = r.inputs[i].type;
            }
        if (outType.empty())
            outType = dtype, outElements = 1;
        const bool fills = name == "aten::fill_" || name == "aten::zero_";
        return bWork(fills ? 0 : outElements, (fills ? 0 : allTensorBytes(r)) + outElements * elementSize(outType),
                     roofOfType(dtype, false, m_allowTf32),
                     opName + (fills ? ": fill, bytes = output" : ": elementwise, 1 FLOP per output element; bytes = inputs + output")
                         + " (" + columnsUsed(r, false) + ")");
    }
    if (!isTensor(r, 0))
        return unknown(opName + ": input not recorded as a tensor");
    const double inElements = numel(r.inputs[0].sizes);
    const double inBytes = allTensorBytes(r);
    if (const auto it = kReductionDimPosition.find(name); it != kReductionDimPosition.end()) {
        // Output: the non-reduced dimensions. No dim argument (or an empty list) reduces everything.
        const auto& sizes = r.inputs[0].sizes;
        std::optional<double> outElements;
        const size_t pos = it->second;
        if (r.inputs.size() <= pos)
            outElements = 1;
        else if (r.hasConcrete) {
            const std::string_view text = concrete(r, pos);
            const auto dims = concreteInts(text);
            if (dims.empty() && (text == "[]" || text.empty() || text == "None"))
                outElements = 1;
            else if (!dims.empty()) {
                std::vector<bool> reduced(sizes.size(), false);
                for (int64_t d : dims) {
                    if (d < 0)
                        d += int64_t(sizes.size());
                    if (d >= 0 && size_t(d) < sizes.size())
                        reduced[size_t(d)] = true;
                }
                double e = 1;
                for (size_t d = 0; d < sizes.size(); ++d)
                    if (!reduced[d])
                        e *= double(sizes[d]);
                outElements = e;
            }
        }
        const int outSize = name == "aten::argmax" || name == "aten::argmin" ? 8
            : name == "aten::any" || name == "aten::all"                     ? 1
                                                                             : elementSize(dtype);
        return bWork(inElements, inBytes + outElements.value_or(0) * outSize, roofOfType(dtype, false, m_allowTf32),
                     opName + ": reduction, 1 FLOP per input element; bytes = inputs + "
                         + (outElements ? "output" : "(output not counted: the reduced dimensions were not recorded)") + " ("
                         + columnsUsed(r, outElements && r.inputs.size() > pos) + ")");
    }
    const bool softmax = kSoftmax.count(name) > 0;
    // Softmax and normalisation write one output like their input; _softmax(…, half_to_float=True) writes float.
    const int outSize = softmax && concrete(r, 2) == "True" && name.starts_with("aten::_") ? 4 : elementSize(r.inputs[0].type);
    return bWork(kFewFlopsPerElement * inElements, inBytes + inElements * outSize, roofOfType(dtype, false, m_allowTf32),
                 opName + (softmax ? ": softmax" : ": normalisation")
                     + ", ~5 FLOP per element; bytes = inputs + "
                       "output"
                     + (softmax ? "" : " (saved statistics not counted)") + " (" + columnsUsed(r, false) + ")");
}

std::vector<Charge> WorkEstimator::chargeKernels() const
{
    const trace::Trace& t = m_trace;
    std::vector<Charge> charge(t.events.size(), Charge{kNoIndex, {}});
    std::set<uint32_t> enclosingEstimated; // ops with a nested op that carries an estimate
    for (uint32_t i = 0; i < t.events.size(); ++i) {
        if (t.events[i].kind != EventKind::Kernel)
            continue;
        std::string reason;
        for (uint32_t op = t.opOf(i); op != kNoIndex; op = t.events[op].parent) {
            if (t.events[op].kind != EventKind::CpuOp)
                continue;
            const Work& w = opWork(op);
            if (w.level == 'B') {
                charge[i].op = op;
                break;
            }
            if (reason.empty())
                reason = w.basis;
        }
        charge[i].reason = charge[i].op == kNoIndex ? reason : std::string();
        if (charge[i].op != kNoIndex)
            for (uint32_t up = t.events[charge[i].op].parent; up != kNoIndex; up = t.events[up].parent)
                enclosingEstimated.insert(up);
    }
    for (Charge& c : charge)
        if (c.op != kNoIndex && enclosingEstimated.count(c.op)) {
            c.reason = std::string(t.strings.view(t.events[c.op].name))
                + ": its work is partly counted on the kernels of its nested ops; "
                  "charging it here would count that twice";
            c.op = kNoIndex;
        }
    return charge;
}

namespace {

// c10::ScalarType names, as Kineto writes the collective's "dtype".
int scalarTypeSize(std::string_view type)
{
    if (type == "Double" || type == "Long" || type == "ComplexFloat")
        return 8;
    if (type == "Float" || type == "Int" || type == "UInt32")
        return 4;
    if (type == "Half" || type == "BFloat16" || type == "Short" || type == "UInt16")
        return 2;
    if (type == "Byte" || type == "Char" || type == "Bool" || type.starts_with("Float8"))
        return 1;
    if (type == "ComplexDouble")
        return 16;
    return 0;
}

// "all_gather_into_tensor", "_reduce_scatter_base", "AllReduce" (from a kernel name) -> NCCL's collective.
std::string normaliseCollective(std::string_view recorded)
{
    std::string s;
    for (const char c : recorded)
        if (c != '_')
            s += char(std::tolower(static_cast<unsigned char>(c)));
    for (const char* name : {"allreduce", "allgather", "reducescatter", "alltoall", "broadcast", "sendrecv"})
        if (s.find(name) != std::string::npos)
            return name;
    if (s.find("send") != std::string::npos || s.find("recv") != std::string::npos)
        return "sendrecv";
    if (s.find("reduce") != std::string::npos)
        return "reduce";
    return std::string(recorded);
}

} // namespace

std::optional<double> busBandwidthFactor(std::string_view collective, int64_t n)
{
    if (collective == "broadcast" || collective == "reduce" || collective == "sendrecv")
        return 1.0;
    if (n < 1)
        return std::nullopt;
    if (collective == "allreduce")
        return 2.0 * double(n - 1) / double(n);
    if (collective == "allgather" || collective == "reducescatter" || collective == "alltoall")
        return double(n - 1) / double(n);
    return std::nullopt;
}

std::optional<Collective> collectiveOf(const trace::Trace& t, uint32_t kernel)
{
    const std::string_view kernelName = t.strings.view(t.events[kernel].name);
    if (!isCommunicationKernel(kernelName))
        return std::nullopt;
    Collective c;
    // The message args: on the kernel (Kineto since PyTorch 2.1), else on the record_param_comms op at its launch.
    const trace::CollectiveArgs* args = t.collectiveArgsOf(kernel);
    std::string where = "the kernel's args";
    if (!args)
        for (uint32_t op = t.opOf(kernel); op != kNoIndex; op = t.events[op].parent)
            if ((args = t.collectiveArgsOf(op))) {
                where = "the args of its launching op";
                break;
            }
    std::string recorded;
    if (args)
        recorded = t.strings.view(args->collectiveName);
    if (recorded.empty()) { // ncclKernel_AllReduce_RING_LL_Sum_float(...) -> AllReduce
        std::string_view rest = kernelName.substr(kernelName.find("Kernel_") + 7);
        recorded = std::string(rest.substr(0, rest.find('_')));
    }
    c.name = normaliseCollective(recorded);
    if (args)
        c.groupSize = args->groupSize;
    std::string groupFrom = "Group size";
    if (!c.groupSize && t.meta.distributedInfo) {
        try {
            const io::Json info = io::parseSmallJson(*t.meta.distributedInfo, "distributedInfo");
            if (const io::Json* w = io::jsonMember(info, "world_size"))
                c.groupSize = io::jsonInteger(w);
            groupFrom = "the trace's distributedInfo world_size";
        } catch (const io::TraceFileError&) { }
    }
    if (c.groupSize)
        c.busFactor = busBandwidthFactor(c.name, *c.groupSize);
    else
        c.busFactor = busBandwidthFactor(c.name, 0);
    if (!args) {
        c.basis = "message size not recorded (no 'In msg nelems' on the kernel or on a record_param_comms op around its launch)";
        return c;
    }
    const double elements = std::max({0.0, args->inNelems.value_or(0), args->outNelems.value_or(0)});
    const std::string dtype(t.strings.view(args->dtype));
    const int size = args->hasDtype ? scalarTypeSize(dtype) : 0;
    if (size == 0) {
        c.basis = "message element type " + (args->hasDtype ? "'" + dtype + "'" : std::string("(no dtype arg)")) + " not known";
        return c;
    }
    c.bytes = elements * size;
    c.basis = "message = max(In, Out msg nelems) x " + dtype + " (" + std::to_string(size) + " B), from " + where
        + (c.groupSize ? "; " + std::to_string(*c.groupSize) + " ranks from " + groupFrom : "");
    return c;
}

std::string kernelHint(std::string_view name)
{
    auto has = [&](std::string_view token) { return name.find(token) != std::string_view::npos; };
    // fp32 SGEMM without TF32 first: "xmma_gemm_f32f32" names CUDA-core GEMMs too (§6.2).
    if ((has("sgemm") || has("gemm_f32f32") || has("scudnn")) && !has("tf32"))
        return "'"
            + std::string(has("sgemm")        ? "sgemm"
                              : has("scudnn") ? "scudnn"
                                              : "gemm_f32f32")
            + "' suggests an FP32 CUDA-core GEMM/convolution (no TF32)";
    for (const char* token : {"nvjet", "wgmma", "hmma", "16816", "tensorop", "fmha", "sdpa", "flash"})
        if (has(token))
            return "'" + std::string(token) + "' suggests tensor-core code";
    if (has("xmma") || has("cutlass"))
        for (const char* precision : {"tf32", "bf16", "f16", "e4m3", "e5m2", "s8"})
            if (has(precision))
                return "'" + std::string(has("xmma") ? "xmma" : "cutlass") + "' with '" + precision + "' suggests tensor-core code";
    if (name.starts_with("triton_"))
        return "'triton_' marks an Inductor-generated Triton kernel (no torch op: give its work in the annotations file)";
    if (has("elementwise_kernel"))
        return "'elementwise_kernel' suggests an elementwise (memory-bound) kernel";
    if (has("reduce_kernel"))
        return "'reduce_kernel' suggests a reduction (memory-bound) kernel";
    return {};
}

} // namespace tilescope::roofline
