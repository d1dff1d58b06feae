// SPDX-License-Identifier: MIT
// The memory graph's core (issue #11) against the raw [memory] records, read independently with nlohmann
// from the decompressed trace, and the per-pixel summary against a brute-force walk.
#include "testutil.h"

#include "io/bytesource.h"
#include "io/smalljson.h"
#include "memory/allocatorsnapshot.h"
#include "memory/memoryanalysis.h"
#include "memory/memoryfiles.h"
#include "memory/memoryseriessummary.h"
#include "trace/traceloader.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

using namespace tilescope;
using trace::kNoId;
using trace::kNoIndex;

namespace {

constexpr int64_t MiB = int64_t(1) << 20;

int64_t ns(const io::Json& us) { return std::llround(us.get<double>() * 1000.0); }

// The trace's records and host ops as the file has them.
struct RawRecord
{
    int64_t time;
    std::string device;
    int64_t bytes, allocated, reserved, address;
    std::string pidTid;
    bool oom;
};
struct RawOp
{
    int64_t start, end;
    std::string name, pidTid;
};
struct RawTrace
{
    std::vector<RawRecord> records; // stable-sorted by time
    std::vector<RawOp> ops;
};

std::string key(const io::Json& e) { return e.value("pid", io::Json()).dump() + "/" + e.value("tid", io::Json()).dump(); }

RawTrace readRaw(const std::string& path)
{
    const io::Json doc = io::readSmallJsonFile(path);
    RawTrace raw;
    for (const io::Json& e : doc["traceEvents"]) {
        const std::string name = e.value("name", "");
        const std::string cat = e.value("cat", "");
        if (name == "[memory]" || name == "[OutOfMemory]") {
            const io::Json& a = e["args"];
            const int type = a["Device Type"].get<int>();
            const int id = a["Device Id"].get<int>();
            raw.records.push_back({ns(e["ts"]),
                                   type == 0       ? "cpu"
                                       : type == 1 ? "cuda:" + std::to_string(id)
                                                   : "other",
                                   a["Bytes"].get<int64_t>(), a.value("Total Allocated", kNoId), a.value("Total Reserved", kNoId),
                                   a.value("Addr", kNoId), key(e), name == "[OutOfMemory]"});
        } else if (e.value("ph", "") == "X" && (cat == "cpu_op" || cat == "user_annotation")) {
            raw.ops.push_back({ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), name, key(e)});
        }
    }
    std::stable_sort(raw.records.begin(), raw.records.end(), [](const RawRecord& a, const RawRecord& b) { return a.time < b.time; });
    return raw;
}

// The innermost host op around a record: the latest-starting op of its thread containing it (the shorter
// on equal starts).
std::string rawOpAt(const RawTrace& raw, const std::string& pidTid, int64_t time)
{
    const RawOp* best = nullptr;
    for (const RawOp& op : raw.ops)
        if (op.pidTid == pidTid && op.start <= time && time < op.end
            && (!best || op.start > best->start || (op.start == best->start && op.end < best->end)))
            best = &op;
    return best ? best->name : std::string();
}

std::string opName(const trace::Trace& t, uint32_t event)
{
    return event == kNoIndex ? std::string() : std::string(t.name(t.events[event]));
}

const memory::DeviceMemory* device(const memory::MemoryAnalysis& a, const std::string& name)
{
    for (const auto& d : a.devices)
        if (d.name == name)
            return &d;
    return nullptr;
}

