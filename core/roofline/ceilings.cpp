// SPDX-License-Identifier: MIT
#include "roofline/ceilings.h"

#include "io/smalljson.h"
#include "io/tracefileerror.h"
#include "trace/trace.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace tilescope::roofline {

extern const char* const kBuiltinDevicesJson; // generated from resources/devices.json

namespace {

std::vector<DeviceEntry> parseDatabase(const io::Json& root, const std::string& name)
{
    auto bad = [&](const std::string& problem) { throw io::TraceFileError(name, std::nullopt, problem); };
    const io::Json* devices = io::jsonMember(root, "devices");
    if (!devices || !devices->is_array())
        bad("expected an object with a 'devices' array");
    // Lists of strings; anything else in them reads as "" (a token no name has).
    const auto strings = [](const io::Json* list) {
        std::vector<std::string> out;
        if (list && list->is_array())
            for (const io::Json& t : *list)
                out.push_back(t.is_string() ? t.get<std::string>() : std::string());
        return out;
    };
    std::vector<DeviceEntry> out;
    for (const io::Json& d : *devices) {
        DeviceEntry e;
        const io::Json* id = io::jsonMember(d, "id");
        const io::Json* tokens = io::jsonMember(d, "tokens");
        const auto bw = io::jsonDouble(io::jsonMember(d, "mem_bw"));
        if (!id || !id->is_string() || !tokens || !tokens->is_array() || !bw)
            bad("device entry " + std::to_string(out.size()) + " needs 'id', 'tokens' and 'mem_bw'");
        e.id = id->get<std::string>();
        e.tokens = strings(tokens);
        e.without = strings(io::jsonMember(d, "without"));
        e.computeCapability = io::jsonText(d, "cc");
        if (const io::Json* sms = io::jsonMember(d, "sms"))
            e.sms = int(io::jsonInteger(sms).value_or(0));
        if (const io::Json* v = io::jsonMember(d, "min_mem_gib"))
            e.minMemGiB = io::jsonDouble(v);
        if (const io::Json* v = io::jsonMember(d, "max_mem_gib"))
            e.maxMemGiB = io::jsonDouble(v);
        if (const io::Json* v = io::jsonMember(d, "provisional"))
            e.provisional = v->is_boolean() && v->get<bool>();
        e.source = io::jsonText(d, "source");
        auto rate = [&](const char* key) { return io::jsonDouble(io::jsonMember(d, key)).value_or(0.0); };
        e.peaks = {*bw, rate("fp64"), rate("fp32"), rate("tf32"), rate("bf16"), rate("fp16"), rate("fp8"), rate("int8")};
        out.push_back(std::move(e));
    }
    return out;
}

std::set<std::string> nameTokens(const std::string& name)
{
    std::set<std::string> tokens;
    std::string current;
    for (const char c : name + " ") {
        if (c == ' ' || c == '-') {
            if (!current.empty())
                tokens.insert(current);
            current.clear();
        } else {
            current += char(std::tolower(static_cast<unsigned char>(c)));
        }
    }
    return tokens;
}

} // namespace

double roofRate(const Ceilings& c, std::string_view roof)
{
    if (roof == "fp64")
        return c.fp64;
    if (roof == "fp32")
        return c.fp32;
    if (roof == "tf32")
        return c.tf32;
    if (roof == "bf16")
        return c.bf16;
    if (roof == "fp16")
        return c.fp16;
    if (roof == "fp8")
        return c.fp8;
    if (roof == "int8")
        return c.int8;
    return 0;
}

std::vector<DeviceEntry> builtinDeviceDatabase()
{
    return parseDatabase(io::parseSmallJson(kBuiltinDevicesJson, "resources/devices.json"), "resources/devices.json");
}

std::vector<DeviceEntry> loadDeviceDatabase(const std::string& path) { return parseDatabase(io::readSmallJsonFile(path), path); }

