// SPDX-License-Identifier: MIT
#include "memory/allocatorsnapshot.h"

#include "io/pickledecoder.h"
#include "io/tracefileerror.h"
#include "memory/bytecount.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

namespace tilescope::memory {

namespace {

using io::PickleDocument;
using io::PickleRef;
using io::PickleType;

// Where a value sits in the snapshot, for messages ("segments[2].blocks[0].size"); built only on error.
struct Where
{
    const Where* parent = nullptr;
    std::string_view key;
    size_t index = std::string::npos;

    std::string text() const
    {
        std::string t = parent ? parent->text() : std::string();
        if (!key.empty())
            t += (t.empty() ? "" : ".") + std::string(key);
        if (index != std::string::npos)
            t += "[" + std::to_string(index) + "]";
        return t;
    }
};

std::string article(PickleType type)
{
    const std::string name = io::pickleTypeName(type);
    return (name == "int" ? "an " : "a ") + name;
}

// A frame's content, pointing into the pickle's bytes while it is read.
struct FrameKey
{
    std::string_view name, filename;
    int64_t line;
    bool operator==(const FrameKey&) const = default;
};

struct FrameKeyHash
{
    size_t operator()(const FrameKey& k) const
    {
        const size_t h = std::hash<std::string_view>()(k.name) * 31 + std::hash<std::string_view>()(k.filename);
        return h * 31 + std::hash<int64_t>()(k.line);
    }
};

class SnapshotReader
{
public:
    SnapshotReader(const PickleDocument& doc, AllocatorSnapshot& out)
        : m_doc(doc)
        , m_out(out)
        , m_budget(8 * static_cast<uint64_t>(doc.valueCount()) + 65536)
        , m_frameByRef(doc.valueCount(), kUnseen)
        , m_stackByRef(doc.valueCount(), kUnseen)
    {
        m_out.stackRanges.emplace_back(0, 0); // kEmptyStack
    }

    void read();

private:
    [[noreturn]] void fail(const Where& where, const std::string& problem) const
    {
        // "allocator snapshot: segments[2].blocks[0]: missing 'size'"; top-level problems say what the file is.
        const std::string at = where.text();
        throw io::TraceFileError(m_out.path, std::nullopt, at.empty() ? problem : "allocator snapshot: " + at + ": " + problem);
    }
    // Each entry, block, segment and frame reference read costs one unit: values shared through the memo
    // must not multiply into more entries than the file could honestly hold.
    void spend(uint64_t units, const Where& where)
    {
        if (units > m_budget)
            fail(where, "shared references expand to more entries than the file holds values (not a snapshot torch writes)");
        m_budget -= units;
    }
    void expect(PickleRef v, PickleType type, const Where& where) const
    {
        if (m_doc.type(v) != type)
            fail(where, "expected " + article(type) + ", found " + article(m_doc.type(v)));
    }
    PickleRef required(PickleRef dict, std::string_view key, const Where& where) const
    {
        const auto v = m_doc.member(dict, key);
        if (!v)
            fail(where, "missing '" + std::string(key) + "'");
        return *v;
    }
    int64_t integer(PickleRef v, const Where& where) const
    {
        expect(v, PickleType::Int, where);
        return m_doc.integer(v);
    }
    int64_t nonNegative(PickleRef v, const Where& where) const
    {
        const int64_t n = integer(v, where);
        if (n < 0)
            fail(where, "negative value " + std::to_string(n));
        return n;
    }
    int64_t requiredNonNegative(PickleRef dict, std::string_view key, const Where& where) const
    {
        return nonNegative(required(dict, key, where), Where{&where, key});
    }
    std::optional<int64_t> optionalInteger(PickleRef dict, std::string_view key, const Where& where) const
    {
        const auto v = m_doc.member(dict, key);
        if (!v || m_doc.type(*v) == PickleType::None)
            return std::nullopt;
        return integer(*v, Where{&where, key});
    }
    std::optional<int64_t> optionalNonNegative(PickleRef dict, std::string_view key, const Where& where) const
    {
        const auto v = m_doc.member(dict, key);
        if (!v || m_doc.type(*v) == PickleType::None)
            return std::nullopt;
        return nonNegative(*v, Where{&where, key});
    }
    std::string optionalText(PickleRef dict, std::string_view key, const Where& where) const
    {
        const auto v = m_doc.member(dict, key);
        if (!v || m_doc.type(*v) == PickleType::None)
            return {};
        expect(*v, PickleType::String, Where{&where, key});
        return std::string(m_doc.text(*v));
    }
    std::span<const PickleRef> list(PickleRef v, const Where& where) const
    {
        expect(v, PickleType::List, where);
        return m_doc.items(v);
    }