// Everything analyzeMemory says about devices, ops and blocks, against the raw records.
void checkAgainstRaw(const trace::Trace& t, const memory::MemoryAnalysis& a, const RawTrace& raw)
{
    std::map<std::string, std::vector<const RawRecord*>> byDevice;
    for (const RawRecord& r : raw.records)
        byDevice[r.device].push_back(&r);
    QCOMPARE(a.devices.size(), byDevice.size());
    for (const auto& [name, records] : byDevice) {
        const memory::DeviceMemory* d = device(a, name);
        QVERIFY2(d, name.c_str());
        int64_t peak = std::numeric_limits<int64_t>::min(), peakReserved = peak;
        const RawRecord* peakRecord = nullptr;
        uint64_t allocs = 0, frees = 0, samples = 0;
        int64_t allocBytes = 0, freeBytes = 0;
        for (const RawRecord* r : records) {
            if (r->oom)
                continue;
            ++samples;
            if (r->allocated > peak) {
                peak = r->allocated;
                peakRecord = r;
            }
            peakReserved = std::max(peakReserved, r->reserved);
            allocs += r->bytes > 0;
            frees += r->bytes < 0;
            (r->bytes > 0 ? allocBytes : freeBytes) += std::abs(r->bytes);
        }
        QCOMPARE(d->samples.size(), samples);
        QCOMPARE(d->peakAllocated, peak);
        QCOMPARE(d->peakReserved, peakReserved);
        QCOMPARE(d->peakAllocatedTime, peakRecord->time);
        QCOMPARE(opName(t, d->peakOp), rawOpAt(raw, peakRecord->pidTid, peakRecord->time));
        QCOMPARE(d->finalAllocated, records.back()->allocated);
        QCOMPARE(d->allocs, allocs);
        QCOMPARE(d->frees, frees);
        QCOMPARE(d->allocBytes, allocBytes);
        QCOMPARE(d->freeBytes, freeBytes);
        QVERIFY(!d->allocatedFromRunningSum);
        for (size_t s = 1; s < d->samples.size(); ++s)
            QVERIFY(d->samples[s - 1].time <= d->samples[s].time);
    }

    // Per-op self allocations and frees.
    std::map<std::string, std::pair<int64_t, int64_t>> opBytes; // alloc, free bytes
    std::map<std::string, uint64_t> opAllocs;
    for (const RawRecord& r : raw.records) {
        if (r.oom)
            continue;
        const std::string op = rawOpAt(raw, r.pidTid, r.time);
        if (r.bytes > 0) {
            opBytes[op].first += r.bytes;
            ++opAllocs[op];
        } else {
            opBytes[op].second -= r.bytes;
        }
    }
    QCOMPARE(a.ops.size(), opBytes.size());
    for (const memory::OpMemory& op : a.ops) {
        const std::string name = op.name == kNoIndex ? std::string() : std::string(t.strings.view(op.name));
        QCOMPARE(op.allocBytes, opBytes[name].first);
        QCOMPARE(op.freeBytes, opBytes[name].second);
        QCOMPARE(op.allocs, opAllocs[name]);
        uint64_t calls = 0;
        for (const RawOp& o : raw.ops)
            calls += o.name == name;
        QCOMPARE(op.calls, op.name == kNoIndex ? 0 : calls);
    }
    for (size_t k = 1; k < a.ops.size(); ++k)
        QVERIFY(a.ops[k - 1].allocBytes >= a.ops[k].allocBytes);

    // Pairing with a map of open allocations per (device, address).
    std::map<std::pair<std::string, int64_t>, const RawRecord*> open;
    size_t pairs = 0, freesOfEarlier = 0;
    for (const RawRecord& r : raw.records) {
        if (r.oom)
            continue;
        const auto k = std::make_pair(r.device, r.address);
        if (r.bytes > 0) {
            QVERIFY2(!open.count(k), "an address allocated twice without a free");
            open[k] = &r;
        } else if (open.count(k)) {
            ++pairs;
            open.erase(k);
        } else {
            ++freesOfEarlier;
        }
    }
    size_t gotPairs = 0, gotFreesOfEarlier = 0, gotLive = 0;
    for (const memory::MemoryBlock& b : a.blocks) {
        gotPairs += b.allocRecord != kNoIndex && b.freeRecord != kNoIndex;
        gotFreesOfEarlier += b.allocRecord == kNoIndex;
        gotLive += b.liveAtEnd;
        if (b.allocRecord != kNoIndex && b.freeRecord != kNoIndex) {
            QVERIFY(b.freeTime >= b.allocTime);
            QCOMPARE(t.memory[b.freeRecord].bytes, -b.bytes);
            QCOMPARE(t.memory[b.allocRecord].address, t.memory[b.freeRecord].address);
        }
    }
    QCOMPARE(gotPairs, pairs);
    QCOMPARE(gotFreesOfEarlier, freesOfEarlier);
    QCOMPARE(gotLive, open.size());
}

// The step function's range over [start, end) and its value at the end, walked sample by sample.
memory::PixelSummary bruteForcePixel(const std::vector<memory::MemorySample>& s, int64_t start, int64_t end)
{
    memory::PixelSummary px{};
    const memory::MemorySample* atStart = nullptr;
    const memory::MemorySample* last = nullptr;
    std::vector<const memory::MemorySample*> range;
    for (const auto& sample : s) {
        if (sample.time <= start)
            atStart = &sample;
        if (sample.time < end)
            last = &sample;
        if (sample.time >= start && sample.time < end) {
            range.push_back(&sample);
            px.hasSamples = true;
        }
    }
    if (start == end) // an empty column (fewer nanoseconds than pixels): the value from the left
        atStart = last;
    if (atStart)
        range.push_back(atStart);
    px.hasValue = last != nullptr;
    if (!last)
        return px;
    px.minAllocated = px.minReserved = std::numeric_limits<int64_t>::max();
    px.maxAllocated = px.maxReserved = std::numeric_limits<int64_t>::min();
    for (const auto* r : range) {
        px.minAllocated = std::min(px.minAllocated, r->allocated);
        px.maxAllocated = std::max(px.maxAllocated, r->allocated);
        px.minReserved = std::min(px.minReserved, r->reserved);
        px.maxReserved = std::max(px.maxReserved, r->reserved);
    }
    px.lastAllocated = last->allocated;
    px.lastReserved = last->reserved;
    return px;
}

