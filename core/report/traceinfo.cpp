// SPDX-License-Identifier: MIT
#include "report/traceinfo.h"

#include "io/smalljson.h"
#include "io/tracefileerror.h"
#include "stats/timetext.h"
#include "stats/torchtable.h"
#include "trace/trace.h"
#include "trace/tracktypename.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace tilescope::report {

namespace {

using trace::Track;

// distributedInfo summarised: a 300-rank run lists every rank of every process group.
struct Distributed
{
    std::string backend, ncclVersion;
    std::optional<int64_t> rank, worldSize, groups;
};

struct Facts
{
    std::map<std::string, uint64_t> perCategory;
    std::vector<uint64_t> perTrack;
    std::vector<size_t> trackOrder;
    std::vector<std::string> options; // the profiler options the trace records as on
    std::optional<Distributed> distributed;
};

bool isOptionKey(std::string_view key)
{
    return key == "record_shapes" || key == "profile_memory" || key == "with_stack" || key == "with_flops";
}

std::optional<Distributed> summariseDistributed(const std::optional<std::string>& raw)
{
    if (!raw)
        return std::nullopt;
    Distributed d;
    try {
        const io::Json info = io::parseSmallJson(*raw, "distributedInfo");
        const auto text = [&](const char* key) { return io::jsonText(info, key); };
        const auto integer = [&](const char* key) { return io::jsonInteger(io::jsonMember(info, key)); };
        d.backend = text("backend");
        d.ncclVersion = text("nccl_version");
        d.rank = integer("rank");
        d.worldSize = integer("world_size");
        d.groups = integer("pg_count");
        if (const io::Json* groups = io::jsonMember(info, "pg_config"); !d.groups && groups && groups->is_array())
            d.groups = int64_t(groups->size());
    } catch (const io::TraceFileError&) {
        // Not an object of the usual shape: say only that the run was distributed.
    }
    return d;
}

Facts gather(const trace::Trace& t)
{
    Facts f;
    f.perTrack.assign(t.tracks.size(), 0);
    std::vector<uint64_t> perCategoryId(t.strings.size(), 0);
    for (const trace::Event& e : t.events) {
        ++perCategoryId[e.category];
        ++f.perTrack[e.track];
    }
    for (size_t id = 0; id < perCategoryId.size(); ++id)
        if (perCategoryId[id] > 0)
            f.perCategory[id == 0 ? std::string("(none)") : std::string(t.strings.view(static_cast<trace::StringId>(id)))]
                = perCategoryId[id];
    uint64_t memory = 0, oom = 0;
    for (const trace::MemoryRecord& m : t.memory)
        (m.outOfMemory ? oom : memory) += 1;
    if (memory)
        f.perCategory["[memory] instants"] = memory;
    if (oom)
        f.perCategory["[OutOfMemory] instants"] = oom;
    if (!t.flows.empty())
        f.perCategory["flow records"] = t.flows.size();
    if (!t.counters.empty())
        f.perCategory["counter samples"] = t.counters.size();
    for (size_t i = 0; i < t.tracks.size(); ++i)
        if (f.perTrack[i] > 0)
            f.trackOrder.push_back(i);
    auto sortKey = [&](size_t i) {
        const Track& track = t.tracks[i];
        const trace::Process& p = t.processes[track.process];
        return std::make_tuple(p.sortIndex.value_or(p.pid.value_or(0)), track.sortIndex.value_or(track.tid.value_or(0)), i);
    };
    std::sort(f.trackOrder.begin(), f.trackOrder.end(), [&](size_t a, size_t b) { return sortKey(a) < sortKey(b); });
    const auto& m = t.meta;
    for (const auto& [name, on] : {std::pair{"record_shapes", m.recordShapes},
                                   {"profile_memory", m.profileMemory},
                                   {"with_stack", m.withStack},
                                   {"with_flops", m.withFlops}})
        if (on)
            f.options.emplace_back(name);
    f.distributed = summariseDistributed(m.distributedInfo);
    return f;
}

std::string unquote(const std::string& raw)
{
    if (raw.size() >= 2 && raw.front() == '"' && raw.back() == '"')
        return raw.substr(1, raw.size() - 2);
    return raw;
}

// A metadata value in the text, cut to a line; the JSON keeps it whole.
std::string clipped(const std::string& value)
{
    constexpr size_t kMax = 200;
    if (value.size() <= kMax)
        return value;
    size_t cut = kMax;
    while (cut > 0 && (static_cast<unsigned char>(value[cut]) & 0xC0) == 0x80) // not inside a UTF-8 sequence
        --cut;
    return value.substr(0, cut) + "... (" + std::to_string(value.size()) + " bytes; --format json has it all)";
}

// A pid or tid as the file has it; a string one quoted, so that "" and names with spaces read as such.
std::string idText(std::string_view text, bool isString) { return isString ? "\"" + std::string(text) + "\"" : std::string(text); }

std::string trackLabel(const trace::Trace& t, const Track& track)
{
    const trace::Process& p = t.processes[track.process];
    std::string label = "pid " + idText(t.strings.view(p.pidText), p.pidIsString) + " tid "
        + idText(t.strings.view(track.tidText), track.tidIsString);
    if (track.type == Track::Type::GpuStream && track.stream)
        label = "GPU " + std::to_string(track.device) + " stream " + std::to_string(*track.stream);
    if (track.name != 0)
        label += " \"" + std::string(t.strings.view(track.name)) + "\"";
    return label;
}

} // namespace

