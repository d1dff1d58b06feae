// SPDX-License-Identifier: MIT
#include "stats/keyaverages.h"

#include "trace/eventsearch.h"
#include "trace/gallopsearch.h"
#include "trace/prefaultahead.h"
#include "trace/sortruns.h"
#include "trace/trace.h"

#include <algorithm>
#include <future>
#include <numeric>
#include <thread>
#include <unordered_map>
#include <unordered_set>

namespace tilescope::stats {

using trace::Event;
using trace::EventKind;
using trace::kNoId;
using trace::kNoIndex;
using trace::StringId;

namespace {

// Below this many selected events the steps that could run side by side are not worth a thread's start and
// its fresh memory (key averages of a short range run on every selection in the timeline; on HTA's 15 MB
// ns_resolution trace the thread saved no time and raised the peak by 0.4 MB).
constexpr size_t kEventsWorthAThread = 100000;

// Names the builder makes itself (ProfilerStep*, [memory]) live in its own pool, marked by this bit.
constexpr StringId kRewrittenBit = 0x80000000u;

// torch's FunctionEvent, reduced to what key_averages reads. One of these per op and activity of the
// trace, so what only some events have (memory, FLOPs, the launching op) is found through `source` or
// kept beside it, not stored in every one.
struct FunctionEvent
{
    int64_t startNs = 0; // relative to the origin, for exact interval tests
    int64_t endNs = 0;
    int64_t id = 0;
    uint32_t source = kNoIndex; // the trace event, kNoIndex for a leftover [memory] or [OutOfMemory] record
    uint32_t thread = 0;
    StringId name = 0;
    StringId shapes = 0; // 0: "[]"
    uint32_t kernelsBegin = 0, kernelsCount = 0;
    uint32_t parent = kNoIndex;
    uint32_t childrenBegin = 0, childrenCount = 0;
    bool cpu = true;
    bool userAnnotation = false;
    bool removed = false;
    EventKind kind = EventKind::CpuOp;

    // torch's times are microseconds as doubles: made from the nanoseconds when asked, not stored.
    double startUs() const { return static_cast<double>(startNs) / 1000.0; }
    double endUs() const { return static_cast<double>(endNs) / 1000.0; }
    double duration() const { return endUs() - startUs(); }
};
static_assert(sizeof(FunctionEvent) == 64);

// The bytes of the [memory] records inside one event's interval (torch's cpu_memory_usage and
// device_memory_usage).
struct MemoryUse
{
    int64_t cpu = 0;
    int64_t device = 0;
};

bool isCpuKind(EventKind k)
{
    return k == EventKind::CpuOp || k == EventKind::UserAnnotation || k == EventKind::CudaRuntime || k == EventKind::CudaDriver
        || k == EventKind::Overhead;
}
bool isCudaKind(EventKind k)
{
    return k == EventKind::Kernel || k == EventKind::GpuMemcpy || k == EventKind::GpuMemset || k == EventKind::GpuUserAnnotation
        || k == EventKind::CudaSync;
}

// torch's _filter_name.
bool isFilteredName(std::string_view name)
{
    return name == "[memory]" || name == "[OutOfMemory]" || name == "profiler::_record_function_enter"
        || name == "profiler::_record_function_enter_new" || name == "profiler::_record_function_exit" || name == "aten::is_leaf"
        || name == "aten::output_nr" || name == "aten::_version";
}

bool isCpuMemoryDevice(int16_t t) { return t == 0 || t == 2 || t == 5; }                // CPU, MKLDNN, IDEEP
bool isDeviceMemoryDevice(int16_t t) { return t == 1 || t == 20 || t == 6 || t == 12; } // CUDA, PrivateUse1, HIP, XPU

class Builder
{
public:
    Builder(const trace::Trace& trace, const KeyAveragesOptions& options)
        : m_trace(trace)
        , m_options(options)
    { }
    KeyAverages run();

private:
    uint32_t threadOf(trace::TrackId track);
    void selectEvents();
    void assignOverheadIds();
    void attributeMemory();
    // deferWrites: what it finds goes to m_kernelRuns and m_threadMoves, for applyDeviceWork, not into m_events.
    void attachDeviceWork(bool deferWrites);
    void applyDeviceWork();
    void addLeftoverMemory();
    bool timesAreExact() const;
    unsigned workerThreads() const;
    void sortEvents();
    void mergeLeftoversIntoOrder();
    void buildTree();
    void removeDuplicateNodes();
    void computeMetrics();
    struct Metrics
    {
        double cpuTotal = 0, selfCpu = 0, deviceTotal = 0, selfDevice = 0;
        int64_t selfCpuMemory = 0, selfDeviceMemory = 0;
    };
    Metrics metricsOf(uint32_t f) const;
    int64_t linkedOf(const FunctionEvent& f) const;
    uint64_t flopsOf(const FunctionEvent& f) const;
    MemoryUse memoryOf(uint32_t f) const { return m_memoryUse.empty() ? MemoryUse{} : m_memoryUse[f]; }
    KeyAverages group();

