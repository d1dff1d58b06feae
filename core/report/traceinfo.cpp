// SPDX-License-Identifier: MIT
#include "report/traceinfo.h"

#include "report/jsonwriter.h"
#include "stats/torchtable.h"
#include "trace/trace.h"

#include <algorithm>
#include <map>

namespace tilescope::report {

namespace {

using trace::Track;

struct Facts
{
    std::map<std::string, uint64_t> perCategory;
    std::vector<uint64_t> perTrack;
    std::vector<size_t> trackOrder;
};

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
    for (const char* key : {"cuda_driver_version", "cuda_runtime_version", "cupti_version", "trace_id"})
        if (const auto v = m.key(key))
            out += std::string(key) + ": " + unquote(*v) + "\n";
    std::string options;
    for (const auto& [name, on] : {std::pair{"record_shapes", m.recordShapes}, {"profile_memory", m.profileMemory},
                                  {"with_stack", m.withStack}, {"with_flops", m.withFlops}})
        if (on)
            options += (options.empty() ? "" : ", ") + std::string(name);
    out += "options:    " + (options.empty() ? std::string("(none recorded)") : options) + "\n";
    if (m.baseTimeNs)
        out += "baseTimeNanoseconds: " + std::to_string(*m.baseTimeNs) + "\n";
    const double spanUs = static_cast<double>(t.lastTime() - t.firstTime()) / 1000.0;
    out += "time span:  " + stats::formatTorchTime(spanUs) + " (ts " + stats::formatFixed(static_cast<double>(t.firstTime()) / 1000.0, 3)
        + " .. " + stats::formatFixed(static_cast<double>(t.lastTime()) / 1000.0, 3) + " us)\n";
    if (m.annotationWideningStart || m.annotationWideningEnd)
        out += "gpu_user_annotation widening undone: start +" + std::to_string(m.annotationWideningStart) + " ns, end -"
            + std::to_string(m.annotationWideningEnd) + " ns\n";
    out += "devices:    " + std::to_string(m.devices.size()) + "\n";
    for (const auto& d : m.devices)
        out += "  [" + std::to_string(d.id) + "] " + d.name + ", compute " + std::to_string(d.computeMajor) + "."
            + std::to_string(d.computeMinor) + ", " + std::to_string(d.numSms) + " SMs, "
            + stats::formatTorchMemory(d.totalGlobalMem) + "\n";
    if (m.distributedInfo)
        out += "distributedInfo: " + *m.distributedInfo + "\n";
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
    w.key("metadata").beginObject();
    for (const auto& [key, raw] : m.otherKeys)
        w.key(key).raw(raw);
    w.endObject();
    w.key("base_time_ns");
    m.baseTimeNs ? w.value(*m.baseTimeNs) : w.null();
    w.key("first_ts_ns").value(t.firstTime());
    w.key("last_ts_ns").value(t.lastTime());
    w.key("span_us").value(static_cast<double>(t.lastTime() - t.firstTime()) / 1000.0);
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
