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

bool isDigit(char c) { return c >= '0' && c <= '9'; }

// A user's GPU name as tokens, a memory size in one form: "40 GB", "40G", "40GiB" and "40gb" all read "40gb".
std::vector<std::string> userTokens(const std::string& name)
{
    std::vector<std::string> split;
    std::string current;
    for (const char c : name + " ") {
        if (c == ' ' || c == '-' || c == '_') {
            if (!current.empty())
                split.push_back(current);
            current.clear();
        } else {
            current += char(std::tolower(static_cast<unsigned char>(c)));
        }
    }
    const auto digits = [](std::string_view t) { return !t.empty() && t.size() <= 4 && std::all_of(t.begin(), t.end(), isDigit); };
    const auto unit = [](std::string_view t) { return t == "gb" || t == "gib" || t == "g"; };
    std::vector<std::string> tokens;
    for (size_t i = 0; i < split.size(); ++i) {
        const std::string& t = split[i];
        if (digits(t) && i + 1 < split.size() && unit(split[i + 1])) {
            tokens.push_back(t + "gb");
            ++i;
            continue;
        }
        const size_t end = t.find_first_not_of("0123456789");
        if (end != std::string::npos && end > 0 && digits(std::string_view(t).substr(0, end)) && unit(std::string_view(t).substr(end)))
            tokens.push_back(t.substr(0, end) + "gb");
        else
            tokens.push_back(t);
    }
    return tokens;
}

std::optional<double> memoryGiBOf(const std::vector<std::string>& tokens)
{
    for (const std::string& t : tokens)
        if (t.size() > 2 && t.ends_with("gb") && std::all_of(t.begin(), t.end() - 2, isDigit))
            return std::stod(t.substr(0, t.size() - 2));
    return std::nullopt;
}

// Whether a GPU of this memory size is one of the row's variants (A100 40GB and 80GB are two rows).
bool rowHoldsMemory(const DeviceEntry& e, double memGiB)
{
    return !((e.minMemGiB && memGiB < *e.minMemGiB) || (e.maxMemGiB && memGiB >= *e.maxMemGiB));
}

double memoryGiBOf(const trace::DeviceProperties& device) { return double(device.totalGlobalMem) / double(1ull << 30); }

// What the trace says of its GPU that is not the row's: the trace's compute capability and SM count where they
// differ (empty, 0 where they agree or are not given), and whether its memory is none of the row's sizes. Each
// caller words them.
struct RowDifferences
{
    std::string computeCapability;
    int sms = 0;
    bool memory = false;
};
RowDifferences rowDifferences(const trace::DeviceProperties& device, const DeviceEntry& e)
{
    RowDifferences d;
    const std::string cc = std::to_string(device.computeMajor) + "." + std::to_string(device.computeMinor);
    if (device.computeMajor > 0 && !e.computeCapability.empty() && cc != e.computeCapability)
        d.computeCapability = cc;
    if (device.numSms > 0 && e.sms > 0 && device.numSms != e.sms)
        d.sms = device.numSms;
    d.memory = device.totalGlobalMem > 0 && !rowHoldsMemory(e, memoryGiBOf(device));
    return d;
}