void checkSummary(const std::vector<memory::MemorySample>& samples, const memory::MemorySeriesSummary& summary, int64_t t0, int64_t t1,
                  int pixels)
{
    const auto got = summary.summarize(t0, t1, pixels);
    QCOMPARE(got.size(), size_t(pixels));
    for (int p = 0; p < pixels; ++p) {
        const int64_t start = t0 + (t1 - t0) * p / pixels;
        const int64_t end = t0 + (t1 - t0) * (p + 1) / pixels;
        const memory::PixelSummary want = bruteForcePixel(samples, start, end);
        const memory::PixelSummary& px = got[size_t(p)];
        const QByteArray where = QByteArray("pixel ") + QByteArray::number(p) + " of " + QByteArray::number(pixels) + " ["
            + QByteArray::number(qint64(start)) + ", " + QByteArray::number(qint64(end)) + ")";
        QVERIFY2(px.hasValue == want.hasValue && px.hasSamples == want.hasSamples, where.constData());
        if (!want.hasValue)
            continue;
        QVERIFY2(px.minAllocated == want.minAllocated && px.maxAllocated == want.maxAllocated && px.lastAllocated == want.lastAllocated,
                 where.constData());
        QVERIFY2(px.minReserved == want.minReserved && px.maxReserved == want.maxReserved && px.lastReserved == want.lastReserved,
                 where.constData());
    }
}

std::unique_ptr<trace::Trace> loadText(const std::string& text)
{
    auto source = io::memorySource(text, "memory.json");
    return trace::loadTrace(*source);
}

std::vector<int64_t> mib(std::initializer_list<double> values)
{
    std::vector<int64_t> out;
    for (const double v : values)
        out.push_back(static_cast<int64_t>(v * double(MiB)));
    return out;
}

} // namespace

class TestMemory : public QObject
{
    Q_OBJECT
private slots:
    // What a session folder holds, and a folder of several runs where only the trace's stem decides.
    void memoryFilesBeside()
    {
        QTemporaryDir dir;
        auto touch = [&](const char* name) {
            QFile f(dir.filePath(QString::fromLatin1(name)));
            QVERIFY(f.open(QIODevice::WriteOnly));
        };
        touch("trace.json");
        touch("memory_timeline.json");
        touch("memory_snapshot.pickle");
        touch("notes.json");
        const std::string trace = dir.filePath(QStringLiteral("trace.json")).toStdString();
        auto found = memory::findMemoryFilesBeside(trace);
        QCOMPARE(found.timeline.value_or(""), dir.filePath(QStringLiteral("memory_timeline.json")).toStdString());
        QCOMPARE(found.snapshot.value_or(""), dir.filePath(QStringLiteral("memory_snapshot.pickle")).toStdString());
        QVERIFY(found.snapshotNamedForTrace); // a session's name
        // Two runs side by side: each trace takes the files that start with its stem; a third trace none.
        touch("run1.pt.trace.json");
        touch("run1_memory_timeline.json.gz");
        touch("run2_memory_timeline.raw.json.gz");
        touch("run2.pickle.gz");
        found = memory::findMemoryFilesBeside(dir.filePath(QStringLiteral("run1.pt.trace.json")).toStdString());
        QCOMPARE(found.timeline.value_or(""), dir.filePath(QStringLiteral("run1_memory_timeline.json.gz")).toStdString());
        QVERIFY(!found.snapshot); // two pickles, neither run1's
        found = memory::findMemoryFilesBeside(dir.filePath(QStringLiteral("run2.json")).toStdString());
        QCOMPARE(found.timeline.value_or(""), dir.filePath(QStringLiteral("run2_memory_timeline.raw.json.gz")).toStdString());
        QCOMPARE(found.snapshot.value_or(""), dir.filePath(QStringLiteral("run2.pickle.gz")).toStdString());
        QVERIFY(found.snapshotNamedForTrace);
        found = memory::findMemoryFilesBeside(trace);
        QVERIFY(!found.timeline); // three timelines now, none named after "trace"
        // A folder that cannot be listed finds nothing rather than failing.
        QVERIFY(!memory::findMemoryFilesBeside("/nonexistent-folder/trace.json").timeline);
        // A session's snapshot name ties it to the trace; any other lone pickle is only found.
        QTemporaryDir lone;
        QFile(lone.filePath(QStringLiteral("trace.json"))).open(QIODevice::WriteOnly);
        QFile(lone.filePath(QStringLiteral("other_run.pickle"))).open(QIODevice::WriteOnly);
        found = memory::findMemoryFilesBeside(lone.filePath(QStringLiteral("trace.json")).toStdString());
        QVERIFY(found.snapshot);
        QVERIFY(!found.snapshotNamedForTrace);
    }

