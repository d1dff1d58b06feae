// SPDX-License-Identifier: MIT
#include "report/memoryreport.h"

#include "io/codepoints.h"
#include "io/decimal.h"
#include "io/smalljson.h"
#include "stats/bytestext.h"
#include "stats/torchtable.h"

#include <algorithm>

namespace tilescope::report {

namespace {

using memory::MemoryAnalysis;
using trace::kNoId;
using trace::kNoIndex;

// Rows the table prints per list; the JSON has them all.
constexpr size_t kTableRows = 20;

io::Json tsUs(int64_t ns) { return ns == kNoId ? io::Json(nullptr) : io::jsonMicroseconds(ns); }
io::Json bytesOrNull(int64_t bytes) { return bytes == kNoId ? io::Json(nullptr) : io::Json(bytes); }

std::string opName(const trace::Trace& t, uint32_t event)
{
    return event == kNoIndex ? std::string() : std::string(t.name(t.events[event]));
}
io::Json opJson(const trace::Trace& t, uint32_t event) { return event == kNoIndex ? io::Json(nullptr) : io::Json(opName(t, event)); }
io::Json opNameJson(const trace::Trace& t, trace::StringId name)
{
    return name == kNoIndex ? io::Json(nullptr) : io::Json(std::string(t.strings.view(name)));
}

std::string bytesText(int64_t bytes) { return bytes == kNoId ? "-" : stats::formatBytes(bytes); }
std::string signedBytesText(int64_t bytes) { return (bytes > 0 ? "+" : "") + stats::formatBytes(bytes); }
std::string tsText(int64_t ns) { return ns == kNoId ? "-" : io::formatNanosecondsAsMicroseconds(ns); }
std::string orNone(std::string text) { return text.empty() ? "(no op)" : text; }

// A plain text table: columns padded to their widest cell, numbers right-aligned.
class TextTable
{
public:
    explicit TextTable(std::vector<std::pair<std::string, bool>> columns) // title, right-aligned
        : m_columns(std::move(columns))
    {
        std::vector<std::string> header;
        for (const auto& [title, right] : m_columns)
            header.push_back(title);
        m_rows.push_back(std::move(header));
    }
    void add(std::vector<std::string> row) { m_rows.push_back(std::move(row)); }
    std::string render(const std::string& indent = "  ") const
    {
        std::vector<size_t> width(m_columns.size(), 0);
        for (const auto& row : m_rows)
            for (size_t c = 0; c < row.size(); ++c)
                width[c] = std::max(width[c], io::codePointCount(row[c]));
        std::string out;
        for (const auto& row : m_rows) {
            std::string line = indent;
            for (size_t c = 0; c < row.size(); ++c) {
                const std::string pad(width[c] - io::codePointCount(row[c]), ' ');
                line += m_columns[c].second ? pad + row[c] : row[c] + (c + 1 < row.size() ? pad : "");
                if (c + 1 < row.size())
                    line += "  ";
            }
            out += line + "\n";
        }
        return out;
    }

private:
    std::vector<std::pair<std::string, bool>> m_columns;
    std::vector<std::vector<std::string>> m_rows;
};

std::string moreRows(size_t total, size_t shown)
{
    return total > shown ? "  ... " + stats::formatCount(total - shown) + " more (--format json lists all)\n" : "";
}

std::vector<const memory::MemoryBlock*> liveAtEnd(const MemoryAnalysis& a)
{
    std::vector<const memory::MemoryBlock*> live;
    for (const auto& b : a.blocks)
        if (b.liveAtEnd)
            live.push_back(&b);
    return live;
}

std::string stepDevice(const MemoryAnalysis& a)
{
    const uint32_t d = a.primaryDevice();
    return d == kNoIndex ? std::string() : a.devices[d].name;
}

} // namespace

std::string memoryJson(const trace::Trace& t, const MemoryAnalysis& a, const MemoryReportOptions& options)
{
    io::Json j;
    io::Json& devices = j["devices"] = io::Json::array();
    for (const auto& d : a.devices)
        devices.push_back({{"device", d.name},
                           {"peak_allocated_bytes", d.peakAllocated},
                           {"peak_reserved_bytes", d.hasReserved ? io::Json(d.peakReserved) : io::Json(nullptr)},
                           {"final_allocated_bytes", d.finalAllocated},
                           {"allocs", d.allocs},
                           {"frees", d.frees},
                           {"peak_ts_us", d.peakSample() ? tsUs(d.peakAllocatedTime) : io::Json(nullptr)},
                           {"peak_op", opJson(t, d.peakOp)}});
    io::Json& ooms = j["ooms"] = io::Json::array();
    for (const auto& o : a.ooms)
        ooms.push_back({{"device", a.devices[o.device].name},
                        {"requested_bytes", o.requestedBytes},
                        {"ts_us", tsUs(o.time)},
                        {"op", opJson(t, o.op)}});
    io::Json& steps = j["steps"] = io::Json::array();
    const uint32_t primary = a.primaryDevice();
    for (const auto& s : a.steps)
        steps.push_back(
            {{"step", std::string(t.strings.view(s.name))}, {"allocated_bytes_at_end", bytesOrNull(s.allocatedAtEnd[primary])}});
    if (const auto* leak = a.worstLeak())
        j["suspected_leak"] = {
            {"device", a.devices[leak->device].name}, {"steps", leak->steps}, {"growth_bytes_per_step", leak->growthBytesPerStep}};
    else
        j["suspected_leak"] = nullptr;
    io::Json& top = j["top_allocators"] = io::Json::array();
    for (const auto& op : a.ops)
        if (op.allocs > 0)
            top.push_back({{"op", opNameJson(t, op.name)}, {"bytes", op.allocBytes}, {"allocs", op.allocs}});
    io::Json& live = j["live_at_end"] = io::Json::array();
    for (const auto* b : liveAtEnd(a))
        live.push_back(
            {{"device", a.devices[b->device].name}, {"bytes", b->bytes}, {"ts_us", tsUs(b->allocTime)}, {"op", opJson(t, b->allocOp)}});
    if (options.events) {
        io::Json& events = j["events"] = io::Json::array();
        for (const auto& b : a.blocks)
            events.push_back({{"device", a.devices[b.device].name},
                              {"address", b.address},
                              {"bytes", b.bytes},
                              {"alloc_ts_us", tsUs(b.allocTime)},
                              {"free_ts_us", tsUs(b.freeTime)},
                              {"alloc_op", opJson(t, b.allocOp)},
                              {"free_op", opJson(t, b.freeOp)},
                              {"live_at_end", b.liveAtEnd}});
    }
    return io::dumpJson(j) + "\n";
}

std::string leakSentence(const trace::Trace& t, const memory::MemoryAnalysis& a, const memory::SuspectedLeak& leak)
{
    const auto stepName = [&](uint32_t s) { return std::string(t.strings.view(a.steps[s].name)); };
    std::string since; // the growth counts from the end of the step before the first growing one
    if (leak.firstStep > 0)
        since = " since the end of " + stepName(leak.firstStep - 1);
    return a.devices[leak.device].name + " grew " + stats::formatBytes(leak.growthBytesPerStep) + " per step over "
        + std::to_string(leak.steps) + " steps (" + stepName(leak.firstStep) + " .. " + stepName(leak.lastStep) + ", "
        + std::to_string(leak.growingSteps) + " of them growing, " + stats::formatBytes(leak.growthBytes) + " in all" + since
        + ") and never gave it back";
}

std::string memoryText(const trace::Trace& t, const MemoryAnalysis& a, const MemoryReportOptions& options)
{
    std::string out = "devices (allocator totals as recorded; peak op: the innermost op on the peak record's thread)\n";
    TextTable devices({{"device", false},
                       {"peak allocated", true},
                       {"at ts (us)", true},
                       {"peak op", false},
                       {"peak reserved", true},
                       {"final allocated", true},
                       {"allocs", true},
                       {"allocated", true},
                       {"frees", true},
                       {"freed", true}});
    std::string notes;
    for (const auto& d : a.devices) {
        devices.add({d.name, bytesText(d.peakAllocated), tsText(d.peakAllocatedTime), orNone(opName(t, d.peakOp)),
                     d.hasReserved ? bytesText(d.peakReserved) : "-", bytesText(d.finalAllocated), stats::formatCount(d.allocs),
                     bytesText(d.allocBytes), stats::formatCount(d.frees), bytesText(d.freeBytes)});
        if (d.allocatedFromRunningSum)
            notes += "  " + d.name + ": no Total Allocated recorded (1.8 format): allocated is a running sum of Bytes from 0\n";
    }
    out += devices.render() + notes;

    if (a.ooms.empty()) {
        out += "\nout of memory: none\n";
    } else {
        out += "\nout of memory (" + stats::formatCount(a.ooms.size()) + ")\n";
        TextTable ooms({{"device", false}, {"requested", true}, {"allocated", true}, {"reserved", true}, {"ts (us)", true}, {"op", false}});
        for (const auto& o : a.ooms)
            ooms.add({a.devices[o.device].name, bytesText(o.requestedBytes), bytesText(o.allocated), bytesText(o.reserved), tsText(o.time),
                      orNone(opName(t, o.op))});
        out += ooms.render();
    }

    const uint32_t primary = a.primaryDevice();
    if (a.steps.empty()) {
        out += "\nsteps: none (no ProfilerStep#N and no repeating top-level record_function region)\n";
    } else {
        out += "\nsteps ("
            + std::string(a.stepSource == analysis::StepSource::ProfilerStep ? "ProfilerStep#N" : "a repeating record_function region")
            + "), allocated at each step's end on " + stepDevice(a) + "\n";
        TextTable steps({{"step", false}, {"allocated at end", true}, {"growth", true}});
        const size_t shown = std::min(a.steps.size(), kTableRows * 2);
        for (size_t s = 0; s < shown; ++s) {
            const int64_t v = a.steps[s].allocatedAtEnd[primary];
            const int64_t before = s > 0 ? a.steps[s - 1].allocatedAtEnd[primary] : kNoId;
            steps.add({std::string(t.strings.view(a.steps[s].name)), bytesText(v),
                       v != kNoId && before != kNoId ? signedBytesText(v - before) : "-"});
        }
        out += steps.render() + moreRows(a.steps.size(), shown);
    }
    if (const auto* leak = a.worstLeak()) {
        out += "suspected leak: " + leakSentence(t, a, *leak) + "\n";
    } else if (!a.steps.empty()) {
        out += "suspected leak: none (no growth over " + std::to_string(memory::kLeakMinGrowingSteps)
            + " or more steps that stayed until the end)\n";
    }

    out += "\ntop allocators (self: each allocation counts for the innermost op running on its thread)\n";
    TextTable ops({{"op", false},
                   {"calls", true},
                   {"allocs", true},
                   {"allocated", true},
                   {"frees", true},
                   {"freed", true},
                   {"size increase", true},
                   {"live at peak", true}});
    size_t listed = 0, withAllocs = 0;
    for (const auto& op : a.ops) {
        if (op.allocs == 0)
            continue;
        if (++withAllocs > kTableRows)
            continue;
        ++listed;
        ops.add({op.name == kNoIndex ? "(no op)" : std::string(t.strings.view(op.name)),
                 op.name == kNoIndex ? "-" : stats::formatCount(op.calls), stats::formatCount(op.allocs), bytesText(op.allocBytes),
                 stats::formatCount(op.frees), bytesText(op.freeBytes), signedBytesText(op.sizeIncrease()), bytesText(op.liveAtPeakBytes)});
    }
    out += ops.render() + moreRows(withAllocs, listed);

    const auto live = liveAtEnd(a);
    if (!a.hasAddresses) {
        out += "\nlive at end: unknown (the records carry no addresses, so allocations cannot be paired with frees)\n";
    } else {
        int64_t liveBytes = 0;
        for (const auto* b : live)
            liveBytes += b->bytes;
        out += "\nlive at end: " + stats::formatCount(live.size()) + (live.size() == 1 ? " block, " : " blocks, ")
            + stats::formatBytes(liveBytes) + " allocated in the trace and never freed\n";
        if (!live.empty()) {
            TextTable blocks({{"device", false}, {"bytes", true}, {"allocated at ts (us)", true}, {"op", false}});
            const size_t shown = std::min(live.size(), kTableRows);
            for (size_t k = 0; k < shown; ++k)
                blocks.add({a.devices[live[k]->device].name, bytesText(live[k]->bytes), tsText(live[k]->allocTime),
                            orNone(opName(t, live[k]->allocOp))});
            out += blocks.render() + moreRows(live.size(), shown);
        }
    }

    if (options.events && a.hasAddresses) {
        out += "\nallocations paired with their frees (same device and address)\n";
        TextTable events({{"device", false},
                          {"address", true},
                          {"bytes", true},
                          {"allocated at ts (us)", true},
                          {"freed at ts (us)", true},
                          {"lifetime", true},
                          {"allocated by", false},
                          {"freed by", false}});
        for (const auto& b : a.blocks)
            events.add({a.devices[b.device].name, std::to_string(b.address), bytesText(b.bytes),
                        b.allocTime == kNoId ? "before the trace" : tsText(b.allocTime),
                        b.freeTime != kNoId ? tsText(b.freeTime)
                            : b.liveAtEnd   ? "live at end"
                                            : "not recorded",
                        b.lifetime() == kNoId ? "-" : io::formatNanosecondsAsMicroseconds(b.lifetime()) + " us",
                        b.allocRecord == kNoIndex ? "-" : orNone(opName(t, b.allocOp)),
                        b.freeRecord == kNoIndex ? "-" : orNone(opName(t, b.freeOp))});
        out += events.render();
    }
    return out;
}

} // namespace tilescope::report