DeviceMatch matchDevice(const std::vector<DeviceEntry>& database, const trace::DeviceProperties& device)
{
    DeviceMatch m;
    const auto tokens = nameTokens(device.name);
    const double memGiB = double(device.totalGlobalMem) / double(1ull << 30);
    for (const DeviceEntry& e : database) {
        const bool all = std::all_of(e.tokens.begin(), e.tokens.end(), [&](const std::string& t) { return tokens.count(t) > 0; });
        const bool none = std::none_of(e.without.begin(), e.without.end(), [&](const std::string& t) { return tokens.count(t) > 0; });
        if (!all || !none)
            continue;
        if (device.totalGlobalMem > 0 && ((e.minMemGiB && memGiB < *e.minMemGiB) || (e.maxMemGiB && memGiB >= *e.maxMemGiB)))
            continue;
        m.entry = &e;
        m.notes.push_back("matched '" + device.name + "' to the " + e.id + " datasheet row (" + e.source + ")");
        const std::string cc = std::to_string(device.computeMajor) + "." + std::to_string(device.computeMinor);
        if (device.computeMajor > 0 && !e.computeCapability.empty() && cc != e.computeCapability)
            m.notes.push_back("compute capability " + cc + " differs from the row's " + e.computeCapability + ": a different part?");
        if (device.numSms > 0 && e.sms > 0 && device.numSms != e.sms)
            m.notes.push_back(std::to_string(device.numSms) + " SMs against the row's " + std::to_string(e.sms)
                              + ": a cut-down or different part; its peaks are uncertain");
        if (e.provisional)
            m.notes.push_back("this row's figures are provisional (not re-checked against the datasheet)");
        return m;
    }
    m.notes.push_back("unknown device '" + device.name
                      + "': no datasheet row matches; give measured ceilings with --ceilings "
                        "(tilescope-cli calibrate) or a device file");
    return m;
}

const DeviceEntry* deviceRowNamed(const std::vector<DeviceEntry>& database, const std::string& name)
{
    const auto tokens = nameTokens(name);
    if (tokens.empty())
        return nullptr;
    for (const DeviceEntry& e : database)
        if (nameTokens(e.id) == tokens)
            return &e;
    trace::DeviceProperties device;
    device.name = name;
    for (const std::string& t : tokens) // "40gb": the size that tells variants apart
        if (t.size() > 2 && t.size() <= 6 && t.ends_with("gb")
            && std::all_of(t.begin(), t.end() - 2, [](char c) { return c >= '0' && c <= '9'; }))
            device.totalGlobalMem = std::stoll(t.substr(0, t.size() - 2)) << 30;
    return matchDevice(database, device).entry;
}

std::string unknownGpuText(const std::vector<DeviceEntry>& database, const std::string& name)
{
    std::string rows;
    for (const DeviceEntry& e : database)
        rows += (rows.empty() ? "" : ", ") + e.id;
    return "no datasheet row for the GPU '" + name + "'; the rows: " + rows;
}

MeasuredCeilings loadMeasuredCeilings(const std::string& path)
{
    const io::Json root = io::readSmallJsonFile(path);
    if (!root.is_object())
        throw io::TraceFileError(path, std::nullopt, "expected a JSON object of measured ceilings");
    MeasuredCeilings m;
    auto take = [&](const char* key, std::optional<double>& into) {
        if (const io::Json* v = io::jsonMember(root, key)) {
            const auto value = io::jsonDouble(v);
            if (!value || *value <= 0)
                throw io::TraceFileError(path, std::nullopt, std::string("'") + key + "' must be a positive number");
            into = value;
        }
    };
    take("copy_bytes_per_s", m.memoryBytesPerS);
    take("fp32_notf32_mm_flops_per_s", m.fp32);
    take("tf32_mm_flops_per_s", m.tf32);
    take("bf16_mm_flops_per_s", m.bf16);
    take("fp16_mm_flops_per_s", m.fp16);
    take("fp8_mm_flops_per_s", m.fp8);
    take("fp64_mm_flops_per_s", m.fp64);
    if (!m.memoryBytesPerS && !m.fp32 && !m.tf32 && !m.bf16 && !m.fp16 && !m.fp8 && !m.fp64)
        throw io::TraceFileError(path, std::nullopt, "no known ceiling keys (copy_bytes_per_s, bf16_mm_flops_per_s, ...)");
    m.gpu = io::jsonText(root, "gpu");
    return m;
}

Ceilings applyMeasured(const Ceilings& d, const MeasuredCeilings& m)
{
    Ceilings c = d;
    c.memoryBytesPerS = m.memoryBytesPerS.value_or(d.memoryBytesPerS);
    c.fp32 = m.fp32.value_or(d.fp32);
    c.tf32 = m.tf32.value_or(d.tf32);
    c.bf16 = m.bf16.value_or(d.bf16);
    c.fp16 = m.fp16.value_or(d.fp16);
    c.fp8 = m.fp8.value_or(d.fp8);
    c.fp64 = m.fp64.value_or(d.fp64);
    return c;
}

bool measuredOnAnotherGpu(const MeasuredCeilings& measured, std::string_view traceGpu)
{
    const auto trimmed = [](std::string_view s) {
        const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
        while (!s.empty() && space(s.front()))
            s.remove_prefix(1);
        while (!s.empty() && space(s.back()))
            s.remove_suffix(1);
        return s;
    };
    const std::string_view a = trimmed(measured.gpu), b = trimmed(traceGpu);
    if (a.empty() || b.empty())
        return false;
    return !std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
        return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
    });
}

} // namespace tilescope::roofline