    // An allocator snapshot beside a trace goes with it when its history was recorded during the trace; one
    // from another run (a walk-through put memory_churn's beside gemm_compare, and the app showed another
    // run's 672 MiB as this trace's) is left out, saying why. Without times only its name can tie it.
    void snapshotBesideGoesWithItsTrace()
    {
        const memory::AllocatorSnapshot snapshot = memory::loadAllocatorSnapshot(
            testutil::dataPath("h200/memory_churn/memory_snapshot.pickle.gz"));
        const auto own = trace::loadTrace(testutil::workloadTrace("memory_churn"));
        const auto other = trace::loadTrace(testutil::workloadTrace("gemm_compare"));
        QCOMPARE(memory::snapshotBesideProblem(snapshot, false, own->firstTime(), own->lastTime(), own->meta.baseTimeNs), std::string());
        const std::string apart = memory::snapshotBesideProblem(snapshot, true, other->firstTime(), other->lastTime(),
                                                                other->meta.baseTimeNs);
        QVERIFY2(apart.find("another run") != std::string::npos, apart.c_str());
        QVERIFY2(apart.find(snapshot.path) == 0, apart.c_str());
        // The same span shifted past the history's end, and before its start.
        const int64_t span = own->lastTime() - own->firstTime();
        const auto shifted = [&](int64_t by) {
            return memory::snapshotBesideProblem(snapshot, true, own->firstTime() + by, own->lastTime() + by, own->meta.baseTimeNs);
        };
        QVERIFY(shifted(2 * span).find("before the trace starts") != std::string::npos);
        QVERIFY(shifted(-2 * span).find("after the trace ends") != std::string::npos);
        // No times at all: its name decides.
        memory::AllocatorSnapshot untimed = snapshot;
        for (auto& entries : untimed.deviceTraces)
            for (memory::TraceEntry& e : entries)
                e.timeUs = memory::kNoTimeUs;
        for (memory::ExternalAnnotation& a : untimed.externalAnnotations)
            a.timeUs = memory::kNoTimeUs;
        QVERIFY(memory::snapshotBesideProblem(untimed, true, other->firstTime(), other->lastTime(), other->meta.baseTimeNs).empty());
        QVERIFY(memory::snapshotBesideProblem(untimed, false, own->firstTime(), own->lastTime(), own->meta.baseTimeNs).find("no times")
                != std::string::npos);
    }

