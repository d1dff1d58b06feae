// SPDX-License-Identifier: MIT
#include "trace/opinputs.h"

#include "io/decimal.h"

#include <charconv>
#include <cstring>

namespace tilescope::trace {

using io::JsonReader;
using io::JsonToken;

namespace {

void expect(JsonReader& reader, JsonToken got, JsonToken want, const char* what)
{
    if (got != want)
        reader.failAt(reader.tokenOffset(),
                      std::string("expected ") + io::jsonTokenName(want) + " for " + what + ", found " + io::jsonTokenName(got));
}

template <typename T> void appendBytes(std::string& out, const T& value)
{
    out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

void appendText(std::string& out, std::string_view text)
{
    appendBytes(out, static_cast<uint32_t>(text.size()));
    out.append(text);
}

} // namespace

void OpInputTable::get(uint32_t id, const StringPool& strings, OpInputList& out) const
{
    const List& list = m_lists[id];
    out.inputs.clear();
    out.hasStrides = list.hasStrides;
    out.hasConcrete = list.hasConcrete;
    for (uint32_t i = 0; i < list.count; ++i) {
        const Entry& e = m_entries[list.firstEntry + i];
        const int64_t* values = m_values.data() + e.firstValue;
        out.inputs.push_back(
            {{values, e.sizeCount}, {values + e.sizeCount, e.strideCount}, strings.view(e.type), strings.view(e.concrete), e.isList});
    }
}

OpInputList OpInputTable::get(uint32_t id, const StringPool& strings) const
{
    OpInputList out;
    get(id, strings, out);
    return out;
}

void OpInputReader::reset()
{
    m_count = 0;
    m_hasDims = m_hasStrides = m_hasConcrete = false;
}

OpInputReader::Pending& OpInputReader::input(size_t i)
{
    if (i >= m_inputs.size())
        m_inputs.resize(i + 1);
    for (; m_count <= i; ++m_count) {
        Pending& p = m_inputs[m_count];
        p.sizes.clear();
        p.strides.clear();
        p.type.clear();
        p.concrete.clear();
        p.isList = false;
    }
    return m_inputs[i];
}

namespace {

// Reads the rest of one inner array (its ArrayBegin already read) of integers into `out`; anything else is
// skipped. A number that is not an integer is an error naming `strictArg`, or skipped when it is null.
// Returns whether the array held a nested array (a TensorList).
bool readIntegerArray(JsonReader& reader, std::vector<int64_t>& out, const char* strictArg)
{
    bool nested = false;
    for (JsonToken token = reader.next(); token != JsonToken::ArrayEnd; token = reader.next()) {
        if (token == JsonToken::Number) {
            const auto v = io::parseExactInteger(reader.text());
            if (v)
                out.push_back(*v);
            else if (strictArg)
                reader.failAt(reader.tokenOffset(),
                              "expected an integer size in " + std::string(strictArg) + ", found " + std::string(reader.text()));
        } else {
            nested = nested || token == JsonToken::ArrayBegin;
            reader.skipValue(token);
        }
    }
    return nested;
}

} // namespace

void OpInputReader::readDims(JsonReader& reader, JsonToken first)
{
    expect(reader, first, JsonToken::ArrayBegin, "args 'Input Dims'");
    m_hasDims = true;
    for (size_t i = 0;; ++i) {
        JsonToken token = reader.next();
        if (token == JsonToken::ArrayEnd)
            return;
        Pending& in = input(i);
        if (token != JsonToken::ArrayBegin) {
            reader.skipValue(token); // None and other non-tensors: no sizes
            continue;
        }
        in.isList = readIntegerArray(reader, in.sizes, "args 'Input Dims'");
        if (in.isList)
            in.sizes.clear(); // torch records only plain tensor sizes: a TensorList becomes []
    }
}

void OpInputReader::readStrides(JsonReader& reader, JsonToken first)
{
    if (first != JsonToken::ArrayBegin) { // strides only refine byte counts: never an error
        reader.skipValue(first);
        return;
    }
    for (size_t i = 0;; ++i) {
        JsonToken token = reader.next();
        if (token == JsonToken::ArrayEnd)
            return;
        m_hasStrides = true;
        Pending& in = input(i);
        if (token != JsonToken::ArrayBegin) {
            reader.skipValue(token);
            continue;
        }
        readIntegerArray(reader, in.strides, nullptr);
    }
}

void OpInputReader::readTypes(JsonReader& reader, JsonToken first) { readStringList(reader, first, true); }

void OpInputReader::readConcrete(JsonReader& reader, JsonToken first) { readStringList(reader, first, false); }

void OpInputReader::readStringList(JsonReader& reader, JsonToken first, bool types)
{
    expect(reader, first, JsonToken::ArrayBegin, types ? "args 'Input type'" : "args 'Concrete Inputs'");
    for (size_t i = 0;; ++i) {
        const JsonToken token = reader.next();
        if (token == JsonToken::ArrayEnd)
            return;
        m_hasConcrete = m_hasConcrete || !types;
        Pending& in = input(i);
        std::string& target = types ? in.type : in.concrete;
        if (token == JsonToken::String)
            target = reader.text();
        else
            reader.skipValue(token);
    }
}

void OpInputReader::makeKey()
{
    std::string& k = m_key;
    k.clear();
    appendBytes(k, static_cast<uint32_t>(m_count));
    k += char((m_hasStrides ? 1 : 0) | (m_hasConcrete ? 2 : 0));
    for (size_t i = 0; i < m_count; ++i) {
        const Pending& in = m_inputs[i];
        k += char(in.isList ? 1 : 0);
        appendBytes(k, static_cast<uint32_t>(in.sizes.size()));
        k.append(reinterpret_cast<const char*>(in.sizes.data()), in.sizes.size() * sizeof(int64_t));
        appendBytes(k, static_cast<uint32_t>(in.strides.size()));
        k.append(reinterpret_cast<const char*>(in.strides.data()), in.strides.size() * sizeof(int64_t));
        appendText(k, in.type);
        appendText(k, in.concrete);
    }
}

uint32_t OpInputReader::store(OpInputTable& table, StringPool& strings)
{
    makeKey();
    if (const auto known = m_known.find(m_key); known != m_known.end())
        return known->second;
    const auto id = static_cast<uint32_t>(table.m_lists.size());
    m_known.emplace(m_key, id);
    OpInputTable::List list{};
    list.firstEntry = static_cast<uint32_t>(table.m_entries.size());
    list.count = static_cast<uint32_t>(m_count);
    list.hasStrides = m_hasStrides;
    list.hasConcrete = m_hasConcrete;
    std::string types;
    m_text.assign("[");
    for (size_t i = 0; i < m_count; ++i) {
        const Pending& in = m_inputs[i];
        OpInputTable::Entry e{};
        e.firstValue = static_cast<uint32_t>(table.m_values.size());
        e.sizeCount = static_cast<uint32_t>(in.sizes.size());
        e.strideCount = static_cast<uint32_t>(in.strides.size());
        e.type = strings.intern(in.type);
        e.concrete = strings.intern(in.concrete);
        e.isList = in.isList;
        table.m_values.insert(table.m_values.end(), in.sizes.begin(), in.sizes.end());
        table.m_values.insert(table.m_values.end(), in.strides.begin(), in.strides.end());
        table.m_entries.push_back(e);
        if (i > 0) {
            m_text += ", ";
            types += ", ";
        }
        m_text += '[';
        for (size_t k = 0; k < in.sizes.size(); ++k) {
            if (k > 0)
                m_text += ", ";
            m_text += std::to_string(in.sizes[k]);
        }
        m_text += ']';
        types += in.type;
    }
    m_text += ']';
    list.shapes = strings.intern(m_text);
    list.types = strings.intern(types);
    table.m_lists.push_back(list);
    return id;
}

void OpInputReader::assign(const OpInputTable& table, uint32_t id, const StringPool& strings)
{
    const OpInputTable::List& list = table.m_lists[id];
    reset();
    m_hasDims = true;
    m_hasStrides = list.hasStrides;
    m_hasConcrete = list.hasConcrete;
    for (uint32_t i = 0; i < list.count; ++i) {
        const OpInputTable::Entry& e = table.m_entries[list.firstEntry + i];
        const int64_t* values = table.m_values.data() + e.firstValue;
        Pending& in = input(i);
        in.sizes.assign(values, values + e.sizeCount);
        in.strides.assign(values + e.sizeCount, values + e.sizeCount + e.strideCount);
        in.type = strings.view(e.type);
        in.concrete = strings.view(e.concrete);
        in.isList = e.isList;
    }
}

namespace {

uint64_t product(std::span<const int64_t> sizes)
{
    uint64_t p = 1;
    for (const int64_t s : sizes)
        p *= static_cast<uint64_t>(s);
    return p;
}

bool tensorAt(std::span<const OpInput> inputs, size_t i) { return i < inputs.size() && !inputs[i].isList && isTensorType(inputs[i].type); }

uint64_t matmulFlops(std::span<const int64_t> mat1, std::span<const int64_t> mat2)
{
    if (mat1.empty() || mat1.back() == 0)
        return 0;
    return 2 * (product(mat1) / static_cast<uint64_t>(mat1.back())) * product(mat2);
}

uint64_t batchedMatmulFlops(std::span<const int64_t> mat1, std::span<const int64_t> mat2)
{
    if (mat1.size() < 2 || mat1.back() == 0 || mat1.front() == 0)
        return 0;
    return 2 * (product(mat1) / static_cast<uint64_t>(mat1.back()) / static_cast<uint64_t>(mat1.front())) * product(mat2);
}

} // namespace

bool isTensorType(std::string_view type)
{
    return !(type.empty() || type == "Scalar" || type == "ScalarList" || type == "TensorList" || type == "GenericList" || type == "None");
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
        if (stride.size() != 2 || padding.size() != 2 || dilation.size() != 2 || groups.size() != 1 || groups[0] == 0 || stride[0] == 0
            || stride[1] == 0)
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

} // namespace tilescope::trace
