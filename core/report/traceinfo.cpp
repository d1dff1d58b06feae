// SPDX-License-Identifier: MIT
#include "report/traceinfo.h"

#include "io/jsonvalue.h"
#include "io/tracefileerror.h"
#include "report/jsonwriter.h"
#include "stats/timetext.h"
#include "stats/torchtable.h"
#include "trace/trace.h"

#include <algorithm>
#include <map>
#include <optional>

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

bool isOptionKey(std::string_view key) { return key == "record_shapes" || key == "profile_memory" || key == "with_stack" || key == "with_flops"; }

std::optional<Distributed> summariseDistributed(const std::optional<std::string>& raw)
{
    if (!raw)
        return std::nullopt;
    Distributed d;
    try {
        const io::JsonValue info = io::parseSmallJson(*raw, "distributedInfo");
        const auto text = [&](const char* key) {
            const io::JsonValue* v = info.find(key);
            return v && v->type == io::JsonValue::Type::String ? v->text : std::string();
        };
        const auto integer = [&](const char* key) {
            const io::JsonValue* v = info.find(key);
            return v ? v->integer() : std::nullopt;
        };
        d.backend = text("backend");
        d.ncclVersion = text("nccl_version");
        d.rank = integer("rank");
        d.worldSize = integer("world_size");
        d.groups = integer("pg_count");
        if (const io::JsonValue* groups = info.find("pg_config"); !d.groups && groups && groups->type == io::JsonValue::Type::Array)
            d.groups = int64_t(groups->items.size());
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
            f.perCategory[id == 0 ? std::string("(none)") : std::string(t.strings.view(static_cast<trace::StringId>(id)))] = perCategoryId[id];
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
    for (const auto& [name, on] : {std::pair{"record_shapes", m.recordShapes}, {"profile_memory", m.profileMemory},
                                  {"with_stack", m.withStack}, {"with_flops", m.withFlops}})
        if (on)
            f.options.emplace_back(name);
    f.distributed = summariseDistributed(m.distributedInfo);
    return f;
}

const char* trackTypeName(Track::Type type)
{
    switch (type) {
    case Track::Type::HostThread: return "cpu-thread";
    case Track::Type::GpuStream: return "gpu-stream";
    case Track::Type::Overhead: return "overhead";
    case Track::Type::Spans: return "spans";
    case Track::Type::Other: return "other";
    }
    return "other";
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

std::string trackLabel(const trace::Trace& t, const Track& track)
{
    const trace::Process& p = t.processes[track.process];
    std::string label = "pid " + std::string(t.strings.view(p.pidText)) + " tid " + std::string(t.strings.view(track.tidText));
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
    out += "devices:    " + std::to_string(m.devices.size()) + "\n";
    for (const auto& d : m.devices)
        out += "  [" + std::to_string(d.id) + "] " + d.name + ", compute " + std::to_string(d.computeMajor) + "."
            + std::to_string(d.computeMinor) + ", " + std::to_string(d.numSms) + " SMs, "
            + stats::formatTorchMemory(d.totalGlobalMem) + "\n";
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
        out += "  " + std::string(trackTypeName(track.type)) + "  " + trackLabel(t, track) + ": " + std::to_string(f.perTrack[i]) + " events";
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
    JsonWriter w;
    w.beginObject();
    w.key("trace").value(path);
    w.key("format").value(trace::traceFormatName(m.format));
    w.key("schema_version");
    m.schemaVersion ? w.value(*m.schemaVersion) : w.null();
    w.key("input_bytes").value(t.stats.inputBytes);
    w.key("json_bytes").value(t.stats.decodedBytes);
    w.key("records").value(t.stats.records);
    w.key("trace_name").value(m.traceName);
    w.key("display_time_unit").value(m.displayTimeUnit);
    w.key("metadata").beginObject();
    for (const auto& [key, raw] : m.otherKeys)
        w.key(key).raw(raw);
    w.endObject();
    w.key("options").beginArray();
    for (const std::string& name : f.options)
        w.value(name);
    w.endArray();
    w.key("base_time_ns");
    m.baseTimeNs ? w.value(*m.baseTimeNs) : w.null();
    w.key("first_ts_ns").value(t.firstTime());
    w.key("last_ts_ns").value(t.lastTime());
    w.key("span_us").value(static_cast<double>(t.lastTime() - t.firstTime()) / 1000.0);
    w.key("annotation_widening_undone_ns").beginObject();
    w.key("start").value(m.annotationWideningStart);
    w.key("end").value(m.annotationWideningEnd);
    w.endObject();
    w.key("distributed");
    if (const auto& d = f.distributed) {
        const auto optional = [&](const std::optional<int64_t>& v) { v ? w.value(*v) : w.null(); };
        w.beginObject();
        w.key("backend").value(d->backend);
        w.key("rank");
        optional(d->rank);
        w.key("world_size");
        optional(d->worldSize);
        w.key("process_groups");
        optional(d->groups);
        w.key("nccl_version").value(d->ncclVersion);
        w.endObject();
    } else {
        w.null();
    }
    w.key("devices").beginArray();
    for (const auto& d : m.devices)
        w.raw(d.rawJson);
    w.endArray();
    w.key("events_per_category").beginObject();
    for (const auto& [category, count] : f.perCategory)
        w.key(category).value(count);
    w.endObject();
    w.key("tracks").beginArray();
    for (const size_t i : f.trackOrder) {
        const Track& track = t.tracks[i];
        const trace::Process& p = t.processes[track.process];
        w.beginObject();
        w.key("type").value(trackTypeName(track.type));
        w.key("pid").value(t.strings.view(p.pidText));
        w.key("tid").value(t.strings.view(track.tidText));
        w.key("process_name").value(t.strings.view(p.name));
        w.key("thread_name").value(t.strings.view(track.name));
        if (track.type == Track::Type::GpuStream) {
            w.key("device").value(track.device);
            w.key("stream");
            track.stream ? w.value(*track.stream) : w.null();
        }
        w.key("events").value(f.perTrack[i]);
        w.key("max_depth").value(static_cast<int64_t>(track.maxDepth));
        w.key("overlapping").value(static_cast<int64_t>(track.partialOverlaps));
        w.endObject();
    }
    w.endArray();
    w.key("warnings").beginArray();
    for (const std::string& warning : t.stats.warnings)
        w.value(warning);
    w.endArray();
    w.endObject();
    return w.text() + "\n";
}

} // namespace tilescope::report