    void memoryChurn()
    {
        const std::string path = testutil::workloadTrace("memory_churn");
        const auto t = trace::loadTrace(path);
        const auto a = memory::analyzeMemory(*t);
        const RawTrace raw = readRaw(path);
        checkAgainstRaw(*t, a, raw);

        // The documented facts (trace-format.md §11.1), which the raw check above also derives.
        QCOMPARE(a.devices.size(), size_t(1));
        const memory::DeviceMemory& d = a.devices[0];
        QCOMPARE(d.name, std::string("cuda:0"));
        QCOMPARE(d.samples.size(), size_t(1210));
        QCOMPARE(d.allocs, uint64_t(610));
        QCOMPARE(d.frees, uint64_t(600));
        QCOMPARE(d.peakAllocated, int64_t(905969664));
        QCOMPARE(d.peakReserved, int64_t(2151677952));
        QVERIFY(a.ooms.empty());

        // 10 x 64 MiB still live at the end: the workload's expected growth.
        const io::Json meta = io::readSmallJsonFile(testutil::dataPath("h200/memory_churn/meta.json"));
        int64_t live = 0;
        int liveBlocks = 0;
        for (const auto& b : a.blocks)
            if (b.liveAtEnd) {
                live += b.bytes;
                ++liveBlocks;
                QCOMPARE(b.bytes, 64 * MiB);
                QCOMPARE(opName(*t, b.allocOp), rawOpAt(raw, "449/449", b.allocTime));
            }
        QCOMPARE(liveBlocks, 10);
        QCOMPARE(live, meta["expected_growth_bytes"].get<int64_t>());

        // Steps: the alloc_round_N regions, allocated at each end from the raw records.
        QCOMPARE(a.stepSource, analysis::StepSource::RepeatedRegion);
        QCOMPARE(a.steps.size(), size_t(30));
        for (size_t s = 0; s < a.steps.size(); ++s) {
            QCOMPARE(std::string(t->strings.view(a.steps[s].name)), "alloc_round_" + std::to_string(s));
            int64_t atEnd = kNoId;
            for (const RawRecord& r : raw.records)
                if (r.time <= a.steps[s].end)
                    atEnd = r.allocated;
            QCOMPARE(a.steps[s].allocatedAtEnd[0], atEnd);
        }
        // Every third round keeps a 64 MiB tensor: growth in rounds 3, 6, ..., 27 and never given back.
        QCOMPARE(a.leaks.size(), size_t(1));
        const memory::SuspectedLeak* leak = a.worstLeak();
        QVERIFY(leak);
        QCOMPARE(leak->device, 0u);
        QCOMPARE(leak->firstStep, 3u);
        QCOMPARE(leak->lastStep, 27u);
        QCOMPARE(leak->steps, 25u);
        QCOMPARE(leak->growingSteps, 9u);
        QCOMPARE(leak->growthBytes, a.steps[27].allocatedAtEnd[0] - a.steps[2].allocatedAtEnd[0]);
        QCOMPARE(leak->growthBytes, 9 * 64 * MiB);
        QCOMPARE(leak->growthBytesPerStep, leak->growthBytes / 25);

        // A click on the graph at the peak selects the peak's op.
        QCOMPARE(memory::memoryOpAt(*t, a, 0, d.peakAllocatedTime), d.peakOp);

        // The top allocator is aten::empty, which runs once per allocation of the workload's loop.
        QVERIFY(!a.ops.empty());
        QCOMPARE(std::string(t->strings.view(a.ops[0].name)), std::string("aten::empty"));
        QCOMPARE(a.ops[0].calls, uint64_t(testutil::countNamed(*t, "aten::empty")));
    }

    void trainScheduled()
    {
        const std::string path = testutil::workloadTrace("train_scheduled");
        const auto t = trace::loadTrace(path);
        const auto a = memory::analyzeMemory(*t);
        const RawTrace raw = readRaw(path);
        checkAgainstRaw(*t, a, raw);

        QCOMPARE(a.devices.size(), size_t(2));
        QCOMPARE(a.devices[0].name, std::string("cuda:0")); // accelerators first
        QCOMPARE(a.devices[1].name, std::string("cpu"));
        QCOMPARE(a.devices[0].samples.size(), size_t(828 + 720));
        QCOMPARE(a.devices[1].samples.size(), size_t(18));
        QCOMPARE(a.primaryDevice(), 0u);
        // CUDA records on two threads: the peak op is looked up on the peak record's own thread.
        std::vector<trace::TrackId> tracks;
        for (const auto& s : a.devices[0].samples)
            if (std::find(tracks.begin(), tracks.end(), t->memory[s.record].track) == tracks.end())
                tracks.push_back(t->memory[s.record].track);
        QCOMPARE(tracks.size(), size_t(2));

        QCOMPARE(a.stepSource, analysis::StepSource::ProfilerStep);
        QCOMPARE(a.steps.size(), size_t(3));
        for (size_t s = 0; s < 3; ++s)
            QCOMPARE(std::string(t->strings.view(a.steps[s].name)), "ProfilerStep#" + std::to_string(s + 2));
        // A training loop gives its memory back: no leak.
        QVERIFY(a.leaks.empty());
        QVERIFY(!a.worstLeak());
    }