    const trace::Trace& m_trace;
    const KeyAveragesOptions& m_options;
    int64_t m_origin = 0;
    std::vector<FunctionEvent> m_events;
    std::vector<double> m_kernels;
    // What attachDeviceWork found, written into m_events by applyDeviceWork: kept apart while the order is
    // sorted beside it from the same events (writes to the lines another core reads cost both cores); on one
    // thread written at once (a small trace's peak memory is not raised by them).
    struct KernelRun
    {
        uint32_t event, begin, count;
    };
    std::vector<KernelRun> m_kernelRuns;
    std::vector<std::pair<uint32_t, uint32_t>> m_threadMoves; // (launch call, its op's thread)
    std::vector<uint32_t> m_children;
    std::vector<uint32_t> m_order; // FunctionEvent indices after the global sort, minus removed ones
    std::vector<uint8_t> m_memoryUsed;
    std::unordered_map<std::string, uint32_t> m_threadIds;
    std::vector<uint32_t> m_trackThread;
    uint32_t m_mainThread = kNoIndex;
    bool m_useDevice = false;
    bool m_exactTimes = true;     // every time of the order's keys is its own double in microseconds (sortEvents)
    uint32_t m_firstLeftover = 0; // m_events from here on are leftover [memory] records, not in the trace's events
    StringId m_profilerStep = 0;
    trace::StringPool m_names; // rewritten names (ProfilerStep*, [memory]) next to the trace's own ids
    // per FunctionEvent: the device total, the one figure a parent needs from its children that is not in
    // the child itself; the others are made when grouping (metricsOf), not stored (40 bytes an event less)
    std::vector<double> m_deviceTotal;
    std::vector<MemoryUse> m_memoryUse; // per FunctionEvent, only when the trace has [memory] records
};

// torch's linked_correlation_id: the External id of the op a runtime call or device activity belongs
// to, 0 when none.
int64_t Builder::linkedOf(const FunctionEvent& f) const
{
    if (f.source == kNoIndex)
        return 0;
    switch (f.kind) {
    case EventKind::CpuOp:
    case EventKind::UserAnnotation:
    case EventKind::GpuUserAnnotation:
    case EventKind::Overhead: return 0;
    default: break;
    }
    const Event& e = m_trace.events[f.source];
    if (!m_trace.hasExternalLink(e) || (e.kind == EventKind::CudaSync && e.externalId == e.correlation))
        return 0;
    return e.externalId;
}

uint64_t Builder::flopsOf(const FunctionEvent& f) const
{
    if (!m_trace.meta.withFlops || f.kind != EventKind::CpuOp || f.source == kNoIndex)
        return 0;
    const uint32_t op = m_trace.events[f.source].op;
    return op == kNoIndex ? 0 : m_trace.ops[op].flops;
}

uint32_t Builder::threadOf(trace::TrackId trackId)
{
    if (m_trackThread.empty()) {
        // torch keys threads by tid alone (not pid); keep the JSON type so "25738" and 25738 stay apart.
        m_trackThread.resize(m_trace.tracks.size());
        for (trace::TrackId t = 0; t < m_trace.tracks.size(); ++t) {
            const trace::Track& track = m_trace.tracks[t];
            std::string key(track.tidIsString ? "s:" : "n:");
            key += m_trace.strings.view(track.tidText);
            m_trackThread[t] = m_threadIds.try_emplace(std::move(key), static_cast<uint32_t>(m_threadIds.size())).first->second;
        }
    }
    return m_trackThread[trackId];
}

KeyAverages Builder::run()
{
    m_origin = m_trace.originTime();
    selectEvents();
    assignOverheadIds();
    // The three steps after the selection read what it wrote and write apart from each other (the memory
    // bytes, the kernels and threads, the order): on a large trace they run side by side on other cores.
    m_exactTimes = timesAreExact();
    std::future<void> memory, order;
    if (workerThreads() > 1 && (m_options.threads > 1 || m_events.size() >= kEventsWorthAThread)) {
        try {
            order = std::async(std::launch::async, [this] { sortEvents(); });
            if (workerThreads() > 2 && !m_trace.memory.empty())
                memory = std::async(std::launch::async, [this] { attributeMemory(); });
        } catch (const std::system_error&) { // no thread to be had: the steps left run below, one after another
        }
    }
    if (!memory.valid())
        attributeMemory();
    attachDeviceWork(order.valid());
    if (memory.valid())
        memory.get(); // rethrows what the thread threw
    if (order.valid())
        order.get();
    else
        sortEvents();
    applyDeviceWork();
    addLeftoverMemory();
    mergeLeftoversIntoOrder();
    buildTree();
    removeDuplicateNodes();
    computeMetrics();
    return group();
}

void Builder::selectEvents()
{
    // The profiler-stopping thread is not in the trace: use the host process's main thread (tid == pid),
    // the one with the most ops if several processes qualify.
    std::vector<uint64_t> opsPerTrack(m_trace.tracks.size(), 0);
    for (const Event& e : m_trace.events)
        if (e.kind == EventKind::CpuOp || e.kind == EventKind::UserAnnotation)
            ++opsPerTrack[e.track];
    uint64_t best = 0;
    for (trace::TrackId t = 0; t < m_trace.tracks.size(); ++t) {
        const trace::Track& track = m_trace.tracks[t];
        const trace::Process& process = m_trace.processes[track.process];
        if (track.tid && process.pid && *track.tid == *process.pid && opsPerTrack[t] > best) {
            best = opsPerTrack[t];
            m_mainThread = threadOf(t);
        }
    }

    const auto& strings = m_trace.strings;
    const StringId emptyShapes = strings.find("[]");
    enum : uint8_t { kUnclassified, kFiltered, kProfilerStep, kPlain };
    std::vector<uint8_t> nameClass(strings.size(), kUnclassified);
    m_events.reserve(m_trace.events.size());
    // The selection's next pages made resident on another thread while this one fills them (a third of the
    // selection's time went to their page faults; the other core is idle in this serial part of a summary).
    // Its thread starts only past 2 MiB of them: key averages of a short range (run on every selection) start none.
    trace::PrefaultAhead pages(size_t(1) << 20);
    constexpr size_t kPrefaultEvery = 1024; // events between two notes of the filled end
    for (uint32_t i = 0; i < m_trace.events.size(); ++i) {
        if (i % kPrefaultEvery == 0)
            pages.filledTo(m_events);
        const Event& e = m_trace.events[i];
        const bool cpu = isCpuKind(e.kind);
        if (!cpu && !isCudaKind(e.kind))
            continue;
        // Once per name, not per event: the filter and the ProfilerStep test compare strings.
        if (nameClass[e.name] == kUnclassified) {
            const std::string_view name = strings.view(e.name);
            nameClass[e.name] = isFilteredName(name) ? kFiltered : trace::isProfilerStepName(name) ? kProfilerStep : kPlain;
        }
        if (nameClass[e.name] == kFiltered)
            continue;
        if (m_options.window && (e.start < m_options.window->first || e.start >= m_options.window->second))
            continue;
        FunctionEvent f;
        f.kind = e.kind;
        f.cpu = cpu;
        f.userAnnotation = e.kind == EventKind::UserAnnotation || e.kind == EventKind::GpuUserAnnotation;
        f.name = e.name;
        if (nameClass[e.name] == kProfilerStep) {
            if (m_profilerStep == 0)
                m_profilerStep = m_names.intern("ProfilerStep*");
            f.name = kRewrittenBit | m_profilerStep;
        }
        f.startNs = e.start - m_origin;
        f.endNs = f.startNs + e.duration;
        f.thread = threadOf(e.track);
        f.source = i;
        switch (e.kind) {
        case EventKind::CpuOp:
        case EventKind::UserAnnotation:
        case EventKind::GpuUserAnnotation: f.id = e.externalId == kNoId ? 0 : e.externalId; break;
        case EventKind::Overhead: break; // borrowed in assignOverheadIds()
        default: f.id = e.correlation == kNoId ? 0 : e.correlation; break;
        }
        // Activities without a linked op get the profiler-stopping thread (collection.cpp, setKinetoTID).
        if ((e.kind == EventKind::Overhead || ((e.kind == EventKind::CudaRuntime || e.kind == EventKind::CudaDriver) && linkedOf(f) == 0))
            && m_mainThread != kNoIndex)
            f.thread = m_mainThread;
        if (e.op != kNoIndex) {
            const StringId shapes = m_trace.ops[e.op].inputShapes;
            f.shapes = shapes == emptyShapes ? 0 : shapes; // one spelling of "[]"
        }
        m_useDevice = m_useDevice || !cpu;
        m_events.push_back(f);
    }
    pages.finish(m_events);
}

// An overhead event has no correlation of its own; torch's correlationID() takes its parent's in torch's
// event tree: the innermost record open at its start on the main thread (key-averages.md §2.4).
void Builder::assignOverheadIds()
{
    // The candidates, in torch's order of consideration: the main thread's ops, annotations and Python
    // functions, then the launch calls linked to no op, then each overhead as it gets its id. For each
    // overhead the one open at its start with the latest start wins, then the shortest, then the first.
    struct Candidate
    {
        int64_t start, end;
        int64_t id;
        uint32_t overhead; // FunctionEvent index of an overhead candidate, else kNoIndex
    };
    const auto better = [](const Candidate& c, const Candidate* best) {
        return !best || c.start > best->start || (c.start == best->start && c.end - c.start < best->end - best->start);
    };
    std::vector<uint32_t> overheads;
    for (uint32_t f = 0; f < m_events.size(); ++f)
        if (m_events[f].kind == EventKind::Overhead)
            overheads.push_back(f);
    if (overheads.empty())
        return;
    std::stable_sort(overheads.begin(), overheads.end(), [&](uint32_t a, uint32_t b) { return m_events[a].startNs < m_events[b].startNs; });

    // The ops and launch calls, offered to the overheads they are open at (found by binary search over the
    // overheads' starts) instead of each overhead scanning them all: a handful of overheads in a trace of
    // half a million events took 13 ms that way.
    std::vector<int64_t> starts(overheads.size());
    for (size_t k = 0; k < overheads.size(); ++k)
        starts[k] = m_events[overheads[k]].startNs;
    std::vector<std::optional<Candidate>> fromOps(overheads.size()); // the best so far per overhead
    const auto offer = [&](const Candidate& c) {
        auto k = static_cast<size_t>(std::lower_bound(starts.begin(), starts.end(), c.start) - starts.begin());
        for (; k < starts.size() && starts[k] <= c.end; ++k)
            if (better(c, fromOps[k] ? &*fromOps[k] : nullptr))
                fromOps[k] = c;
    };
    if (m_mainThread != kNoIndex)
        for (const Event& e : m_trace.events) {
            // Ops and annotations count even with names torch filters later (the filter runs in Python).
            const bool record = e.kind == EventKind::CpuOp || e.kind == EventKind::UserAnnotation || e.kind == EventKind::PythonFunction;
            if (!record || e.end() - m_origin < starts.front() || e.start - m_origin > starts.back() || threadOf(e.track) != m_mainThread)
                continue;
            const int64_t id = e.kind == EventKind::PythonFunction || e.externalId == kNoId ? 0 : e.externalId;
            offer({e.start - m_origin, e.end() - m_origin, id, kNoIndex});
        }
    for (const FunctionEvent& f : m_events)
        if ((f.kind == EventKind::CudaRuntime || f.kind == EventKind::CudaDriver) && f.endNs >= starts.front() && f.startNs <= starts.back()
            && linkedOf(f) == 0)
            offer({f.startNs, f.endNs, f.id, kNoIndex});

    // Then the overheads in time order, each a candidate for those after it.
    std::vector<Candidate> fromOverheads;
    for (size_t k = 0; k < overheads.size(); ++k) {
        const uint32_t o = overheads[k];
        FunctionEvent& overhead = m_events[o];
        const Candidate* best = fromOps[k] ? &*fromOps[k] : nullptr;
        for (const Candidate& c : fromOverheads)
            if (c.start <= overhead.startNs && overhead.startNs <= c.end && better(c, best))
                best = &c;
        overhead.id = best ? (best->overhead != kNoIndex ? m_events[best->overhead].id : best->id) : 0;
        fromOverheads.push_back({overhead.startNs, overhead.endNs, overhead.id, o});
    }
}

void Builder::attributeMemory()
{
    const auto& memory = m_trace.memory;
    m_memoryUsed.assign(memory.size(), 0);
    if (memory.empty())
        return;
    m_memoryUse.assign(m_events.size(), MemoryUse{});
    std::vector<uint32_t> order;
    for (uint32_t i = 0; i < memory.size(); ++i)
        if (!memory[i].outOfMemory)
            order.push_back(i);
    if (order.empty())
        return;
    trace::sortRuns(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return memory[a].time < memory[b].time; }); // stable
    std::vector<int64_t> times(order.size()), cpuPrefix(order.size() + 1, 0), devicePrefix(order.size() + 1, 0);
    for (size_t k = 0; k < order.size(); ++k) {
        const trace::MemoryRecord& m = memory[order[k]];
        times[k] = m.time - m_origin;
        cpuPrefix[k + 1] = cpuPrefix[k] + (isCpuMemoryDevice(m.deviceType) ? m.bytes : 0);
        devicePrefix[k + 1] = devicePrefix[k] + (isDeviceMemoryDevice(m.deviceType) ? m.bytes : 0);
    }
    std::vector<int32_t> coverage(order.size() + 1, 0);
    // The events are in file order, where ops mostly start in time order: each search starts from the
    // previous event's answer.
    auto previous = times.begin();
    for (uint32_t i = 0; i < m_events.size(); ++i) {
        const FunctionEvent& f = m_events[i];
        if (!f.cpu)
            continue;
        // Records of any thread inside the closed interval [start, end].
        const auto first = trace::gallopLowerBound(times.begin(), times.end(), previous, f.startNs, std::less<>());
        const auto last = trace::gallopUpperBound(first, times.end(), first, f.endNs, std::less<>());
        previous = first;
        const auto lo = static_cast<size_t>(first - times.begin());
        const auto hi = static_cast<size_t>(last - times.begin());
        if (lo >= hi)
            continue;
        m_memoryUse[i] = {cpuPrefix[hi] - cpuPrefix[lo], devicePrefix[hi] - devicePrefix[lo]};
        ++coverage[lo];
        --coverage[hi];
    }
    int32_t running = 0;
    for (size_t k = 0; k < order.size(); ++k) {
        running += coverage[k];
        m_memoryUsed[order[k]] = running > 0;
    }
}

void Builder::attachDeviceWork(bool deferWrites)
{
    // torch keeps one map for External ids and correlation ids alike; only events with linked == 0 look
    // themselves up in it (key-averages.md §2.6), quirks included.
    // The buckets as one array of (id, event) sorted by id, events in index order within an id, found by
    // binary search: no vector per id and no hash map beside the array.
    std::vector<std::pair<int64_t, uint32_t>> linked;
    for (uint32_t f = 0; f < m_events.size(); ++f)
        if (const int64_t id = linkedOf(m_events[f]); id > 0)
            linked.emplace_back(id, f);
    if (linked.empty())
        return;
    trace::sortRuns(linked.begin(), linked.end(), std::less<>()); // ids rise along each stream and thread
    auto previous = linked.begin();                               // and mostly along the file: each search starts from the last answer
    for (uint32_t i = 0; i < m_events.size(); ++i) {
        const FunctionEvent& f = m_events[i];
        if (!f.cpu || f.id <= 0 || linkedOf(f) != 0)
            continue;
        const auto run = trace::gallopLowerBound(linked.begin(), linked.end(), previous, std::pair<int64_t, uint32_t>{f.id, 0},
                                                 std::less<>());
        previous = run;
        if (run == linked.end() || run->first != f.id)
            continue;
        const auto kernelsBegin = static_cast<uint32_t>(m_kernels.size());
        for (auto k = static_cast<size_t>(run - linked.begin()); k < linked.size() && linked[k].first == f.id; ++k) {
            const FunctionEvent& other = m_events[linked[k].second];
            if (!other.cpu)
                m_kernels.push_back(other.duration());
            else if (deferWrites)
                m_threadMoves.push_back({linked[k].second, f.thread});
            else
                m_events[linked[k].second].thread = f.thread;
        }
        const auto kernelsCount = static_cast<uint32_t>(m_kernels.size()) - kernelsBegin;
        if (deferWrites) {
            m_kernelRuns.push_back({i, kernelsBegin, kernelsCount});
        } else {
            m_events[i].kernelsBegin = kernelsBegin;
            m_events[i].kernelsCount = kernelsCount;
        }
    }
}

void Builder::applyDeviceWork()
{
    for (const KernelRun& run : m_kernelRuns) {
        m_events[run.event].kernelsBegin = run.begin;
        m_events[run.event].kernelsCount = run.count;
    }
    for (const auto& [event, thread] : m_threadMoves)
        m_events[event].thread = thread;
    m_kernelRuns = {};
    m_threadMoves = {};
}

void Builder::addLeftoverMemory()
{
    m_firstLeftover = static_cast<uint32_t>(m_events.size());
    const StringId memoryName = kRewrittenBit | m_names.intern("[memory]");
    const StringId oomName = kRewrittenBit | m_names.intern("[OutOfMemory]");
    for (uint32_t i = 0; i < m_trace.memory.size(); ++i) {
        const trace::MemoryRecord& m = m_trace.memory[i];
        if (!m.outOfMemory && m_memoryUsed[i])
            continue;
        if (m_options.window && (m.time < m_options.window->first || m.time >= m_options.window->second))
            continue;
        FunctionEvent f;
        f.kind = EventKind::Instant;
        f.name = m.outOfMemory ? oomName : memoryName;
        f.startNs = f.endNs = m.time - m_origin;
        f.thread = threadOf(m.track);
        MemoryUse use; // nbytes() of an OOM record is 0
        if (!m.outOfMemory)
            use = {isCpuMemoryDevice(m.deviceType) ? m.bytes : 0, isDeviceMemoryDevice(m.deviceType) ? m.bytes : 0};
        m_events.push_back(f);
        m_memoryUse.push_back(use);
    }
}

// torch's order of two FunctionEvents: by (start, -end) in microseconds as doubles, stably; the index
// last makes it a total order (a stable sort's). Nanoseconds as integers give the same order while each
// nanosecond is its own double (|t| < 2^50 ns, 13 days from the origin); beyond, the doubles are compared.
constexpr int64_t kExactNs = int64_t(1) << 50;
bool isExactNs(int64_t t) { return t > -kExactNs && t < kExactNs; }

bool Builder::timesAreExact() const
{
    // The leftover [memory] records are not selected yet: every record's time stands for them.
    return std::all_of(m_events.begin(), m_events.end(), [](const FunctionEvent& f) { return isExactNs(f.startNs) && isExactNs(f.endNs); })
        && std::all_of(m_trace.memory.begin(), m_trace.memory.end(),
                       [&](const trace::MemoryRecord& m) { return isExactNs(m.time - m_origin); });
}

unsigned Builder::workerThreads() const
{
    return m_options.threads ? m_options.threads : std::max(1u, std::thread::hardware_concurrency());
}

void Builder::sortEvents()
{
    // The events are taken in the order of the tracks' own lists (Trace::sortAndNestTracks: start, longer
    // first, file order), so the sort merges a few runs instead of sorting every event: 5x less time on HTA's
    // traces. Leftover [memory] records come later (mergeLeftoversIntoOrder).
    std::vector<uint32_t> gathered;
    gathered.reserve(m_events.size());
    std::vector<uint32_t> eventToFunction(m_trace.events.size(), kNoIndex);
    for (uint32_t f = 0; f < m_events.size(); ++f)
        eventToFunction[m_events[f].source] = f;
    for (const trace::Track& track : m_trace.tracks)
        for (const uint32_t event : track.events)
            if (const uint32_t f = eventToFunction[event]; f != kNoIndex)
                gathered.push_back(f);
    if (gathered.size() != m_events.size()) { // a trace not finalized: every event, in file order
        gathered.resize(m_events.size());
        std::iota(gathered.begin(), gathered.end(), 0u);
    }

    const auto sortAs = [&](auto keyOf) {
        using Key = decltype(keyOf(0u));
        std::vector<Key> keys(gathered.size());
        for (size_t k = 0; k < gathered.size(); ++k)
            keys[k] = keyOf(gathered[k]);
        trace::sortRuns(keys.begin(), keys.end(), [](const Key& x, const Key& y) {
            if (x.start != y.start)
                return x.start < y.start;
            if (x.negEnd != y.negEnd)
                return x.negEnd < y.negEnd;
            return x.index < y.index;
        });
        m_order.resize(keys.size());
        for (size_t k = 0; k < keys.size(); ++k)
            m_order[k] = keys[k].index;
    };
    if (m_exactTimes) {
        struct Key
        {
            int64_t start, negEnd;
            uint32_t index;
        };
        sortAs([&](uint32_t f) { return Key{m_events[f].startNs, -m_events[f].endNs, f}; });
    } else {
        struct Key
        {
            double start, negEnd;
            uint32_t index;
        };
        sortAs([&](uint32_t f) { return Key{m_events[f].startUs(), -m_events[f].endUs(), f}; });
    }
}

// The leftover [memory] records (in file order, a few runs in time) merged into the sorted events: the
// order is total, so this is the order one sort of them all gives.
void Builder::mergeLeftoversIntoOrder()
{
    if (m_firstLeftover >= m_events.size())
        return;
    const auto earlier = [&](uint32_t a, uint32_t b) {
        const FunctionEvent &x = m_events[a], &y = m_events[b];
        if (m_exactTimes) {
            if (x.startNs != y.startNs)
                return x.startNs < y.startNs;
            if (x.endNs != y.endNs)
                return x.endNs > y.endNs;
        } else {
            if (x.startUs() != y.startUs())
                return x.startUs() < y.startUs();
            if (x.endUs() != y.endUs())
                return x.endUs() > y.endUs();
        }
        return a < b;
    };
    std::vector<uint32_t> leftovers(m_events.size() - m_firstLeftover);
    std::iota(leftovers.begin(), leftovers.end(), m_firstLeftover);
    trace::sortRuns(leftovers.begin(), leftovers.end(), earlier);
    std::vector<uint32_t> merged(m_order.size() + leftovers.size());
    std::merge(m_order.begin(), m_order.end(), leftovers.begin(), leftovers.end(), merged.begin(), earlier);
    m_order = std::move(merged);
}

// _populate_cpu_children: per thread, a stack scan over events sorted by (start, -end).
void Builder::buildTree()
{
    std::vector<std::vector<uint32_t>> perThread(m_threadIds.size());
    for (const uint32_t f : m_order)
        if (m_events[f].cpu)
            perThread[m_events[f].thread].push_back(f);
    std::vector<uint32_t> childCount(m_events.size(), 0);
    std::vector<uint32_t> stack;
    for (const auto& events : perThread) {
        stack.clear();
        for (const uint32_t f : events) {
            FunctionEvent& e = m_events[f];
            while (!stack.empty()) {
                const FunctionEvent& top = m_events[stack.back()];
                if (e.startUs() >= top.endUs() || e.endUs() > top.endUs()) {
                    stack.pop_back();
                } else {
                    e.parent = stack.back();
                    ++childCount[stack.back()];
                    break;
                }
            }
            stack.push_back(f);
        }
    }
    uint32_t offset = 0;
    for (uint32_t f = 0; f < m_events.size(); ++f) {
        m_events[f].childrenBegin = offset;
        offset += childCount[f];
    }
    m_children.resize(offset);
    std::vector<uint32_t> filled(m_events.size(), 0);
    for (const auto& events : perThread)
        for (const uint32_t f : events)
            if (const uint32_t p = m_events[f].parent; p != kNoIndex)
                m_children[m_events[p].childrenBegin + filled[p]++] = f;
    for (uint32_t f = 0; f < m_events.size(); ++f)
        m_events[f].childrenCount = childCount[f];
}

// _remove_dup_nodes: a child with its parent's name and no siblings is folded into the parent.
void Builder::removeDuplicateNodes()
{
    for (;;) {
        bool removedAny = false;
        for (const uint32_t f : m_order) {
            FunctionEvent& e = m_events[f];
            if (e.parent == kNoIndex)
                continue;
            FunctionEvent& parent = m_events[e.parent];
            if (parent.name != e.name || parent.childrenCount != 1)
                continue;
            parent.childrenBegin = e.childrenBegin;
            parent.childrenCount = e.childrenCount;
            parent.kernelsBegin = e.kernelsBegin;
            parent.kernelsCount = e.kernelsCount;
            for (uint32_t c = 0; c < e.childrenCount; ++c)
                m_events[m_children[e.childrenBegin + c]].parent = e.parent;
            e.removed = true;
            removedAny = true;
        }
        if (!removedAny)
            break;
        std::erase_if(m_order, [&](uint32_t f) { return m_events[f].removed; });
    }
}

void Builder::computeMetrics()
{
    m_deviceTotal.assign(m_events.size(), 0);
    // Parents precede their children in the sorted order, so a reverse walk sees children first.
    for (auto it = m_order.rbegin(); it != m_order.rend(); ++it) {
        const uint32_t f = *it;
        const FunctionEvent& e = m_events[f];
        if (!e.cpu) {
            m_deviceTotal[f] = m_useDevice ? e.duration() : 0.0;
            continue;
        }
        if (!m_useDevice)
            continue;
        // Python's sum() of a list starts at 0 and adds in order; keep that order for identical rounding.
        double childrenDevice = 0, kernels = 0;
        for (uint32_t c = 0; c < e.childrenCount; ++c)
            childrenDevice += m_deviceTotal[m_children[e.childrenBegin + c]];
        for (uint32_t k = 0; k < e.kernelsCount; ++k)
            kernels += m_kernels[e.kernelsBegin + k];
        m_deviceTotal[f] = kernels + childrenDevice;
    }
}

// torch's figures of one event (cpu_time_total, self_cpu_time_total, ...): its own, less its children's,
// summed in the children's order as computeMetrics sums them.
Builder::Metrics Builder::metricsOf(uint32_t f) const
{
    const FunctionEvent& e = m_events[f];
    Metrics m;
    m.deviceTotal = m_deviceTotal[f];
    if (!e.cpu) {
        m.selfDevice = m.deviceTotal;
        return m;
    }
    double childrenCpu = 0, childrenDevice = 0;
    int64_t childrenCpuMemory = 0, childrenDeviceMemory = 0;
    for (uint32_t c = 0; c < e.childrenCount; ++c) {
        const uint32_t child = m_children[e.childrenBegin + c];
        const FunctionEvent& ce = m_events[child];
        childrenCpu += ce.cpu ? ce.duration() : 0.0;
        childrenDevice += m_deviceTotal[child];
        const MemoryUse childMemory = memoryOf(child);
        childrenCpuMemory += childMemory.cpu;
        childrenDeviceMemory += childMemory.device;
    }
    m.cpuTotal = e.duration();
    m.selfCpu = m.cpuTotal - childrenCpu;
    if (m_useDevice)
        m.selfDevice = m.deviceTotal - childrenDevice;
    const MemoryUse memory = memoryOf(f);
    m.selfCpuMemory = memory.cpu - childrenCpuMemory;
    m.selfDeviceMemory = memory.device - childrenDeviceMemory;
    return m;
}

KeyAverages Builder::group()
{
    KeyAverages out;
    out.groupedByInputShape = m_options.groupByInputShape;
    out.useDevice = m_useDevice;
    out.profileMemory = m_trace.meta.profileMemory || !m_trace.memory.empty();
    out.withFlops = m_trace.meta.withFlops;
    // torch's key: (name, node id, device type, is_legacy, is_user_annotation[, str(input_shapes)]).
    struct GroupKey
    {
        uint64_t nameAndFlags;
        StringId shapes;
        bool operator==(const GroupKey&) const = default;
    };
    struct GroupKeyHash
    {
        size_t operator()(const GroupKey& k) const { return std::hash<uint64_t>()(k.nameAndFlags * 31 + k.shapes); }
    };
    std::unordered_map<GroupKey, size_t, GroupKeyHash> index;
    for (const uint32_t f : m_order) {
        const FunctionEvent& e = m_events[f];
        const GroupKey key{uint64_t(e.name) | (uint64_t(e.cpu) << 32) | (uint64_t(e.userAnnotation) << 33),
                           m_options.groupByInputShape ? e.shapes : 0};
        const auto [it, inserted] = index.try_emplace(key, out.rows.size());
        if (inserted) {
            const std::string_view name = (e.name & kRewrittenBit) ? m_names.view(e.name & ~kRewrittenBit) : m_trace.strings.view(e.name);
            const std::string_view shapes = e.shapes == 0 ? std::string_view("[]") : m_trace.strings.view(e.shapes);
            KeyAverage row;
            row.key = name;
            if (m_options.groupByInputShape)
                row.inputShapes = shapes;
            row.deviceType = e.cpu ? DeviceType::CPU : DeviceType::CUDA;
            row.isUserAnnotation = e.userAnnotation;
            row.hasCpuParent = e.parent != kNoIndex;
            out.rows.push_back(std::move(row));
        }
        KeyAverage& row = out.rows[it->second];
        const Metrics m = metricsOf(f);
        row.count += 1;
        row.cpuTimeTotal += m.cpuTotal;
        row.selfCpuTimeTotal += m.selfCpu;
        row.deviceTimeTotal += m.deviceTotal;
        row.selfDeviceTimeTotal += m.selfDevice;
        const MemoryUse memory = memoryOf(f);
        row.cpuMemoryUsage += memory.cpu;
        row.selfCpuMemoryUsage += m.selfCpuMemory;
        row.deviceMemoryUsage += memory.device;
        row.selfDeviceMemoryUsage += m.selfDeviceMemory;
        row.flops += flopsOf(e);
    }
    return out;
}

} // namespace

