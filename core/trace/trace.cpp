// SPDX-License-Identifier: MIT
#include "trace/trace.h"

#include "trace/gallopsearch.h"
#include "trace/nesting.h"
#include "trace/sortruns.h"
#include "trace/tracktypename.h"

#include <algorithm>
#include <atomic>
#include <future>
#include <map>
#include <numeric>
#include <system_error>

namespace tilescope::trace {

namespace {
// Under this many events a thread costs more than it saves (finalize's id indexes; a track's nesting: a
// quarter of it).
constexpr size_t kEventsWorthAThread = 20000;
// Ranges finalize's passes over every event are cut into at most: past this, memory's speed, not the cores,
// sets theirs.
constexpr unsigned kMaxEventRanges = 8;

// Runs work(0) ... work(count - 1), work(0) on this thread and the others on threads of their own where
// there are threads to be had (else here, after it); rethrows what one threw.
template <typename Work> void runSideBySide(unsigned count, Work work)
{
    std::vector<std::future<void>> running;
    unsigned started = 1;
    for (; started < count; ++started) {
        try {
            running.push_back(std::async(std::launch::async, work, started));
        } catch (const std::system_error&) {
            break;
        }
    }
    work(0u);
    for (unsigned k = started; k < count; ++k)
        work(k);
    for (std::future<void>& done : running)
        done.get();
}
} // namespace

// What finalize's first steps need to know of every event, found in one pass over them (there were three):
// on spare cores the events are cut into ranges taken side by side, each range's findings kept apart and
// joined in range order.
struct Trace::EventCensus
{
    struct Range
    {
        uint32_t begin = 0, end = 0;
        std::vector<uint32_t> perTrack;                // its events per track
        std::vector<std::vector<uint32_t>> activities; // per track: its GPU activities, in file order
        std::vector<uint8_t> gpu, host;                // per track: it holds GPU work, host work
        bool anyAnnotation = false;                    // a gpu_user_annotation is among them
    };
    std::vector<Range> ranges;
};

std::string_view trackTypeName(Track::Type type)
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

std::string_view traceFormatName(TraceFormat format)
{
    switch (format) {
    case TraceFormat::Kineto: return "Kineto (torch.profiler)";
    case TraceFormat::Kineto18: return "Kineto, PyTorch 1.8-1.9 categories";
    case TraceFormat::LegacyAutograd: return "legacy autograd profiler (CPU functions)";
    case TraceFormat::ChromeObject: return "Chrome Trace Event Format (object)";
    case TraceFormat::ChromeArray: return "Chrome Trace Event Format (array)";
    }
    return "?";
}

std::optional<std::string> TraceMetadata::key(std::string_view name) const
{
    for (const auto& [k, v] : otherKeys)
        if (k == name)
            return v;
    return std::nullopt;
}

std::string Trace::rawArgs(const Event& e) const
{
    if (e.args == kNoIndex)
        return {};
    return args.read(e.args);
}

OpInputList Trace::inputsOf(const Event& e) const
{
    if (e.op == kNoIndex)
        return {};
    return opInputs.get(ops[e.op].inputs, strings);
}

std::optional<double> Trace::transferBytesOf(uint32_t event) const
{
    const auto it = std::lower_bound(transferBytes.begin(), transferBytes.end(), event,
                                     [](const auto& entry, uint32_t i) { return entry.first < i; });
    if (it == transferBytes.end() || it->first != event)
        return std::nullopt;
    return it->second;
}

const CollectiveArgs* Trace::collectiveArgsOf(uint32_t event) const
{
    const auto it = std::lower_bound(collectiveArgs.begin(), collectiveArgs.end(), event,
                                     [](const CollectiveArgs& a, uint32_t i) { return a.event < i; });
    return it != collectiveArgs.end() && it->event == event ? &*it : nullptr;
}

void Trace::finalize(unsigned threads)
{
    args.finish();
    // The id indexes read only the events' kinds and ids, which the three steps beside them leave alone (they
    // write the tracks and the events' times, parents, depths and flags): on a second core they cost the load
    // nothing. A small trace is not worth a thread's start.
    std::future<void> ids;
    if (threads > 1 && events.size() >= kEventsWorthAThread) {
        try {
            ids = std::async(std::launch::async, [this] { indexIds(); });
        } catch (const std::system_error&) { // no thread to be had: they are built below, after the nesting
        }
    }
    EventCensus census = takeCensus(threads);
    classifyTracks(census);
    undoAnnotationWidening(census); // takes the activity lists: not held through the rest
    const EventSpan span = sortAndNestTracks(threads, census);
    if (span.repeats > 0)
        stats.warnings.push_back(std::to_string(span.repeats) + (span.repeats == 1 ? " event is a repeat" : " events are repeats")
                                 + ": each equals an earlier event on its track (the same name, ids, start and duration), so the file"
                                   " holds that record more than once. GPU work is counted once per copy; a copied op nests in"
                                   " its original, and key averages fold it in where it is the only child (torch's rule for a"
                                   " child of its own name)");
    if (ids.valid())
        ids.get(); // rethrows what the thread threw
    else
        indexIds();
    linkForwardBackward();
    if (!memory.empty())
        meta.profileMemory = true;
    bool any = !events.empty();
    int64_t first = span.first, last = span.last;
    for (const MemoryRecord& m : memory) {
        first = any ? std::min(first, m.time) : m.time;
        last = any ? std::max(last, m.time) : m.time;
        any = true;
    }
    m_firstTime = first;
    m_lastTime = last;
    // Found once: views and tables ask for it per cell and per frame, and a trace without a Trace span
    // would be scanned whole each time.
    m_originTime = span.firstTraceSpan != kNoIndex ? events[span.firstTraceSpan].start : m_firstTime;
}

Trace::EventCensus Trace::takeCensus(unsigned threads) const
{
    // One core is finalize's id indexes' (see finalize), the rest take ranges of at least kEventsWorthAThread.
    const unsigned spare = threads > 2 ? threads - 2 : 0;
    const auto count = static_cast<unsigned>(
        std::clamp<size_t>(std::min<size_t>(spare + 1, events.size() / kEventsWorthAThread), 1, kMaxEventRanges));
    EventCensus census;
    census.ranges.resize(count);
    for (unsigned k = 0; k < count; ++k) {
        census.ranges[k].begin = static_cast<uint32_t>(events.size() * k / count);
        census.ranges[k].end = static_cast<uint32_t>(events.size() * (k + 1) / count);
    }
    runSideBySide(count, [&](unsigned k) {
        // Counted in the thread's own variables, moved into the range at the end: the ranges lie side by side
        // in memory, and a write per event to one would slow the neighbour reading the same cache line.
        std::vector<uint32_t> perTrack(tracks.size(), 0);
        std::vector<std::vector<uint32_t>> activities(tracks.size());
        std::vector<uint8_t> gpu(tracks.size(), 0), host(tracks.size(), 0);
        bool anyAnnotation = false;
        const uint32_t begin = census.ranges[k].begin, end = census.ranges[k].end;
        for (uint32_t i = begin; i < end; ++i) {
            const Event& e = events[i];
            ++perTrack[e.track];
            if (isGpuActivity(e.kind))
                activities[e.track].push_back(i);
            if (isGpuSide(e.kind))
                gpu[e.track] = 1;
            else if (e.kind != EventKind::TraceSpan && e.kind != EventKind::Other && e.kind != EventKind::Instant)
                host[e.track] = 1;
            anyAnnotation = anyAnnotation || e.kind == EventKind::GpuUserAnnotation;
        }
        EventCensus::Range& range = census.ranges[k];
        range.perTrack = std::move(perTrack);
        range.activities = std::move(activities);
        range.gpu = std::move(gpu);
        range.host = std::move(host);
        range.anyAnnotation = anyAnnotation;
    });
    return census;
}

void Trace::classifyTracks(const EventCensus& census)
{
    std::vector<uint8_t> gpu(tracks.size(), 0), host(tracks.size(), 0);
    for (const EventCensus::Range& range : census.ranges)
        for (TrackId t = 0; t < tracks.size(); ++t) {
            gpu[t] |= range.gpu[t];
            host[t] |= range.host[t];
        }
    for (const MemoryRecord& m : memory)
        host[m.track] = 1;
    for (TrackId t = 0; t < tracks.size(); ++t) {
        Track& track = tracks[t];
        const Process& process = processes[track.process];
        const std::string_view pidText = strings.view(process.pidText);
        if (gpu[t]) {
            track.type = Track::Type::GpuStream;
            const std::string_view labels = strings.view(process.labels);
            if (labels.starts_with("GPU ")) {
                track.device = std::atoi(std::string(labels.substr(4)).c_str());
            } else if (process.pid) {
                track.device = static_cast<int>(*process.pid);
            }
            if (track.tid) {
                track.stream = track.tid;
            } else {
                const std::string_view tid = strings.view(track.tidText);
                const size_t digits = tid.find_first_of("0123456789");
                if (digits != std::string_view::npos)
                    track.stream = std::atoll(std::string(tid.substr(digits)).c_str());
            }
        } else if (process.pid && *process.pid == -1) {
            track.type = Track::Type::Overhead;
        } else if (process.pidIsString && (pidText == "Spans" || pidText == "Traces")) {
            track.type = Track::Type::Spans;
        } else if (host[t]) {
            track.type = Track::Type::HostThread;
        }
    }
}

// Kineto widens each gpu_user_annotation so Chrome draws it above its kernels; torch's numbers use the
// unwidened span. Measure the widening as the most frequent (first kernel start - ts, ts + dur - last
// kernel end) over annotations that hold kernels on their stream (trace-format.md §3.3).
void Trace::undoAnnotationWidening(EventCensus& census)
{
    const bool anyAnnotation = std::any_of(census.ranges.begin(), census.ranges.end(),
                                           [](const EventCensus::Range& r) { return r.anyAnnotation; });
    std::vector<std::vector<uint32_t>> activities(tracks.size());
    for (EventCensus::Range& range : census.ranges) { // in file order; each range's lists freed as taken
        if (anyAnnotation)
            for (TrackId t = 0; t < tracks.size(); ++t)
                activities[t].insert(activities[t].end(), range.activities[t].begin(), range.activities[t].end());
        range.activities = {};
    }
    if (!anyAnnotation)
        return;
    for (auto& list : activities) // a stream's activities are in the file mostly in time order: a few runs
        sortRuns(list.begin(), list.end(), [&](uint32_t a, uint32_t b) { return events[a].start < events[b].start; });
    std::map<std::pair<int64_t, int64_t>, uint64_t> votes;
    for (const Event& a : events) {
        if (a.kind != EventKind::GpuUserAnnotation)
            continue;
        const auto& list = activities[a.track];
        auto it = std::lower_bound(list.begin(), list.end(), a.start, [&](uint32_t i, int64_t t) { return events[i].start < t; });
        int64_t firstStart = 0, lastEnd = 0;
        bool found = false;
        for (; it != list.end() && events[*it].start <= a.end(); ++it) {
            const Event& k = events[*it];
            if (k.end() > a.end())
                continue;
            if (!found)
                firstStart = k.start;
            lastEnd = found ? std::max(lastEnd, k.end()) : k.end();
            found = true;
        }
        if (found)
            ++votes[{firstStart - a.start, a.end() - lastEnd}];
    }
    std::pair<int64_t, int64_t> widening{0, 0};
    if (votes.empty()) {
        if (meta.baseTimeNs)
            widening = {1, 1}; // pytorch/kineto#944, the writer of every trace with baseTimeNanoseconds
    } else {
        uint64_t best = 0;
        for (const auto& [pair, count] : votes)
            if (count > best) {
                best = count;
                widening = pair;
            }
    }
    if (widening.first < 0 || widening.second < 0 || widening.first > 2000 || widening.second > 2000)
        return; // not a widening we know: leave the spans as written
    meta.annotationWideningStart = widening.first;
    meta.annotationWideningEnd = widening.second;
    for (Event& a : events) {
        if (a.kind != EventKind::GpuUserAnnotation)
            continue;
        const int64_t cut = std::min(a.duration, widening.first);
        a.start += cut;
        a.duration = std::max<int64_t>(0, a.duration - widening.first - widening.second);
    }
}

namespace {
// The same record written twice (a trace concatenated with itself, or events appended again): every field
// the file gave equal. Different ops that torch records at the same microsecond differ in their ids, so a
// record without ids is never taken for a repeat (pre-2.0 traces nest same-named ops at one time).
bool isRepeatOf(const Event& e, const Event& previous)
{
    return e.start == previous.start && e.duration == previous.duration && e.name == previous.name && e.kind == previous.kind
        && e.correlation == previous.correlation && e.externalId == previous.externalId && e.category == previous.category
        && (e.correlation != kNoId || e.externalId != kNoId);
}
} // namespace

// How far back among events of the same start and duration a track's sorted list is searched for a repeat.
constexpr size_t kRepeatSearch = 32;
Trace::EventSpan Trace::sortAndNestTracks(unsigned threads, const EventCensus& census)
{
    EventSpan span;
    if (!events.empty()) {
        span.first = events.front().start;
        span.last = events.front().end();
    }
    // Each track's list in file order: each range of the census writes its events from where the ranges
    // before it end, side by side.
    std::vector<uint32_t> perTrack(tracks.size(), 0);
    std::vector<std::vector<uint32_t>> rangeStarts(census.ranges.size(), std::vector<uint32_t>(tracks.size()));
    for (size_t k = 0; k < census.ranges.size(); ++k)
        for (TrackId t = 0; t < tracks.size(); ++t) {
            rangeStarts[k][t] = perTrack[t];
            perTrack[t] += census.ranges[k].perTrack[t];
        }
    for (TrackId t = 0; t < tracks.size(); ++t)
        tracks[t].events.resize(perTrack[t]);
    runSideBySide(static_cast<unsigned>(census.ranges.size()), [&](unsigned k) {
        std::vector<uint32_t> next = rangeStarts[k]; // the thread's own (see takeCensus)
        for (uint32_t i = census.ranges[k].begin; i < census.ranges[k].end; ++i)
            tracks[events[i].track].events[next[events[i].track]++] = i;
    });
    // Sorts one track's list and nests its events: they are its own, and it writes nothing else.
    const auto nestTrack = [this](Track& track, std::vector<uint32_t>& stack, FreeRows& rows, EventSpan& span) {
        auto& list = track.events;
        const auto earlier = [&](uint32_t a, uint32_t b) {
            const Event& x = events[a];
            const Event& y = events[b];
            if (x.start != y.start)
                return x.start < y.start;
            if (x.duration != y.duration)
                return x.duration > y.duration;
            // A GPU annotation over exactly its kernel's span (Kineto's widening undone) holds it, so it is
            // drawn above it whichever of the two the file wrote first.
            return x.kind == EventKind::GpuUserAnnotation && y.kind != EventKind::GpuUserAnnotation;
        };
        sortRuns(list.begin(), list.end(), earlier); // Kineto writes most lanes in order, or in a few runs
        stack.clear();
        rows.clear();
        size_t sameTimes = 0; // where the run of events with e's start and duration began in the list
        int64_t previousStart = 0, previousDuration = -1;
        for (size_t at = 0; at < list.size(); ++at) {
            const uint32_t index = list[at];
            Event& e = events[index];
            if (e.start != previousStart || e.duration != previousDuration) {
                sameTimes = at;
                previousStart = e.start;
                previousDuration = e.duration;
            } else {
                // A copy sorts next to its original unless another event of the same times came between them:
                // looked for among a few dozen of those.
                for (size_t k = std::max(sameTimes, at >= kRepeatSearch ? at - kRepeatSearch : 0); k < at; ++k)
                    if (isRepeatOf(e, events[list[k]])) {
                        ++span.repeats;
                        break;
                    }
            }
            while (!stack.empty() && e.start >= events[stack.back()].end())
                stack.pop_back();
            e.parent = kNoIndex;
            // The row: the first one below the innermost open event that holds e whole, free from e's start.
            // Nested events get their parent's depth + 1, as always. One that outlives the event it starts in
            // (torch's ProfilerStep#N begins inside a Python frame and outlasts it) goes below that event, but
            // is not stacked under it for good: otherwise each step's frame and step would start one row deeper
            // than the last, hundreds of rows down a long run.
            size_t depth = 0;
            if (!stack.empty()) {
                if (e.end() > events[stack.back()].end()) {
                    e.flags |= PartialOverlap;
                    ++track.partialOverlaps;
                    if (const uint32_t holder = innermostHolding(stack, events, e); holder != kNoIndex)
                        depth = events[holder].depth + size_t(1);
                } else {
                    e.parent = stack.back();
                    depth = events[stack.back()].depth + size_t(1);
                }
            }
            e.depth = static_cast<uint16_t>(rows.place(depth, e.start, e.end(), UINT16_MAX));
            track.maxDepth = std::max(track.maxDepth, e.depth);
            stack.push_back(index);
            // The trace's extent on the way: one pass over the events fewer.
            span.first = std::min(span.first, e.start);
            span.last = std::max(span.last, e.end());
            if (e.kind == EventKind::TraceSpan)
                span.firstTraceSpan = std::min(span.firstTraceSpan, index);
        }
    };
    // With cores to spare (finalize's second thread builds the id indexes), the tracks of many events are
    // nested on several threads at once, the largest first: a trace's CPU thread and its busy streams take
    // most of the time, one each.
    std::vector<TrackId> order(tracks.size());
    std::iota(order.begin(), order.end(), TrackId(0));
    std::stable_sort(order.begin(), order.end(), [&](TrackId a, TrackId b) { return perTrack[a] > perTrack[b]; });
    const auto large = static_cast<unsigned>(
        std::count_if(perTrack.begin(), perTrack.end(), [](uint32_t n) { return n >= kEventsWorthAThread / 4; }));
    const unsigned helpers = std::min(threads > 2 ? threads - 2 : 0u, large > 0 ? large - 1 : 0u);
    std::atomic<size_t> next{0};
    // Each track's extent is its own (which thread nests which track is a race): merged in track order after.
    std::vector<EventSpan> spans(tracks.size(), span);
    const auto nestSome = [&] {
        std::vector<uint32_t> stack;
        FreeRows rows;
        for (size_t k; (k = next.fetch_add(1, std::memory_order_relaxed)) < order.size();)
            nestTrack(tracks[order[k]], stack, rows, spans[order[k]]);
    };
    // Where fewer threads could be had, the ones there are took the rest: a later nestSome finds none left.
    runSideBySide(helpers + 1, [&](unsigned) { nestSome(); });
    for (const EventSpan& local : spans) {
        span.first = std::min(span.first, local.first);
        span.last = std::max(span.last, local.last);
        span.firstTraceSpan = std::min(span.firstTraceSpan, local.firstTraceSpan);
        span.repeats += local.repeats;
    }
    return span;
}

bool Trace::hasExternalLink(const Event& e) const
{
    if (e.externalId == kNoId)
        return false;
    return !(meta.externalIdEqualsCorrelationMeansNone && e.externalId == e.correlation);
}

void Trace::indexIds()
{
    // Which index an event enters; the events are walked twice, to count and then to add, so that each
    // index is written once at its final size.
    enum Index : uint8_t { kLaunch = 1, kActivity = 2, kOp = 4, kAnnotation = 8 };
    const auto indexesOf = [](const Event& e) {
        uint8_t in = 0;
        if (e.correlation != kNoId) {
            if (isLaunchApi(e.kind))
                in |= kLaunch;
            else if (isGpuActivity(e.kind) || e.kind == EventKind::CudaSync)
                in |= kActivity;
        }
        if (e.externalId != kNoId) {
            if (e.kind == EventKind::CpuOp || e.kind == EventKind::UserAnnotation)
                in |= kOp;
            if (e.kind == EventKind::UserAnnotation)
                in |= kAnnotation;
        }
        return in;
    };
    size_t launches = 0, activityIds = 0, ops = 0, annotations = 0;
    uint64_t activities = 0, withoutExternal = 0;
    for (const Event& e : events) {
        if (isLaunchApi(e.kind) || isGpuActivity(e.kind)) {
            ++activities;
            withoutExternal += e.externalId == kNoId;
        }
        const uint8_t in = indexesOf(e);
        launches += (in & kLaunch) != 0;
        activityIds += (in & kActivity) != 0;
        ops += (in & kOp) != 0;
        annotations += (in & kAnnotation) != 0;
    }
    m_launchByCorrelation.reserve(launches);
    m_activitiesByCorrelation.reserve(activityIds);
    m_opByExternalId.reserve(ops);
    m_annotationByExternalId.reserve(annotations);
    for (uint32_t i = 0; i < events.size(); ++i) {
        const Event& e = events[i];
        const uint8_t in = indexesOf(e);
        if (in & kLaunch)
            m_launchByCorrelation.add(e.correlation, i);
        if (in & kActivity)
            m_activitiesByCorrelation.add(e.correlation, i);
        if (in & kOp)
            m_opByExternalId.add(e.externalId, i);
        if (in & kAnnotation)
            m_annotationByExternalId.add(e.externalId, i);
    }
    m_launchByCorrelation.seal();
    m_activitiesByCorrelation.seal();
    m_opByExternalId.seal();
    m_annotationByExternalId.seal();
    meta.externalIdEqualsCorrelationMeansNone = activities > 0 && withoutExternal == 0;
}

// fwdbwd flows: the start sits on the forward op, the end on the backward op (needs the tracks nested).
void Trace::linkForwardBackward()
{
    // Each flow's lane is searched from where the lane's previous flow was found (an offset into the lane's
    // list, which does not change here): a lane's flows come in time order, and the flows of a training step
    // sit close together on the main thread's long lane.
    std::vector<size_t> hints(tracks.size(), 0);
    auto enclosingOp = [&](TrackId track, int64_t time) -> uint32_t {
        const auto& list = tracks[track].events;
        auto it = gallopUpperBound(list.begin(), list.end(), list.begin() + static_cast<ptrdiff_t>(hints[track]), time,
                                   [&](int64_t t, uint32_t i) { return t < events[i].start; });
        hints[track] = static_cast<size_t>(it - list.begin());
        if (it == list.begin())
            return kNoIndex;
        uint32_t candidate = *(it - 1);
        while (candidate != kNoIndex) {
            const Event& e = events[candidate];
            if (e.kind == EventKind::CpuOp && e.start <= time && time <= e.end())
                return candidate;
            candidate = e.parent;
        }
        return kNoIndex;
    };
    const StringId fwdbwd = strings.find("fwdbwd");
    if (fwdbwd == kNoIndex)
        return;
    std::unordered_map<int64_t, uint32_t> forwardById; // fwdbwd ids are numbers
    for (const Flow& f : flows)
        if (f.category == fwdbwd && f.phase == 's' && !f.idIsString)
            if (const uint32_t op = enclosingOp(f.track, f.time); op != kNoIndex)
                forwardById.emplace(f.id, op);
    std::fill(hints.begin(), hints.end(), 0);
    for (const Flow& f : flows) {
        if (f.category != fwdbwd || f.phase != 'f' || f.idIsString)
            continue;
        const auto it = forwardById.find(f.id);
        if (it == forwardById.end())
            continue;
        if (const uint32_t op = enclosingOp(f.track, f.time); op != kNoIndex)
            m_forwardBackward.emplace_back(it->second, op);
    }
}

uint32_t Trace::launchOf(uint32_t gpuActivity) const
{
    const Event& e = events[gpuActivity];
    if (e.correlation == kNoId)
        return kNoIndex;
    return m_launchByCorrelation.first(e.correlation);
}

std::vector<uint32_t> Trace::activitiesOf(uint32_t launch) const
{
    std::vector<uint32_t> out;
    const Event& e = events[launch];
    if (e.correlation == kNoId)
        return out;
    m_activitiesByCorrelation.forEach(e.correlation, [&](uint32_t activity) { out.push_back(activity); }); // in event order
    return out;
}

uint32_t Trace::opOf(uint32_t index) const
{
    const Event& e = events[index];
    if (e.kind == EventKind::CpuOp || e.kind == EventKind::UserAnnotation)
        return kNoIndex;
    if (hasExternalLink(e))
        if (const uint32_t op = m_opByExternalId.first(e.externalId); op != kNoIndex)
            return op;
    return enclosingOpOfLaunch(index);
}

// Pre-2.0 Kineto writes the correlation id as every activity's External id, so no op is named; the op
// torch would have named is the innermost one open on the launching thread when the launch was made.
uint32_t Trace::enclosingOpOfLaunch(uint32_t index) const
{
    const EventKind kind = events[index].kind;
    const uint32_t launch = isLaunchApi(kind) ? index : (isGpuActivity(kind) || kind == EventKind::CudaSync) ? launchOf(index) : kNoIndex;
    if (launch == kNoIndex)
        return kNoIndex;
    for (uint32_t up = events[launch].parent; up != kNoIndex; up = events[up].parent)
        if (events[up].kind == EventKind::CpuOp)
            return up;
    return kNoIndex;
}

uint32_t Trace::annotationOf(uint32_t index) const
{
    const Event& e = events[index];
    if (e.kind != EventKind::GpuUserAnnotation || e.externalId == kNoId)
        return kNoIndex;
    return m_annotationByExternalId.first(e.externalId);
}

std::string noEventsText(const Trace& trace)
{
    if (!trace.events.empty() || !trace.memory.empty() || !trace.counters.empty())
        return {};
    const uint64_t records = trace.stats.records;
    if (records == 0)
        return trace.meta.format == TraceFormat::ChromeArray ? "the trace holds no events: the file is an empty JSON array"
                                                             : "the trace holds no events: its traceEvents list is empty";
    return "the trace holds no events: its " + std::to_string(records) + (records == 1 ? " record is" : " records are")
        + " metadata (process and thread names and the like), nothing to draw";
}

std::string profilerRangeText(const Trace& trace)
{
    const StringId category = trace.strings.find("cuda_profiler_range");
    if (category == kNoIndex)
        return {};
    const auto n = std::count_if(trace.events.begin(), trace.events.end(), [&](const Event& e) { return e.category == category; });
    if (n == 0)
        return {};
    return "its " + std::to_string(n) + (n == 1 ? " kernel is a CUPTI range-profiler record" : " kernels are CUPTI range-profiler records")
        + " (cuda_profiler_range), with counters in their args and placeholder times";
}

std::string noEventsSentence(const Trace& trace)
{
    std::string text = noEventsText(trace);
    if (!text.empty()) {
        text[0] = 'T';
        text += '.';
    }
    return text;
}

} // namespace tilescope::trace