    void leakRule()
    {
        using memory::findSuspectedLeak;
        QVERIFY(!findSuspectedLeak({}));
        QVERIFY(!findSuspectedLeak(mib({100})));
        QVERIFY(!findSuspectedLeak(mib({100, 100, 100, 100, 100})));
        const auto grows = findSuspectedLeak(mib({100, 200, 300, 400}));
        QVERIFY(grows);
        QCOMPARE(grows->firstStep, 1u);
        QCOMPARE(grows->lastStep, 3u);
        QCOMPARE(grows->steps, 3u);
        QCOMPARE(grows->growthBytes, 300 * MiB);
        QCOMPARE(grows->growthBytesPerStep, 100 * MiB);
        QVERIFY(!findSuspectedLeak(mib({100, 200, 300})));                      // two growing steps: warm-up
        QVERIFY(!findSuspectedLeak(mib({100, 200, 300, 400, 100})));            // all given back
        QVERIFY(!findSuspectedLeak(mib({100, 200, 300, 400, 150})));            // given back below the first growth
        QVERIFY(findSuspectedLeak(mib({100, 200, 300, 400, 250})));             // partly given back: the first growth stays
        QVERIFY(!findSuspectedLeak(mib({100, 300, 100, 300, 100, 300})));       // a sawtooth training loop
        QVERIFY(!findSuspectedLeak(mib({100, 100.5, 101, 101.5, 102, 102.5}))); // below the noise
        // Growth with flat steps between, as memory_churn: one window.
        const auto stairs = findSuspectedLeak(mib({10, 10, 20, 20, 30, 30, 40, 40}));
        QVERIFY(stairs);
        QCOMPARE(stairs->firstStep, 2u);
        QCOMPARE(stairs->lastStep, 6u);
        QCOMPARE(stairs->growingSteps, 3u);
        QCOMPARE(stairs->growthBytes, 30 * MiB);
        QCOMPARE(stairs->growthBytesPerStep, 6 * MiB);
        // Two windows split by a drop: the one that grew most.
        const auto two = findSuspectedLeak(mib({10, 20, 30, 40, 15, 115, 215, 315}));
        QVERIFY(two);
        QCOMPARE(two->firstStep, 5u);
        QCOMPARE(two->growthBytes, 300 * MiB);
    }

    void namesAndFamilies()
    {
        QCOMPARE(memory::memoryDeviceName(1, 0), std::string("cuda:0"));
        QCOMPARE(memory::memoryDeviceName(1, 3), std::string("cuda:3"));
        QCOMPARE(memory::memoryDeviceName(0, -1), std::string("cpu"));
        QCOMPARE(memory::memoryDeviceName(0, 0), std::string("cpu"));
        QCOMPARE(memory::memoryDeviceName(13, 0), std::string("mps:0"));
        QCOMPARE(memory::memoryDeviceName(12, 1), std::string("xpu:1"));
        QCOMPARE(memory::memoryDeviceName(6, 0), std::string("hip:0"));
        QCOMPARE(memory::memoryDeviceName(99, 2), std::string("device99:2"));
        QCOMPARE(analysis::stepFamily("step_12"), std::string_view("step_"));
        QCOMPARE(analysis::stepFamily("alloc_round_3"), std::string_view("alloc_round_"));
        QCOMPARE(analysis::stepFamily("forward"), std::string_view("forward"));
        QCOMPARE(analysis::stepFamily("42"), std::string_view("42"));
    }