double KeyAverages::selfCpuTimeTotal(const std::vector<size_t>& order) const
{
    double sum = 0;
    for (const size_t i : order)
        sum += rows[i].selfCpuTimeTotal;
    return sum;
}

double KeyAverages::selfDeviceTimeTotal(const std::vector<size_t>& order) const
{
    double sum = 0;
    for (const size_t i : order)
        if (rows[i].deviceType == DeviceType::CUDA && !rows[i].isUserAnnotation)
            sum += rows[i].selfDeviceTimeTotal;
    return sum;
}

KeyAverages computeKeyAverages(const trace::Trace& trace, const KeyAveragesOptions& options)
{
    Builder builder(trace, options);
    return builder.run();
}

namespace {
struct SortKeyName
{
    std::string_view name;
    SortKey key;
};
constexpr SortKeyName kSortKeys[] = {
    {"cpu_time", SortKey::CpuTime},
    {"cuda_time", SortKey::DeviceTime},
    {"cpu_time_total", SortKey::CpuTimeTotal},
    {"cuda_time_total", SortKey::DeviceTimeTotal},
    {"self_cpu_time_total", SortKey::SelfCpuTimeTotal},
    {"self_cuda_time_total", SortKey::SelfDeviceTimeTotal},
    {"cpu_memory_usage", SortKey::CpuMemoryUsage},
    {"cuda_memory_usage", SortKey::DeviceMemoryUsage},
    {"self_cpu_memory_usage", SortKey::SelfCpuMemoryUsage},
    {"self_cuda_memory_usage", SortKey::SelfDeviceMemoryUsage},
    {"count", SortKey::Count},
    {"flops", SortKey::Flops},
};

std::string normalizeDeviceWord(std::string_view name)
{
    std::string out(name);
    for (const std::string_view word : {"privateuse1", "device", "xpu"}) {
        size_t at;
        while ((at = out.find(word)) != std::string::npos)
            out.replace(at, word.size(), "cuda");
    }
    return out;
}
} // namespace

