// SPDX-License-Identifier: MIT
#include "report/snapshotreport.h"

#include "io/bytesource.h"
#include "io/pickledecoder.h"
#include "io/smalljson.h"
#include "io/tracefileerror.h"
#include "memory/bytecount.h"
#include "stats/bytestext.h"
#include "stats/timetext.h"
#include "stats/torchtable.h"

#include <algorithm>
#include <map>
#include <sstream>

namespace tilescope::report {

namespace {

using memory::AllocatorSnapshot;
using memory::BlockState;
using memory::MemoryTimeline;
using memory::TraceAction;

constexpr size_t kLargestBlocks = 10;

io::Json framesJson(const AllocatorSnapshot& s, memory::StackId stack)
{
    io::Json frames = io::Json::array();
    for (const memory::FrameId id : memory::framesUserFirst(s, stack)) {
        const memory::StackFrame& f = s.frame(id);
        frames.push_back({{"name", f.name}, {"filename", f.filename}, {"line", f.line}});
    }
    return frames;
}

// "name (file:line)" of the user frame, else of the innermost frame; "" without frames.
std::string whereText(const AllocatorSnapshot& s, memory::StackId stack)
{
    const auto frames = s.stackFrames(stack);
    if (frames.empty())
        return "";
    const memory::StackFrame& f = s.frame(memory::userFrame(s, stack).value_or(frames.front()));
    if (f.line > 0)
        return f.name + " (" + f.filename + ":" + std::to_string(f.line) + ")";
    return f.filename.empty() || f.filename == "??" ? f.name : f.name + " (" + f.filename + ")";
}

std::string bytesText(int64_t bytes)
{
    return stats::formatBytes(bytes) + " (" + stats::formatCount(static_cast<uint64_t>(std::max<int64_t>(bytes, 0))) + " B)";
}

// (segment, block) of the largest blocks that are not inactive, largest first, then by address.
std::vector<const memory::SnapshotBlock*> largestLiveBlocks(const AllocatorSnapshot& s)
{
    std::vector<const memory::SnapshotBlock*> blocks;
    for (const auto& segment : s.segments)
        for (const auto& block : segment.blocks)
            if (block.state != BlockState::Inactive)
                blocks.push_back(&block);
    const size_t kept = std::min(blocks.size(), kLargestBlocks);
    std::partial_sort(blocks.begin(), blocks.begin() + static_cast<ptrdiff_t>(kept), blocks.end(),
                      [](const auto* a, const auto* b) { return a->size != b->size ? a->size > b->size : a->address < b->address; });
    blocks.resize(kept);
    return blocks;
}

// Action name -> count over every device, torch's order first, then actions this reader does not know.
std::vector<std::pair<std::string, uint64_t>> actionCounts(const AllocatorSnapshot& s)
{
    std::vector<uint64_t> known(static_cast<size_t>(TraceAction::Other), 0);
    std::vector<uint64_t> other(s.otherActionNames.size(), 0);
    for (const auto& trace : s.deviceTraces)
        for (const auto& e : trace) {
            if (e.action == TraceAction::Other)
                ++other[e.otherAction];
            else
                ++known[static_cast<size_t>(e.action)];
        }
    std::vector<std::pair<std::string, uint64_t>> counts;
    for (size_t a = 0; a < known.size(); ++a)
        if (known[a] > 0)
            counts.emplace_back(std::string(memory::traceActionName(static_cast<TraceAction>(a))), known[a]);
    for (size_t a = 0; a < other.size(); ++a)
        counts.emplace_back(s.otherActionNames[a], other[a]);
    return counts;
}

std::vector<const memory::TraceEntry*> ooms(const AllocatorSnapshot& s)
{
    std::vector<const memory::TraceEntry*> found;
    for (const auto& trace : s.deviceTraces)
        for (const auto& e : trace)
            if (e.action == TraceAction::Oom)
                found.push_back(&e);
    return found;
}

io::Json timeJson(int64_t timeUs) { return timeUs == memory::kNoTimeUs ? io::Json(nullptr) : io::Json(timeUs); }

const char* kRawActionNames[4] = {"PREEXISTING", "CREATE", "INCREMENT_VERSION", "DESTROY"};

std::string pad(std::string text, size_t width)
{
    if (text.size() < width)
        text.append(width - text.size(), ' ');
    return text;
}

std::string padLeft(const std::string& text, size_t width)
{
    return text.size() < width ? std::string(width - text.size(), ' ') + text : text;
}

// A time of the timeline as an offset from its first row: "+12.372ms".
std::string offsetText(const MemoryTimeline& t, int64_t timeUs)
{
    if (timeUs == memory::kNoTimeUs || t.size() == 0)
        return "-";
    return "+" + stats::formatDuration(memory::spanMicrosecondsAsNs(t.timesUs.front(), timeUs));
}

} // namespace

MemoryFileKind detectMemoryFile(const std::string& path)
{
    auto source = io::openTraceFile(path);
    char head[4096];
    size_t got = 0;
    for (size_t n; got < sizeof head && (n = source->read(head + got, sizeof head - got)) > 0;)
        got += n;
    const std::string_view bytes(head, got);
    if (io::looksLikePickle(bytes))
        return MemoryFileKind::AllocatorSnapshot;
    const size_t open = bytes.find_first_not_of(" \t\r\n");
    if (open == std::string_view::npos || bytes[open] != '[')
        return MemoryFileKind::Other;
    const size_t next = bytes.find_first_not_of(" \t\r\n", open + 1);
    return next != std::string_view::npos && bytes[next] == '[' ? MemoryFileKind::MemoryTimeline : MemoryFileKind::Other;
}

std::string snapshotJson(const AllocatorSnapshot& s)
{
    io::Json j;
    j["segments"] = s.segments.size();
    j["reserved_bytes"] = s.reservedBytes();
    j["allocated_bytes"] = s.allocatedBytes();
    io::Json& oomList = j["ooms"] = io::Json::array();
    for (const memory::TraceEntry* e : ooms(s))
        oomList.push_back({{"requested_bytes", e->size}, {"device_free_bytes", e->deviceFree}, {"frames", framesJson(s, e->stack)}});
    io::Json& actions = j["actions"] = io::Json::object();
    for (const auto& [name, count] : actionCounts(s))
        actions[name] = count;
    io::Json& largest = j["largest_blocks"] = io::Json::array();
    for (const memory::SnapshotBlock* b : largestLiveBlocks(s))
        largest.push_back({{"size", b->size},
                           {"requested_size", b->requestedSize},
                           {"state", std::string(memory::blockStateName(b->state))},
                           {"frames", framesJson(s, b->stack)}});
    return io::dumpJson(j, 2) + "\n";
}

std::string snapshotText(const AllocatorSnapshot& s)
{
    std::ostringstream out;
    out << "CUDA allocator snapshot: " << s.path << "\n";
    std::map<int64_t, size_t> segmentsPerDevice;
    std::map<std::string, size_t> segmentTypes;
    size_t states[3] = {0, 0, 0};
    int64_t active = 0;
    for (const auto& segment : s.segments) {
        ++segmentsPerDevice[segment.device];
        ++segmentTypes[segment.segmentType.empty() ? "unknown type" : segment.segmentType];
        active = memory::addBytes(active, segment.activeSize);
        for (const auto& b : segment.blocks)
            ++states[static_cast<size_t>(b.state)];
    }
    out << "segments:  " << s.segments.size();
    std::string types;
    for (const auto& [type, n] : segmentTypes)
        types += (types.empty() ? "" : ", ") + std::to_string(n) + " " + type;
    if (!types.empty())
        out << " (" << types << ")";
    std::string devices;
    for (const auto& [device, n] : segmentsPerDevice)
        devices += (devices.empty() ? "" : ", ") + ("cuda:" + std::to_string(device));
    if (!devices.empty())
        out << " on " << devices;
    out << "\n";
    out << "reserved:  " << bytesText(s.reservedBytes()) << "\n";
    out << "allocated: " << bytesText(s.allocatedBytes()) << "\n";
    out << "active:    " << bytesText(active) << " (allocated, and freed but still used by a stream)\n";
    out << "blocks:    " << s.blockCount() << " (" << states[0] << " active_allocated, " << states[1] << " active_pending_free, "
        << states[2] << " inactive)\n";

    size_t entries = 0, devicesWithEntries = 0;
    int64_t first = memory::kNoTimeUs, last = memory::kNoTimeUs;
    for (const auto& trace : s.deviceTraces) {
        entries += trace.size();
        devicesWithEntries += !trace.empty();
        for (const auto& e : trace)
            if (e.timeUs != memory::kNoTimeUs) {
                first = first == memory::kNoTimeUs ? e.timeUs : std::min(first, e.timeUs);
                last = last == memory::kNoTimeUs ? e.timeUs : std::max(last, e.timeUs);
            }
    }
    out << "history:   " << stats::formatCount(entries) << " entries on " << devicesWithEntries << " device"
        << (devicesWithEntries == 1 ? "" : "s");
    if (first != memory::kNoTimeUs)
        out << " over " << stats::formatDuration(memory::spanMicrosecondsAsNs(first, last));
    out << "\n";
    for (const auto& [name, count] : actionCounts(s))
        out << "  " << pad(name, 16) << padLeft(stats::formatCount(count), 10) << "\n";

    const auto oomEntries = ooms(s);
    out << "out of memory: " << (oomEntries.empty() ? "none" : std::to_string(oomEntries.size())) << "\n";
    for (const memory::TraceEntry* e : oomEntries)
        out << "  requested " << bytesText(e->size) << ", device free " << bytesText(e->deviceFree)
            << (whereText(s, e->stack).empty() ? "" : ", at " + whereText(s, e->stack)) << "\n";

    const auto largest = largestLiveBlocks(s);
    out << "largest live blocks:" << (largest.empty() ? " none" : "") << "\n";
    if (!largest.empty())
        out << "  " << padLeft("size", 12) << "  " << padLeft("requested", 12) << "  " << pad("state", 21)
            << "allocated at (user frame first)\n";
    for (const memory::SnapshotBlock* b : largest)
        out << "  " << padLeft(stats::formatBytes(b->size), 12) << "  " << padLeft(stats::formatBytes(b->requestedSize), 12) << "  "
            << pad(std::string(memory::blockStateName(b->state)), 21)
            << (b->stack == memory::kEmptyStack ? std::string("-") : whereText(s, b->stack)) << "\n";
    return out.str();
}

std::string memoryTimelineJson(const MemoryTimeline& t)
{
    io::Json j;
    j["form"] = t.form == memory::MemoryTimelineForm::Raw ? "raw" : "sizes";
    j["rows"] = t.size();
    j["first_time_us"] = timeJson(t.size() ? t.timesUs.front() : memory::kNoTimeUs);
    j["last_time_us"] = timeJson(t.size() ? t.timesUs.back() : memory::kNoTimeUs);
    const auto peak = memory::peakTotal(t);
    j["peak_total_bytes"] = peak.bytes;
    j["peak_total_time_us"] = timeJson(peak.timeUs);
    j["final_total_bytes"] = t.size() ? t.totalBytes(t.size() - 1) : 0;
    io::Json& categories = j["categories"] = io::Json::array();
    for (size_t c = 0; c < memory::kMemoryCategoryCount; ++c) {
        const auto& info = memory::memoryCategoryInfo(c);
        const auto categoryPeak = memory::peakOfCategory(t, c);
        categories.push_back({{"name", std::string(info.name)},
                              {"color", std::string(info.colour)},
                              {"torch_color", std::string(info.colourName)},
                              {"peak_bytes", categoryPeak.bytes},
                              {"peak_time_us", timeJson(categoryPeak.timeUs)},
                              {"final_bytes", t.size() ? t.rows.back()[c] : 0}});
    }
    if (t.form == memory::MemoryTimelineForm::Raw) {
        j["raw_records"] = t.rawRecordCount;
        io::Json& actions = j["raw_actions"] = io::Json::object();
        for (size_t a = 0; a < 4; ++a)
            actions[kRawActionNames[a]] = t.rawActionCounts[a];
    }
    return io::dumpJson(j, 2) + "\n";
}

std::string memoryTimelineText(const MemoryTimeline& t)
{
    std::ostringstream out;
    const bool raw = t.form == memory::MemoryTimelineForm::Raw;
    out << "memory timeline (prof.export_memory_timeline" << (raw ? " raw records" : ", times and sizes") << "): " << t.path << "\n";
    if (raw) {
        out << "records:    " << stats::formatCount(t.rawRecordCount);
        for (size_t a = 0; a < 4; ++a)
            out << (a == 0 ? " (" : ", ") << kRawActionNames[a] << " " << stats::formatCount(t.rawActionCounts[a]);
        out << ")\n";
    }
    out << "rows:       " << stats::formatCount(t.size());
    if (t.size())
        out << " over " << stats::formatDuration(memory::spanMicrosecondsAsNs(t.timesUs.front(), t.timesUs.back())) << " from "
            << t.timesUs.front() << " (epoch us)";
    out << "\n";
    const auto peak = memory::peakTotal(t);
    out << "peak total: " << bytesText(peak.bytes) << " at " << offsetText(t, peak.timeUs) << "\n";
    out << "final:      " << bytesText(t.size() ? t.totalBytes(t.size() - 1) : 0) << "\n";
    out << "  " << pad("category", 17) << pad("colour", 14) << padLeft("peak", 12) << "  " << pad("at", 14) << padLeft("final", 12) << "\n";
    for (size_t c = 0; c < memory::kMemoryCategoryCount; ++c) {
        const auto& info = memory::memoryCategoryInfo(c);
        const auto categoryPeak = memory::peakOfCategory(t, c);
        out << "  " << pad(std::string(info.name), 17) << pad(std::string(info.colourName), 14)
            << padLeft(stats::formatBytes(categoryPeak.bytes), 12) << "  " << pad(offsetText(t, categoryPeak.timeUs), 14)
            << padLeft(stats::formatBytes(t.size() ? t.rows.back()[c] : 0), 12) << "\n";
    }
    return out.str();
}

std::string memoryFileReport(const std::string& path, const std::string& format)
{
    const bool json = format == "json";
    switch (detectMemoryFile(path)) {
    case MemoryFileKind::AllocatorSnapshot: {
        const auto snapshot = memory::loadAllocatorSnapshot(path);
        return json ? snapshotJson(snapshot) : snapshotText(snapshot);
    }
    case MemoryFileKind::MemoryTimeline: {
        const auto timeline = memory::loadMemoryTimeline(path);
        return json ? memoryTimelineJson(timeline) : memoryTimelineText(timeline);
    }
    case MemoryFileKind::Other: break;
    }
    throw io::TraceFileError(
        path, std::nullopt,
        "not an allocator snapshot (a torch.cuda.memory pickle) or a memory timeline (prof.export_memory_timeline JSON)");
}

} // namespace tilescope::report