    void outOfMemoryPairingAndOldFormat()
    {
        // On cuda:0: a block freed before the trace's first allocation (allocated before the trace), an
        // address reused, an allocation whose free was lost (its address allocated again), one live at the
        // end, and an OOM inside "big_op" that must not count. On cpu (1.8 style): no totals, no addresses.
        // Two top-level regions step_0 and step_1 are the steps.
        const auto t = loadText(R"({"traceEvents": [
            {"ph": "X", "cat": "cpu_op", "name": "inner_op", "pid": 1, "tid": 1, "ts": 0, "dur": 20},
            {"ph": "X", "cat": "cpu_op", "name": "big_op", "pid": 1, "tid": 1, "ts": 40, "dur": 10},
            {"ph": "X", "cat": "user_annotation", "name": "step_0", "pid": 1, "tid": 1, "ts": 0, "dur": 30},
            {"ph": "X", "cat": "user_annotation", "name": "step_1", "pid": 1, "tid": 1, "ts": 30, "dur": 30},
            {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 1, "args": {"Addr": 7, "Bytes": -16, "Total Allocated": 0, "Total Reserved": 64, "Device Type": 1, "Device Id": 0}},
            {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 2, "args": {"Addr": 8, "Bytes": 32, "Total Allocated": 32, "Total Reserved": 64, "Device Type": 1, "Device Id": 0}},
            {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 3, "args": {"Addr": 8, "Bytes": -32, "Total Allocated": 0, "Total Reserved": 64, "Device Type": 1, "Device Id": 0}},
            {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 4, "args": {"Addr": 8, "Bytes": 48, "Total Allocated": 48, "Total Reserved": 64, "Device Type": 1, "Device Id": 0}},
            {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 5, "args": {"Addr": 9, "Bytes": 8, "Total Allocated": 56, "Total Reserved": 64, "Device Type": 1, "Device Id": 0}},
            {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 6, "args": {"Addr": 9, "Bytes": 8, "Total Allocated": 64, "Total Reserved": 64, "Device Type": 1, "Device Id": 0}},
            {"ph": "i", "s": "t", "name": "[OutOfMemory]", "pid": 1, "tid": 1, "ts": 45, "args": {"Bytes": 1000000, "Total Allocated": 64, "Total Reserved": 64, "Device Type": 1, "Device Id": 0}},
            {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 10, "args": {"Bytes": 100, "Device Type": 0, "Device Id": -1}},
            {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 20, "args": {"Bytes": -30, "Device Type": 0, "Device Id": -1}}]})");
        const auto a = memory::analyzeMemory(*t);
        QCOMPARE(a.devices.size(), size_t(2));
        const memory::DeviceMemory& cuda = a.devices[0];
        QCOMPARE(cuda.name, std::string("cuda:0"));
        QCOMPARE(cuda.samples.size(), size_t(6)); // the OOM is no sample
        QCOMPARE(cuda.allocs, uint64_t(4));
        QCOMPARE(cuda.frees, uint64_t(2));
        QCOMPARE(cuda.allocBytes, int64_t(32 + 48 + 8 + 8));
        QCOMPARE(cuda.peakAllocated, int64_t(64));
        QCOMPARE(cuda.peakAllocatedTime, int64_t(6000));
        QCOMPARE(opName(*t, cuda.peakOp), std::string("inner_op"));
        QVERIFY(!cuda.allocatedFromRunningSum);

        QCOMPARE(a.ooms.size(), size_t(1));
        QCOMPARE(a.ooms[0].requestedBytes, int64_t(1000000));
        QCOMPARE(a.ooms[0].allocated, int64_t(64));
        QCOMPARE(a.ooms[0].reserved, int64_t(64));
        QCOMPARE(a.ooms[0].time, int64_t(45000));
        QCOMPARE(opName(*t, a.ooms[0].op), std::string("big_op"));
        for (const auto& op : a.ops)
            QVERIFY(op.name == kNoIndex || t->strings.view(op.name) != "big_op");

        // Blocks in time order: the free of an earlier allocation, 8 freed, 8 again (live), 9 (its free
        // lost), 9 again (live).
        QVERIFY(a.hasAddresses);
        QCOMPARE(a.blocks.size(), size_t(5));
        QCOMPARE(a.blocks[0].allocRecord, kNoIndex);
        QCOMPARE(a.blocks[0].bytes, int64_t(16));
        QCOMPARE(a.blocks[1].bytes, int64_t(32));
        QCOMPARE(a.blocks[1].lifetime(), int64_t(1000));
        QVERIFY(!a.blocks[1].liveAtEnd);
        QCOMPARE(a.blocks[2].bytes, int64_t(48));
        QVERIFY(a.blocks[2].liveAtEnd);
        QCOMPARE(a.blocks[3].address, int64_t(9));
        QVERIFY(!a.blocks[3].liveAtEnd);
        QCOMPARE(a.blocks[3].freeRecord, kNoIndex);
        QVERIFY(a.blocks[4].liveAtEnd);
        // Live at the peak (the second 8 B allocation): 48 B and that 8 B; not the 32 B freed before, nor the
        // 8 B whose address was allocated again (so freed by then).
        QCOMPARE(std::string(t->strings.view(a.ops[0].name)), std::string("inner_op"));
        QCOMPARE(a.ops[0].allocBytes, int64_t(32 + 48 + 8 + 8 + 100));
        QCOMPARE(a.ops[0].liveAtPeakBytes, int64_t(48 + 8));
        QCOMPARE(a.ops.size(), size_t(2));
        QCOMPARE(std::string(t->strings.view(a.ops[1].name)), std::string("step_0")); // the CPU free at 20 us, after inner_op
        QCOMPARE(a.ops[1].frees, uint64_t(1));

        const memory::DeviceMemory& cpu = a.devices[1];
        QCOMPARE(cpu.name, std::string("cpu"));
        QVERIFY(cpu.allocatedFromRunningSum);
        QVERIFY(!cpu.hasReserved);
        QCOMPARE(cpu.peakAllocated, int64_t(100));
        QCOMPARE(cpu.finalAllocated, int64_t(70));

        QCOMPARE(a.stepSource, analysis::StepSource::RepeatedRegion);
        QCOMPARE(a.steps.size(), size_t(2));
        QCOMPARE(a.steps[0].allocatedAtEnd[0], int64_t(64));
        QCOMPARE(a.steps[0].allocatedAtEnd[1], int64_t(70));
        QVERIFY(a.leaks.empty());
    }

    void oldFormatLanes()
    {
        // PyTorch 1.8 writes the ops' tid as a string and the [memory] instants' as a number: two lanes of
        // one thread, and the records still belong to the ops.
        const auto t = loadText(R"({"traceEvents": [
            {"ph": "X", "cat": "Operator", "name": "aten::empty", "pid": 7, "tid": "7", "ts": 10, "dur": 5},
            {"ph": "X", "cat": "Operator", "name": "aten::relu", "pid": 7, "tid": "7", "ts": 20, "dur": 5},
            {"ph": "i", "s": "t", "name": "[memory]", "pid": 7, "tid": 7, "ts": 12, "args": {"Device Type": 1, "Device Id": 0, "Bytes": 512}},
            {"ph": "i", "s": "t", "name": "[memory]", "pid": 7, "tid": 7, "ts": 22, "args": {"Device Type": 1, "Device Id": 0, "Bytes": -512}}]})");
        const auto a = memory::analyzeMemory(*t);
        QCOMPARE(a.devices.size(), size_t(1));
        QVERIFY(a.devices[0].allocatedFromRunningSum);
        QCOMPARE(opName(*t, a.devices[0].peakOp), std::string("aten::empty"));
        QCOMPARE(a.ops.size(), size_t(2));
        QCOMPARE(opName(*t, memory::memoryOpAt(*t, a, 0, 23000)), std::string("aten::relu"));
        QCOMPARE(memory::memoryOpAt(*t, a, 0, 5000), kNoIndex); // before the first record
        QVERIFY(!a.hasAddresses);
        QVERIFY(a.blocks.empty());
    }

    void noMemoryRecords()
    {
        const auto t = trace::loadTrace(testutil::workloadTrace("launch_bound"));
        QVERIFY(t->memory.empty());
        QVERIFY(memory::analyzeMemory(*t).empty());
    }

    void summaryMatchesBruteForceOnRandomSeries()
    {
        std::mt19937_64 rng(11);
        for (const size_t n : {0, 1, 2, 3, 7, 64, 65, 1000, 4097}) {
            std::vector<memory::MemorySample> samples;
            int64_t time = 1000;
            int64_t allocated = 0;
            for (size_t i = 0; i < n; ++i) {
                time += int64_t(rng() % 4 == 0 ? 0 : rng() % 50); // equal times happen
                allocated = std::max<int64_t>(0, allocated + int64_t(rng() % 2001) - 1000);
                samples.push_back({time, allocated, allocated + int64_t(rng() % 500), uint32_t(i)});
            }
            const memory::MemorySeriesSummary summary(samples);
            QCOMPARE(summary.size(), n);
            const int64_t first = n ? samples.front().time : 0, last = n ? samples.back().time : 100;
            for (int trial = 0; trial < 30; ++trial) {
                const int64_t a = first - 100 + int64_t(rng() % uint64_t(last - first + 200));
                const int64_t b = first - 100 + int64_t(rng() % uint64_t(last - first + 200));
                if (a == b)
                    continue;
                const int pixels = 1 + int(rng() % 300);
                checkSummary(samples, summary, std::min(a, b), std::max(a, b), pixels);
            }
            checkSummary(samples, summary, first - 5, last + 5, 1);
            checkSummary(samples, summary, first, last + 1, 997);
            QVERIFY(summary.summarize(10, 10, 5).empty());
            QVERIFY(summary.summarize(10, 20, 0).empty());
            for (const auto& s : samples)
                QCOMPARE(samples[summary.sampleAt(s.time)].time, s.time);
        }
    }

    void summaryMatchesBruteForceOnTraces()
    {
        for (const char* workload : {"memory_churn", "train_scheduled"}) {
            const auto t = trace::loadTrace(testutil::workloadTrace(workload));
            const auto a = memory::analyzeMemory(*t);
            for (const auto& d : a.devices) {
                const memory::MemorySeriesSummary summary(d.samples);
                const int64_t t0 = t->firstTime(), t1 = t->lastTime();
                checkSummary(d.samples, summary, t0, t1, 1920);
                checkSummary(d.samples, summary, t0, t1, 7);
                // Zoomed in around the peak, down to fewer nanoseconds than pixels.
                for (const int64_t width : {int64_t(10'000'000), int64_t(100'000), int64_t(3'000), int64_t(500)})
                    checkSummary(d.samples, summary, d.peakAllocatedTime - width / 3, d.peakAllocatedTime + width, 1000);
                // Every column of the whole view holds the peak within its range, or below it.
                const auto whole = summary.summarize(t0, t1 + 1, 640);
                int64_t maxSeen = 0;
                for (const auto& px : whole)
                    maxSeen = std::max(maxSeen, px.hasValue ? px.maxAllocated : 0);
                QCOMPARE(maxSeen, d.peakAllocated);
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestMemory)
#include "tst_memory.moc"