std::optional<SortKey> sortKeyFromName(std::string_view name)
{
    const std::string normal = normalizeDeviceWord(name);
    for (const auto& entry : kSortKeys)
        if (entry.name == normal)
            return entry.key;
    return std::nullopt;
}

std::string sortKeyName(SortKey key)
{
    for (const auto& entry : kSortKeys)
        if (entry.key == key)
            return std::string(entry.name);
    return {};
}

std::vector<std::string> sortKeyNames()
{
    std::vector<std::string> names;
    for (const auto& entry : kSortKeys)
        names.emplace_back(entry.name);
    return names;
}

double sortValue(const KeyAverage& row, SortKey key)
{
    switch (key) {
    case SortKey::CpuTime: return row.cpuTimeAverage();
    case SortKey::DeviceTime: return row.deviceTimeAverage();
    case SortKey::CpuTimeTotal: return row.cpuTimeTotal;
    case SortKey::DeviceTimeTotal: return row.deviceTimeTotal;
    case SortKey::SelfCpuTimeTotal: return row.selfCpuTimeTotal;
    case SortKey::SelfDeviceTimeTotal: return row.selfDeviceTimeTotal;
    case SortKey::CpuMemoryUsage: return static_cast<double>(row.cpuMemoryUsage);
    case SortKey::DeviceMemoryUsage: return static_cast<double>(row.deviceMemoryUsage);
    case SortKey::SelfCpuMemoryUsage: return static_cast<double>(row.selfCpuMemoryUsage);
    case SortKey::SelfDeviceMemoryUsage: return static_cast<double>(row.selfDeviceMemoryUsage);
    case SortKey::Count: return static_cast<double>(row.count);
    case SortKey::Flops: return static_cast<double>(row.flops);
    }
    return 0;
}

SortKey defaultSortKey(const KeyAverages& averages)
{
    return averages.useDevice ? SortKey::SelfDeviceTimeTotal : SortKey::SelfCpuTimeTotal;
}

std::vector<size_t> sortedRowOrder(const KeyAverages& averages, std::optional<SortKey> key)
{
    std::vector<size_t> order(averages.rows.size());
    std::iota(order.begin(), order.end(), size_t{0});
    if (key)
        std::stable_sort(order.begin(), order.end(),
                         [&](size_t a, size_t b) { return sortValue(averages.rows[a], *key) > sortValue(averages.rows[b], *key); });
    return order;
}

} // namespace tilescope::stats