std::string traceInfoText(const std::string& path, const trace::Trace& t)
{
    const Facts f = gather(t);
    const auto& m = t.meta;
    std::string out;
    out += "trace:      " + path + "\n";
    out += "format:     " + std::string(trace::traceFormatName(m.format));
    if (m.schemaVersion)
        out += ", schemaVersion " + std::to_string(*m.schemaVersion);
    out += "\n";
    out += "size:       " + std::to_string(t.stats.inputBytes) + " bytes";
    if (t.stats.decodedBytes != t.stats.inputBytes)
        out += " (" + std::to_string(t.stats.decodedBytes) + " bytes of JSON)";
    out += ", " + std::to_string(t.stats.records) + " records\n";
    if (!m.traceName.empty())
        out += "traceName: " + m.traceName + "\n";
    if (!m.displayTimeUnit.empty())
        out += "displayTimeUnit: " + m.displayTimeUnit + "\n";
    for (const auto& [key, raw] : m.otherKeys)
        if (!isOptionKey(key))
            out += key + ": " + clipped(unquote(raw)) + "\n";
    std::string options;
    for (const std::string& name : f.options)
        options += (options.empty() ? "" : ", ") + name;
    out += "options:    " + (options.empty() ? std::string("(none recorded)") : options) + "\n";
    if (m.baseTimeNs)
        out += "baseTimeNanoseconds: " + std::to_string(*m.baseTimeNs) + "\n";
    out += "time span:  " + stats::formatDuration(t.lastTime() - t.firstTime()) + " (ts " + stats::formatMicroseconds(t.firstTime())
        + " .. " + stats::formatMicroseconds(t.lastTime()) + " us)\n";
    if (m.annotationWideningStart || m.annotationWideningEnd)
        out += "gpu_user_annotation widening undone: start +" + std::to_string(m.annotationWideningStart) + " ns, end -"
            + std::to_string(m.annotationWideningEnd) + " ns\n";
    if (m.devices.empty()) {
        // No deviceProperties in the file: say so rather than "0" beside GPU streams with kernels on them.
        std::set<int> active;
        for (const trace::Track& track : t.tracks)
            if (track.type == trace::Track::Type::GpuStream && !track.events.empty())
                active.insert(track.device);
        out += "devices:    none described (no deviceProperties)";
        if (!active.empty()) {
            out += "; GPU activity on device";
            out += active.size() > 1 ? "s" : "";
            for (const int d : active)
                out += " " + std::to_string(d);
        }
        out += "\n";
    } else {
        out += "devices:    " + std::to_string(m.devices.size()) + "\n";
    }
    for (const auto& d : m.devices)
        out += "  [" + std::to_string(d.id) + "] " + d.name + ", compute " + std::to_string(d.computeMajor) + "."
            + std::to_string(d.computeMinor) + ", " + std::to_string(d.numSms) + " SMs, " + stats::formatTorchMemory(d.totalGlobalMem)
            + "\n";
    if (const auto& d = f.distributed) {
        out += "distributed: backend " + (d->backend.empty() ? std::string("?") : d->backend);
        out += ", rank " + (d->rank ? std::to_string(*d->rank) : std::string("?"));
        out += " of world size " + (d->worldSize ? std::to_string(*d->worldSize) : std::string("?"));
        if (d->groups)
            out += ", " + std::to_string(*d->groups) + " process groups";
        if (!d->ncclVersion.empty())
            out += ", NCCL " + d->ncclVersion;
        out += "\n";
    }
    out += "events per category:\n";
    for (const auto& [category, count] : f.perCategory)
        out += "  " + category + ": " + std::to_string(count) + "\n";
    out += "tracks:     " + std::to_string(f.trackOrder.size()) + " with events\n";
    for (const size_t i : f.trackOrder) {
        const Track& track = t.tracks[i];
        out += "  " + std::string(trackTypeName(track.type)) + "  " + trackLabel(t, track) + ": " + std::to_string(f.perTrack[i])
            + (f.perTrack[i] == 1 ? " event" : " events");
        if (track.maxDepth > 0)
            out += ", depth " + std::to_string(track.maxDepth + 1);
        if (track.partialOverlaps > 0)
            out += ", " + std::to_string(track.partialOverlaps) + " overlapping";
        out += "\n";
    }
    for (const std::string& w : t.stats.warnings)
        out += "warning: " + w + "\n";
    return out;
}