    FrameId frame(PickleRef v, const Where& where);
    StackId stack(PickleRef dict, const Where& where);
    void readSegment(PickleRef v, const Where& where);
    void readTrace(PickleRef v, const Where& where);
    void readAnnotations(PickleRef v, const Where& where);
    void readSettings(PickleRef v, const Where& where);

    const PickleDocument& m_doc;
    AllocatorSnapshot& m_out;
    uint64_t m_budget;
    // Frames and stacks already read, by the pickle value they came from (the memo shares them), then by
    // content (equal frames written twice).
    static constexpr uint32_t kUnseen = ~uint32_t(0);
    std::vector<FrameId> m_frameByRef;
    std::unordered_map<FrameKey, FrameId, FrameKeyHash> m_frameByContent;
    std::vector<StackId> m_stackByRef;
    std::unordered_map<std::string, StackId> m_stackByContent;
    std::unordered_map<std::string, uint32_t> m_otherActions;
};

FrameId SnapshotReader::frame(PickleRef v, const Where& where)
{
    if (m_frameByRef[v] != kUnseen)
        return m_frameByRef[v];
    expect(v, PickleType::Dict, where);
    const PickleRef name = required(v, "name", where), filename = required(v, "filename", where);
    expect(name, PickleType::String, Where{&where, "name"});
    expect(filename, PickleType::String, Where{&where, "filename"});
    const int64_t line = integer(required(v, "line", where), Where{&where, "line"});
    const FrameKey key{m_doc.text(name), m_doc.text(filename), line};
    auto [it, added] = m_frameByContent.try_emplace(key, static_cast<FrameId>(m_out.frames.size()));
    if (added)
        m_out.frames.push_back({std::string(key.name), std::string(key.filename), line});
    return m_frameByRef[v] = it->second;
}

StackId SnapshotReader::stack(PickleRef dict, const Where& where)
{
    const auto framesRef = m_doc.member(dict, "frames");
    if (!framesRef || m_doc.type(*framesRef) == PickleType::None)
        return kEmptyStack;
    if (m_stackByRef[*framesRef] != kUnseen)
        return m_stackByRef[*framesRef];
    const Where framesWhere{&where, "frames"};
    const auto items = list(*framesRef, framesWhere);
    if (items.empty())
        return kEmptyStack;
    spend(items.size(), framesWhere);
    std::string key;
    key.reserve(items.size() * sizeof(FrameId));
    for (size_t i = 0; i < items.size(); ++i) {
        const FrameId id = frame(items[i], Where{&framesWhere, {}, i});
        key.append(reinterpret_cast<const char*>(&id), sizeof id);
    }
    auto [it, added] = m_stackByContent.try_emplace(std::move(key), static_cast<StackId>(m_out.stackRanges.size()));
    if (added) {
        const auto begin = static_cast<uint32_t>(m_out.stackFrameIds.size());
        const std::string& bytes = it->first;
        for (size_t offset = 0; offset < bytes.size(); offset += sizeof(FrameId)) {
            FrameId id;
            std::memcpy(&id, bytes.data() + offset, sizeof id);
            m_out.stackFrameIds.push_back(id);
        }
        m_out.stackRanges.emplace_back(begin, static_cast<uint32_t>(m_out.stackFrameIds.size()));
    }
    return m_stackByRef[*framesRef] = it->second;
}

void SnapshotReader::readSegment(PickleRef v, const Where& where)
{
    expect(v, PickleType::Dict, where);
    spend(1, where);
    SnapshotSegment segment;
    segment.device = integer(required(v, "device", where), Where{&where, "device"});
    segment.address = static_cast<uint64_t>(requiredNonNegative(v, "address", where));
    segment.totalSize = requiredNonNegative(v, "total_size", where);
    segment.stream = optionalInteger(v, "stream", where).value_or(0);
    segment.segmentType = optionalText(v, "segment_type", where);
    if (const auto expandable = m_doc.member(v, "is_expandable"))
        segment.isExpandable = m_doc.boolean(*expandable);
    segment.stack = stack(v, where);

    const Where blocksWhere{&where, "blocks"};
    const auto blocks = list(required(v, "blocks", where), blocksWhere);
    spend(blocks.size(), blocksWhere);
    segment.blocks.reserve(blocks.size());
    uint64_t nextAddress = segment.address;
    int64_t allocated = 0, active = 0, requested = 0;
    for (size_t i = 0; i < blocks.size(); ++i) {
        const Where blockWhere{&blocksWhere, {}, i};
        const PickleRef b = blocks[i];
        expect(b, PickleType::Dict, blockWhere);
        SnapshotBlock block;
        block.size = requiredNonNegative(b, "size", blockWhere);
        // Older torch wrote no block address: blocks tile their segment in order.
        block.address = static_cast<uint64_t>(optionalNonNegative(b, "address", blockWhere).value_or(static_cast<int64_t>(nextAddress)));
        block.requestedSize = optionalNonNegative(b, "requested_size", blockWhere).value_or(block.size);
        const PickleRef state = required(b, "state", blockWhere);
        expect(state, PickleType::String, Where{&blockWhere, "state"});
        const std::string_view stateText = m_doc.text(state);
        if (stateText == "active_allocated")
            block.state = BlockState::ActiveAllocated;
        else if (stateText == "active_pending_free" || stateText == "active_awaiting_free")
            block.state = BlockState::ActivePendingFree;
        else if (stateText == "inactive")
            block.state = BlockState::Inactive;
        else
            fail(Where{&blockWhere, "state"}, "unknown block state '" + std::string(stateText.substr(0, 64)) + "'");
        block.stack = stack(b, blockWhere);
        nextAddress = block.address + static_cast<uint64_t>(block.size);
        if (block.state == BlockState::ActiveAllocated) {
            allocated = addBytes(allocated, block.size);
            requested = addBytes(requested, block.requestedSize);
        }
        if (block.state != BlockState::Inactive)
            active = addBytes(active, block.size);
        segment.blocks.push_back(block);
    }
    segment.allocatedSize = optionalNonNegative(v, "allocated_size", where).value_or(allocated);
    segment.activeSize = optionalNonNegative(v, "active_size", where).value_or(active);
    segment.requestedSize = optionalNonNegative(v, "requested_size", where).value_or(requested);
    m_out.segments.push_back(std::move(segment));
}

void SnapshotReader::readTrace(PickleRef v, const Where& where)
{
    const auto entries = list(v, where);
    spend(entries.size(), where);
    auto& trace = m_out.deviceTraces.emplace_back();
    trace.reserve(entries.size());
    for (size_t i = 0; i < entries.size(); ++i) {
        const Where entryWhere{&where, {}, i};
        const PickleRef e = entries[i];
        expect(e, PickleType::Dict, entryWhere);
        TraceEntry entry;
        const PickleRef action = required(e, "action", entryWhere);
        expect(action, PickleType::String, Where{&entryWhere, "action"});
        const std::string_view actionText = m_doc.text(action);
        entry.action = TraceAction::Other;
        for (const TraceAction known :
             {TraceAction::Alloc, TraceAction::FreeRequested, TraceAction::FreeCompleted, TraceAction::SegmentAlloc,
              TraceAction::SegmentFree, TraceAction::SegmentMap, TraceAction::SegmentUnmap, TraceAction::Snapshot, TraceAction::Oom})
            if (actionText == traceActionName(known))
                entry.action = known;
        if (entry.action == TraceAction::Other) {
            // Newer torch may add actions: kept by name, counted, changing nothing in a replay.
            auto [it, added] = m_otherActions.try_emplace(std::string(actionText.substr(0, 64)),
                                                          static_cast<uint32_t>(m_out.otherActionNames.size()));
            if (added)
                m_out.otherActionNames.push_back(it->first);
            entry.otherAction = it->second;
        }
        entry.size = requiredNonNegative(e, "size", entryWhere);
        if (entry.action == TraceAction::Oom) {
            entry.deviceFree = requiredNonNegative(e, "device_free", entryWhere);
        } else {
            const bool addressed = entry.action != TraceAction::Snapshot && entry.action != TraceAction::Other;
            const auto address = addressed ? requiredNonNegative(e, "addr", entryWhere)
                                           : optionalNonNegative(e, "addr", entryWhere).value_or(0);
            entry.address = static_cast<uint64_t>(address);
        }
        entry.stream = optionalInteger(e, "stream", entryWhere).value_or(0);
        entry.timeUs = optionalInteger(e, "time_us", entryWhere).value_or(kNoTimeUs);
        entry.stack = stack(e, entryWhere);
        trace.push_back(entry);
    }
}

void SnapshotReader::readAnnotations(PickleRef v, const Where& where)
{
    const auto items = list(v, where);
    spend(items.size(), where);
    for (size_t i = 0; i < items.size(); ++i) {
        const Where itemWhere{&where, {}, i};
        expect(items[i], PickleType::Dict, itemWhere);
        ExternalAnnotation a;
        a.stage = optionalText(items[i], "stage", itemWhere);
        a.name = optionalText(items[i], "name", itemWhere);
        a.device = optionalInteger(items[i], "device", itemWhere).value_or(0);
        a.timeUs = optionalInteger(items[i], "time_us", itemWhere).value_or(kNoTimeUs);
        m_out.externalAnnotations.push_back(std::move(a));
    }
}

void SnapshotReader::readSettings(PickleRef v, const Where& where)
{
    expect(v, PickleType::Dict, where);
    const auto items = m_doc.dictItems(v);
    spend(items.size(), where);
    for (const auto& item : items) {
        // Strings as they are (PYTORCH_CUDA_ALLOC_CONF), everything else as Python prints it.
        auto textOf = [&](PickleRef x) { return m_doc.type(x) == PickleType::String ? std::string(m_doc.text(x)) : m_doc.repr(x); };
        m_out.allocatorSettings.emplace_back(textOf(item.key), textOf(item.value));
    }
}

void SnapshotReader::read()
{
    const Where top;
    const PickleRef root = m_doc.root();
    if (m_doc.type(root) != PickleType::Dict)
        fail(top, "not an allocator snapshot: the pickle holds " + article(m_doc.type(root)) + ", expected a dict with 'segments'");
    const auto segments = m_doc.member(root, "segments");
    if (!segments)
        fail(top, "not an allocator snapshot: the pickle's dict has no 'segments'");
    const Where segmentsWhere{&top, "segments"};
    const auto segmentItems = list(*segments, segmentsWhere);
    for (size_t i = 0; i < segmentItems.size(); ++i)
        readSegment(segmentItems[i], Where{&segmentsWhere, {}, i});

    if (const auto traces = m_doc.member(root, "device_traces"); traces && m_doc.type(*traces) != PickleType::None) {
        const Where tracesWhere{&top, "device_traces"};
        const auto deviceLists = list(*traces, tracesWhere);
        spend(deviceLists.size(), tracesWhere);
        for (size_t i = 0; i < deviceLists.size(); ++i)
            readTrace(deviceLists[i], Where{&tracesWhere, {}, i});
    }
    if (const auto annotations = m_doc.member(root, "external_annotations"); annotations && m_doc.type(*annotations) != PickleType::None)
        readAnnotations(*annotations, Where{&top, "external_annotations"});
    if (const auto settings = m_doc.member(root, "allocator_settings"); settings && m_doc.type(*settings) != PickleType::None)
        readSettings(*settings, Where{&top, "allocator_settings"});
}

} // namespace

std::string_view blockStateName(BlockState state)
{
    switch (state) {
    case BlockState::ActiveAllocated: return "active_allocated";
    case BlockState::ActivePendingFree: return "active_pending_free";
    case BlockState::Inactive: return "inactive";
    }
    return "";
}

std::string_view traceActionName(TraceAction action)
{
    switch (action) {
    case TraceAction::Alloc: return "alloc";
    case TraceAction::FreeRequested: return "free_requested";
    case TraceAction::FreeCompleted: return "free_completed";
    case TraceAction::SegmentAlloc: return "segment_alloc";
    case TraceAction::SegmentFree: return "segment_free";
    case TraceAction::SegmentMap: return "segment_map";
    case TraceAction::SegmentUnmap: return "segment_unmap";
    case TraceAction::Snapshot: return "snapshot";
    case TraceAction::Oom: return "oom";
    case TraceAction::Other: return "";
    }
    return "";
}

std::span<const FrameId> AllocatorSnapshot::stackFrames(StackId stack) const
{
    if (stack >= stackRanges.size())
        return {};
    const auto [begin, end] = stackRanges[stack];
    return std::span<const FrameId>(stackFrameIds).subspan(begin, end - begin);
}

std::string_view AllocatorSnapshot::actionName(const TraceEntry& entry) const
{
    if (entry.action == TraceAction::Other)
        return entry.otherAction < otherActionNames.size() ? std::string_view(otherActionNames[entry.otherAction]) : std::string_view();
    return traceActionName(entry.action);
}

int64_t AllocatorSnapshot::reservedBytes() const
{
    int64_t total = 0;
    for (const auto& s : segments)
        total = addBytes(total, s.totalSize);
    return total;
}

int64_t AllocatorSnapshot::allocatedBytes() const
{
    int64_t total = 0;
    for (const auto& s : segments)
        total = addBytes(total, s.allocatedSize);
    return total;
}

size_t AllocatorSnapshot::blockCount() const
{
    size_t n = 0;
    for (const auto& s : segments)
        n += s.blocks.size();
    return n;
}

AllocatorSnapshot allocatorSnapshotFromBytes(std::string bytes, const std::string& name, const io::PickleLimits& limits)
{
    const io::PickleDocument doc = io::decodePickle(std::move(bytes), name, limits);
    AllocatorSnapshot snapshot;
    snapshot.path = name;
    SnapshotReader(doc, snapshot).read();
    return snapshot;
}

AllocatorSnapshot loadAllocatorSnapshot(const std::string& path)
{
    const io::PickleDocument doc = io::readPickleFile(path);
    AllocatorSnapshot snapshot;
    snapshot.path = path;
    SnapshotReader(doc, snapshot).read();
    return snapshot;
}

bool isUserFrame(const StackFrame& frame)
{
    if (frame.line <= 0 || frame.filename.empty() || frame.filename == "??")
        return false;
    const std::string_view file = frame.filename;
    return !file.starts_with("torch/") && file.find("/torch/") == std::string_view::npos;
}

std::optional<FrameId> userFrame(const AllocatorSnapshot& snapshot, StackId stack)
{
    for (const FrameId id : snapshot.stackFrames(stack))
        if (isUserFrame(snapshot.frame(id)))
            return id;
    return std::nullopt;
}

std::vector<FrameId> framesUserFirst(const AllocatorSnapshot& snapshot, StackId stack)
{
    const auto frames = snapshot.stackFrames(stack);
    std::vector<FrameId> ordered(frames.begin(), frames.end());
    const auto user = std::find_if(ordered.begin(), ordered.end(), [&](FrameId id) { return isUserFrame(snapshot.frame(id)); });
    if (user != ordered.end())
        std::rotate(ordered.begin(), user, user + 1);
    return ordered;
}

DeviceMemoryReplay replayDeviceMemory(const AllocatorSnapshot& snapshot, int device)
{
    DeviceMemoryReplay replay;
    replay.device = device;
    for (const auto& segment : snapshot.segments) {
        if (segment.device != device)
            continue;
        replay.finalReservedBytes = addBytes(replay.finalReservedBytes, segment.totalSize);
        for (const auto& block : segment.blocks)
            if (block.state != BlockState::Inactive)
                replay.finalAllocatedBytes = addBytes(replay.finalAllocatedBytes, block.requestedSize);
    }
    static const std::vector<TraceEntry> kNoEntries;
    const auto& entries = device >= 0 && static_cast<size_t>(device) < snapshot.deviceTraces.size() ? snapshot.deviceTraces[size_t(device)]
                                                                                                    : kNoEntries;

    // Net change over the recorded window, then the start that makes the walk end at the final state.
    int64_t allocatedChange = 0, reservedChange = 0;
    auto deltas = [](const TraceEntry& e) -> std::pair<int64_t, int64_t> {
        switch (e.action) {
        case TraceAction::Alloc: return {e.size, 0};
        case TraceAction::FreeCompleted: return {-e.size, 0};
        case TraceAction::SegmentAlloc:
        case TraceAction::SegmentMap: return {0, e.size};
        case TraceAction::SegmentFree:
        case TraceAction::SegmentUnmap: return {0, -e.size};
        default: return {0, 0};
        }
    };
    for (const auto& e : entries) {
        const auto [a, r] = deltas(e);
        allocatedChange = addBytes(allocatedChange, a);
        reservedChange = addBytes(reservedChange, r);
    }
    replay.initialAllocatedBytes = subtractBytes(replay.finalAllocatedBytes, allocatedChange);
    replay.initialReservedBytes = subtractBytes(replay.finalReservedBytes, reservedChange);
    replay.peakAllocatedBytes = replay.initialAllocatedBytes;
    replay.peakReservedBytes = replay.initialReservedBytes;
    replay.consistent = replay.initialAllocatedBytes >= 0 && replay.initialReservedBytes >= 0;

    int64_t allocated = replay.initialAllocatedBytes, reserved = replay.initialReservedBytes;
    for (size_t i = 0; i < entries.size(); ++i) {
        const auto [a, r] = deltas(entries[i]);
        if (a == 0 && r == 0)
            continue;
        allocated = addBytes(allocated, a);
        reserved = addBytes(reserved, r);
        replay.consistent = replay.consistent && allocated >= 0 && reserved >= 0;
        replay.peakAllocatedBytes = std::max(replay.peakAllocatedBytes, allocated);
        replay.peakReservedBytes = std::max(replay.peakReservedBytes, reserved);
        replay.points.push_back({entries[i].timeUs, static_cast<uint32_t>(i), allocated, reserved});
    }
    return replay;
}

} // namespace tilescope::memory