// Whether every one of `words` is in `set`, and the first of `words` that is: how a row's tokens and its
// `without` list are tested against a name.
bool holdsAll(const std::set<std::string>& set, const std::vector<std::string>& words)
{
    return std::all_of(words.begin(), words.end(), [&](const std::string& w) { return set.count(w) > 0; });
}
const std::string* firstHeld(const std::set<std::string>& set, const std::vector<std::string>& words)
{
    const auto it = std::find_if(words.begin(), words.end(), [&](const std::string& w) { return set.count(w) > 0; });
    return it == words.end() ? nullptr : &*it;
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
    const std::vector<std::string> split = userTokens(device.name);
    const std::set<std::string> tokens(split.begin(), split.end());
    for (const DeviceEntry& e : database) {
        if (!holdsAll(tokens, e.tokens) || firstHeld(tokens, e.without))
            continue;
        const RowDifferences differ = rowDifferences(device, e);
        if (differ.memory)
            continue;
        m.entry = &e;
        m.notes.push_back("matched '" + device.name + "' to the " + e.id + " datasheet row (" + e.source + ")");
        if (!differ.computeCapability.empty())
            m.notes.push_back("compute capability " + differ.computeCapability + " differs from the row's " + e.computeCapability
                              + ": a different part?");
        if (differ.sms)
            m.notes.push_back(std::to_string(differ.sms) + " SMs against the row's " + std::to_string(e.sms)
                              + ": a cut-down or different part; its peaks are uncertain");
        if (e.provisional)
            m.notes.push_back("this row's figures are provisional (not re-checked against the datasheet)");
        return m;
    }
    m.notes.push_back("unknown device '" + device.name
                      + "': no datasheet row matches; choose the row to grade it against (--gpu, or Ceilings > GPU in the app), "
                        "or give measured ceilings with --ceilings (tilescope-cli calibrate) or a device file");
    return m;
}

namespace {

// The rows a user's name fits, and the first row it would fit but for a word of its `without` ("laptop" in
// "RTX 4090 Laptop"), to say why none fits.
struct RowsNamed
{
    std::vector<const DeviceEntry*> rows;
    const DeviceEntry* nearMiss = nullptr;
    std::string nearMissWord;
};

RowsNamed rowsNamed(const std::vector<DeviceEntry>& database, const std::string& name)
{
    RowsNamed out;
    const std::vector<std::string> tokens = userTokens(name);
    const std::set<std::string> given(tokens.begin(), tokens.end());
    if (given.empty())
        return out;
    // Each row's words: its id's and its tokens.
    std::vector<std::set<std::string>> rowWords;
    for (const DeviceEntry& e : database) {
        const std::vector<std::string> id = userTokens(e.id);
        std::set<std::string> words(id.begin(), id.end());
        if (words == given) {
            out.rows = {&e};
            return out;
        }
        words.insert(e.tokens.begin(), e.tokens.end());
        rowWords.push_back(std::move(words));
    }
    const std::optional<double> memGiB = memoryGiBOf(tokens);
    // The words that name the part: not the vendor's, not the size.
    std::set<std::string> naming;
    for (const std::string& t : given)
        if (t != "nvidia" && t != "geforce" && t != "tesla" && t != "gpu" && !(memGiB && t.ends_with("gb") && isDigit(t[0])))
            naming.insert(t);
    const auto missed = [&](const DeviceEntry& e, const std::string& word) {
        if (!out.nearMiss) {
            out.nearMiss = &e;
            out.nearMissWord = word;
        }
    };
    for (size_t i = 0; i < database.size(); ++i) {
        const DeviceEntry& e = database[i];
        if (memGiB && !rowHoldsMemory(e, *memGiB))
            continue;
        // As a trace's name is matched (every token of the row in the name), or a shorter name whose words are all
        // the row's ("4090", "a100 pcie").
        const bool rowInName = holdsAll(given, e.tokens);
        const auto inRow = [&](const std::set<std::string>& words) {
            return !words.empty() && std::includes(rowWords[i].begin(), rowWords[i].end(), words.begin(), words.end());
        };
        // A word of the row's `without` names another part ("Laptop", "Ti", "NVL"), as it does in a trace's name.
        if (const std::string* excluding = firstHeld(given, e.without)) {
            std::set<std::string> rest = naming;
            rest.erase(*excluding);
            if (rowInName || inRow(rest))
                missed(e, *excluding);
            continue;
        }
        if (rowInName || inRow(naming))
            out.rows.push_back(&e);
    }
    return out;
}

} // namespace