std::string traceInfoJson(const std::string& path, const trace::Trace& t)
{
    const Facts f = gather(t);
    const auto& m = t.meta;
    // A value the trace holds as raw JSON text (the strict reader has checked it).
    const auto raw = [](std::string_view json) { return io::parseSmallJson(json, "trace metadata"); };
    const auto optional = [](const auto& v) { return v ? io::Json(*v) : io::Json(nullptr); };
    io::Json j;
    j["trace"] = path;
    j["format"] = trace::traceFormatName(m.format);
    j["schema_version"] = optional(m.schemaVersion);
    j["input_bytes"] = t.stats.inputBytes;
    j["json_bytes"] = t.stats.decodedBytes;
    j["records"] = t.stats.records;
    j["trace_name"] = m.traceName;
    j["display_time_unit"] = m.displayTimeUnit;
    io::Json& metadata = j["metadata"] = io::Json::object();
    for (const auto& [key, text] : m.otherKeys)
        metadata[key] = raw(text);
    j["options"] = f.options;
    j["base_time_ns"] = optional(m.baseTimeNs);
    j["first_ts_ns"] = t.firstTime();
    j["last_ts_ns"] = t.lastTime();
    j["span_us"] = io::jsonNumber(static_cast<double>(t.lastTime() - t.firstTime()) / 1000.0);
    j["annotation_widening_undone_ns"] = {{"start", m.annotationWideningStart}, {"end", m.annotationWideningEnd}};
    if (const auto& d = f.distributed)
        j["distributed"] = {{"backend", d->backend},
                            {"rank", optional(d->rank)},
                            {"world_size", optional(d->worldSize)},
                            {"process_groups", optional(d->groups)},
                            {"nccl_version", d->ncclVersion}};
    else
        j["distributed"] = nullptr;
    io::Json& devices = j["devices"] = io::Json::array();
    for (const auto& d : m.devices)
        devices.push_back(raw(d.rawJson));
    io::Json& perCategory = j["events_per_category"] = io::Json::object();
    for (const auto& [category, count] : f.perCategory)
        perCategory[category] = count;
    io::Json& tracks = j["tracks"] = io::Json::array();
    for (const size_t i : f.trackOrder) {
        const Track& track = t.tracks[i];
        const trace::Process& p = t.processes[track.process];
        io::Json entry = {{"type", trackTypeName(track.type)},
                          {"pid", std::string(t.strings.view(p.pidText))},
                          {"tid", std::string(t.strings.view(track.tidText))},
                          {"process_name", std::string(t.strings.view(p.name))},
                          {"thread_name", std::string(t.strings.view(track.name))}};
        if (track.type == Track::Type::GpuStream) {
            entry["device"] = track.device;
            entry["stream"] = optional(track.stream);
        }
        entry["events"] = f.perTrack[i];
        entry["max_depth"] = static_cast<int64_t>(track.maxDepth);
        entry["overlapping"] = static_cast<int64_t>(track.partialOverlaps);
        tracks.push_back(std::move(entry));
    }
    j["warnings"] = t.stats.warnings;
    return io::dumpJson(j) + "\n";
}

} // namespace tilescope::report