std::vector<const DeviceEntry*> deviceRowsNamed(const std::vector<DeviceEntry>& database, const std::string& name)
{
    return rowsNamed(database, name).rows;
}

std::string gpuNameProblem(const std::vector<DeviceEntry>& database, const std::string& name)
{
    const RowsNamed named = rowsNamed(database, name);
    if (named.rows.size() == 1)
        return {};
    std::string list;
    if (named.rows.empty()) {
        for (const DeviceEntry& e : database)
            list += (list.empty() ? "" : ", ") + e.id;
        const std::string why = named.nearMiss
            ? " (not the " + named.nearMiss->id + " row: '" + named.nearMissWord + "' names another part)"
            : std::string();
        return "no datasheet row for the GPU '" + name + "'" + why + "; the rows: " + list;
    }
    for (const DeviceEntry* e : named.rows)
        list += (list.empty() ? "" : ", ") + e->id;
    return "'" + name + "' fits several datasheet rows (" + list + "), whose ceilings differ: name one of them";
}

GpuChoice resolveGpu(const std::vector<DeviceEntry>& database, const trace::DeviceProperties* device, const std::string& gpu)
{
    GpuChoice choice;
    if (device) {
        DeviceMatch match = matchDevice(database, *device);
        choice.entry = match.entry;
        choice.notes = std::move(match.notes);
    }
    if (gpu.empty())
        return choice;
    const std::vector<const DeviceEntry*> rows = deviceRowsNamed(database, gpu);
    if (rows.empty()) {
        choice.error = gpuNameProblem(database, gpu);
    } else if (choice.entry) {
        // The trace's own GPU stands; a name that fits it (its own name, a shorter one) is no contradiction.
        if (std::find(rows.begin(), rows.end(), choice.entry) == rows.end())
            choice.error = "the trace ran on " + device->name + " (the " + choice.entry->id + " datasheet row), which '" + gpu
                + "' does not name: a GPU is chosen only for a trace that names none the datasheet table knows";
    } else if (rows.size() > 1) {
        choice.error = gpuNameProblem(database, gpu);
    } else {
        choice.entry = rows.front();
        choice.chosen = true;
        choice.notes = {(device ? "'" + device->name + "' has no datasheet row" : std::string("the trace has no deviceProperties"))
                        + "; the GPU chosen for it: the " + choice.entry->id + " datasheet row"
                        + (userTokens(gpu) == userTokens(choice.entry->id) ? std::string() : " (from '" + gpu + "')")};
        // What the trace says of its GPU against the chosen row: a difference is a doubt about the choice.
        if (device) {
            const DeviceEntry& e = *choice.entry;
            const RowDifferences found = rowDifferences(*device, e);
            std::vector<std::string> differ;
            if (!found.computeCapability.empty())
                differ.push_back("compute capability " + found.computeCapability + " against the row's " + e.computeCapability);
            if (found.sms)
                differ.push_back(std::to_string(found.sms) + " SMs against the row's " + std::to_string(e.sms));
            if (found.memory)
                differ.push_back("memory outside the row's sizes");
            if (!differ.empty()) {
                std::string text = "the trace's GPU has ";
                for (size_t i = 0; i < differ.size(); ++i)
                    text += (i == 0 ? "" : i + 1 == differ.size() ? " and " : ", ") + differ[i];
                choice.notes.push_back(text + ": did it run on the " + e.id + "?");
            }
        }
    }
    return choice;
}

bool measuredApplies(const MeasuredCeilings& measured, std::string_view traceGpu, const DeviceEntry* chosen,
                     const std::vector<DeviceEntry>& database)
{
    if (!traceGpu.empty())
        return !measuredOnAnotherGpu(measured, traceGpu);
    if (chosen && !measured.gpu.empty()) {
        const auto rows = deviceRowsNamed(database, measured.gpu);
        return std::find(rows.begin(), rows.end(), chosen) != rows.end();
    }
    return true;
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
