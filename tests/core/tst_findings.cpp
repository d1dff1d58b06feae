// SPDX-License-Identifier: MIT
// The findings engine (issue #12) on the H200 traces: each rule fires where its problem is built in, with
// numbers checked against a direct computation from the raw events, and says nothing where it is not.
#include "testutil.h"

#include "analysis/overlap.h"
#include "analysis/steps.h"
#include "findings/diagnose.h"
#include "findings/rules/ruletext.h"
#include "findings/thresholds.h"
#include "io/bytesource.h"
#include "io/smalljson.h"
#include "io/textfile.h"
#include "memory/memoryanalysis.h"
#include "roofline/classify.h"
#include "stats/bytestext.h"
#include "stats/keyaverages.h"
#include "stats/timetext.h"
#include "stats/torchtable.h"
#include "trace/traceloader.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

using namespace tilescope;
using findings::Finding;

namespace {

struct Diagnosed
{
    std::string path;
    std::unique_ptr<trace::Trace> t;
    stats::KeyAverages averages;
    analysis::OverlapReport overlap;
    memory::MemoryAnalysis memory;
    roofline::ClassifyReport classification;
    std::vector<Finding> found;

    const Finding* find(std::string_view id) const
    {
        for (const Finding& f : found)
            if (f.id == id)
                return &f;
        return nullptr;
    }
};

std::unique_ptr<Diagnosed> diagnoseTrace(std::unique_ptr<trace::Trace> t, std::string path)
{
    auto d = std::make_unique<Diagnosed>();
    d->path = std::move(path);
    d->t = std::move(t);
    d->averages = stats::computeKeyAverages(*d->t);
    d->overlap = analysis::computeOverlap(*d->t);
    d->memory = memory::analyzeMemory(*d->t);
    d->classification = roofline::classify(*d->t, {});
    d->found = findings::diagnose(*d->t, {&d->averages, &d->overlap, &d->memory, &d->classification, nullptr, std::nullopt});
    return d;
}

// Loaded as --partial loads: the partial_trace fixture is cut on purpose; every other file loads whole.
std::unique_ptr<Diagnosed> diagnoseFile(const std::string& path)
{
    trace::LoadOptions options;
    options.partial = true;
    auto d = diagnoseTrace(trace::loadTrace(path, options), path);
    if (d->t->stats.partial != path.ends_with("partial_trace.json.gz"))
        throw std::runtime_error(path + ": loaded in part or whole unexpectedly");
    return d;
}

// The findings of a time range as the app and `diagnose --window` compute them: averages and overlap for the
// range, the whole trace's memory analysis and classification.
std::vector<Finding> diagnoseWindow(const Diagnosed& d, analysis::Interval window)
{
    stats::KeyAveragesOptions options;
    options.window = std::pair{window.start, window.end};
    const stats::KeyAverages averages = stats::computeKeyAverages(*d.t, options);
    const analysis::OverlapReport overlap = analysis::computeOverlap(*d.t, window);
    findings::DiagnoseInputs in{&averages, &overlap, &d.memory, &d.classification, nullptr, window};
    return findings::diagnose(*d.t, in);
}

const Finding* findIn(const std::vector<Finding>& list, std::string_view id)
{
    for (const Finding& f : list)
        if (f.id == id)
            return &f;
    return nullptr;
}

std::unique_ptr<Diagnosed> diagnoseText(const std::string& text)
{
    auto source = io::memorySource(text, "synthetic.json");
    return diagnoseTrace(trace::loadTrace(*source), "synthetic.json");
}

// tests/data/findings: recorded on the H200 by tools/gpu/prove_findings.sh, one per id with its problem built
// in, and a clean warm GPU-bound loop ("" here).
const std::vector<std::pair<std::string, std::string>>& recordedFixtures()
{
    static const std::vector<std::pair<std::string, std::string>> list{
        {"launch_bound", "launch-bound"},
        {"gpu_idle", "gpu-idle"},
        {"sync_stall", "sync-stall"},
        {"pageable_memcpy", "pageable-memcpy"},
        {"warmup_in_window", "warmup-in-window"},
        {"dominant_kernel", "dominant-kernel"},
        {"tiny_kernels", "tiny-kernels"},
        {"cuda_graph", "cuda-graph"},
        {"memory_growth", "memory-growth"},
        {"out_of_memory", "out-of-memory"},
        {"partial_trace", "partial-trace"},
        {"clean", ""},
    };
    return list;
}

const std::vector<std::string>& fixtures()
{
    static const std::vector<std::string> list = [] {
        std::vector<std::string> l;
        for (const char* w : {"launch_bound", "jit_cold", "gemm_compare", "streams_overlap", "memory_churn", "train_scheduled"})
            l.push_back(testutil::workloadTrace(w));
        l.push_back(testutil::dataPath("memory/h200_session/trace.pt.trace.json.gz"));
        for (const auto& [file, id] : recordedFixtures())
            if (file != "partial_trace") // cut on purpose: the raw cross-checks read whole JSON
                l.push_back(testutil::dataPath("findings/" + file + ".json.gz"));
        return l;
    }();
    return list;
}

const std::string& sessionTrace()
{
    static const std::string path = testutil::dataPath("memory/h200_session/trace.pt.trace.json.gz");
    return path;
}

// The raw traceEvents of a fixture, as written: a whole-document parse, independent of the streaming loader.
io::Json rawEvents(const std::string& path)
{
    auto source = io::openTraceFile(path);
    std::string text;
    char buffer[1 << 16];
    while (const size_t n = source->read(buffer, sizeof buffer))
        text.append(buffer, n);
    return io::Json::parse(text).at("traceEvents");
}

int64_t durNs(const io::Json& e) { return std::llround(io::jsonDouble(io::jsonMember(e, "dur")).value_or(0) * 1000.0); }
// The category, 1.8-era names (resnet50) as the modern ones (trace-format.md §10).
std::string cat(const io::Json& e)
{
    static const std::map<std::string, std::string> legacy{
        {"Operator", "cpu_op"}, {"Runtime", "cuda_runtime"}, {"Kernel", "kernel"}, {"Memcpy", "gpu_memcpy"}, {"Memset", "gpu_memset"}};
    const std::string c = io::jsonText(e, "cat");
    const auto it = legacy.find(c);
    return it == legacy.end() ? c : it->second;
}
std::string name(const io::Json& e) { return io::jsonText(e, "name"); }
const io::Json* arg(const io::Json& e, const char* key)
{
    const io::Json* args = io::jsonMember(e, "args");
    return args ? io::jsonMember(*args, key) : nullptr;
}

bool evidenceHas(const Finding& f, const std::string& text)
{
    for (const std::string& e : f.evidence)
        if (e.find(text) != std::string::npos)
            return true;
    return false;
}

QByteArray describe(const Finding& f)
{
    std::string out = f.id + ":";
    for (const std::string& e : f.evidence)
        out += " | " + e;
    return QByteArray::fromStdString(out);
}

// A small Kineto trace: top-level step regions on the main thread, a cudaStreamSynchronize in some.
struct SyntheticStep
{
    int durUs;
    bool sync;
};
std::string syntheticTrace(const std::vector<SyntheticStep>& steps)
{
    std::string events;
    int ts = 1000;
    int id = 1;
    for (size_t s = 0; s < steps.size(); ++s) {
        events += R"({"ph":"X","cat":"user_annotation","name":"step_)" + std::to_string(s) + R"(","pid":7,"tid":7,"ts":)"
            + std::to_string(ts) + R"(,"dur":)" + std::to_string(steps[s].durUs) + R"(,"args":{"External id":)" + std::to_string(id++)
            + "}},";
        if (steps[s].sync)
            events += R"({"ph":"X","cat":"cuda_runtime","name":"cudaStreamSynchronize","pid":7,"tid":7,"ts":)" + std::to_string(ts + 10)
                + R"(,"dur":100,"args":{"correlation":)" + std::to_string(id++) + "}},";
        ts += steps[s].durUs + 50;
    }
    events.pop_back();
    return R"({"schemaVersion":1,"traceEvents":[)" + events + "]}";
}

// Two graph launches replaying 3 kernels each, beside two single-kernel launches (moc misreads raw strings
// inside a class, so this lives out here).
std::string graphTrace()
{
    std::string events;
    const auto slice = [&](const char* category, const std::string& n, int tid, int ts, int dur, int correlation) {
        events += R"({"ph":"X","cat":")" + std::string(category) + R"(","name":")" + n + R"(","pid":)" + (tid == 7 ? "0" : "5")
            + R"(,"tid":)" + std::to_string(tid) + R"(,"ts":)" + std::to_string(ts) + R"(,"dur":)" + std::to_string(dur)
            + ",\"args\":{\"correlation\":" + std::to_string(correlation) + ",\"device\":0,\"stream\":7}},";
    };
    slice("cuda_runtime", "cudaGraphLaunch", 5, 100, 10, 1);
    for (int k = 0; k < 3; ++k)
        slice("kernel", "graph_kernel", 7, 120 + 10 * k, 5, 1);
    slice("cuda_runtime", "cudaGraphLaunch", 5, 200, 10, 2);
    for (int k = 0; k < 3; ++k)
        slice("kernel", "graph_kernel", 7, 220 + 10 * k, 5, 2);
    slice("cuda_runtime", "cudaLaunchKernel", 5, 300, 8, 3);
    slice("kernel", "single_kernel", 7, 320, 5, 3);
    slice("cuda_runtime", "cudaLaunchKernel", 5, 400, 8, 4);
    slice("kernel", "single_kernel", 7, 420, 5, 4);
    events.pop_back();
    return R"({"schemaVersion":1,"traceEvents":[)" + events + "]}";
}

} // namespace

class TestFindings : public QObject
{
    Q_OBJECT
private slots:
    void everyFindingIsComplete()
    {
        for (const std::string& path : fixtures()) {
            const auto d = diagnoseFile(path);
            for (const Finding& f : d->found) {
                QVERIFY2(!f.title.empty() && !f.evidence.empty() && !f.columns.empty() && !f.nextStep.empty(), describe(f));
                QVERIFY2(!f.where.empty(), describe(f));
                for (size_t k = 0; k < f.where.size(); ++k) {
                    const auto& w = f.where[k];
                    QVERIFY(w.start <= w.end);
                    // The ranges of one kind (after a finding's leading summary range) come in time order.
                    if (k >= 2 && f.where[k - 1].event != trace::kNoIndex && w.event != trace::kNoIndex
                        && d->t->events[f.where[k - 1].event].name == d->t->events[w.event].name)
                        QVERIFY2(f.where[k - 1].start <= w.start, describe(f));
                    QVERIFY(w.event == trace::kNoIndex || w.event < d->t->events.size());
                }
            }
        }
    }

    // launch-bound against the launch calls and their kernels matched by correlation in the raw events.
    void launchBound()
    {
        for (const std::string& path : fixtures()) {
            const auto d = diagnoseFile(path);
            std::map<int64_t, int64_t> kernelNs;
            const io::Json events = rawEvents(path);
            for (const auto& e : events)
                if (cat(e) == "kernel")
                    if (const auto c = io::jsonInteger(arg(e, "correlation")))
                        kernelNs[*c] += durNs(e);
            uint64_t count = 0, costly = 0;
            int64_t cpuNs = 0, gpuNs = 0;
            for (const auto& e : events) {
                if (cat(e) != "cuda_runtime" && cat(e) != "cuda_driver")
                    continue;
                const auto c = io::jsonInteger(arg(e, "correlation"));
                if (!c || !kernelNs.contains(*c))
                    continue;
                ++count;
                cpuNs += durNs(e);
                gpuNs += kernelNs[*c];
                costly += static_cast<double>(durNs(e)) >= 0.8 * static_cast<double>(kernelNs[*c]);
            }
            const bool expected = count >= 100 && costly * 2 >= count;
            const Finding* f = d->find("launch-bound");
            QVERIFY2(bool(f) == expected, path.c_str());
            if (!f)
                continue;
            QVERIFY2(evidenceHas(*f, stats::formatCount(costly) + " of " + stats::formatCount(count) + " kernel launches"), describe(*f));
            QVERIFY2(evidenceHas(*f, stats::formatDuration(cpuNs) + " of CPU time for " + stats::formatDuration(gpuNs)), describe(*f));
            const auto& o = d->overlap;
            const bool gpuIdles = static_cast<double>(o.gpuIdleWhileCpuBusyNs)
                >= findings::thresholds::kGpuIdleMinShare * static_cast<double>(o.window.end - o.window.start);
            QCOMPARE(f->strength,
                     cpuNs >= gpuNs ? findings::Strength::Strong
                         : gpuIdles ? findings::Strength::Weak
                                    : findings::Strength::Provisional);
        }
        QVERIFY(diagnoseFile(testutil::workloadTrace("launch_bound"))->find("launch-bound"));
        QVERIFY(!diagnoseFile(testutil::workloadTrace("gemm_compare"))->find("launch-bound"));
    }

    // gpu-idle: strong exactly when GPU idle while the CPU works is half the window or more; else, when the GPU
    // is busy less than half the window, weak if the CPU works in at least half of the GPU's idle time and
    // provisional if not. The device's busy time in the evidence is the union of its activities computed here.
    void gpuIdle()
    {
        std::set<findings::Strength> seen;
        for (const std::string& path : fixtures()) {
            const auto d = diagnoseFile(path);
            const auto& o = d->overlap;
            const int64_t window = o.window.end - o.window.start;
            const bool applies = o.activeDevices() > 0 && window >= findings::thresholds::kGpuIdleMinWindowNs;
            const bool waitsOnCpu = static_cast<double>(o.gpuIdleWhileCpuBusyNs)
                >= findings::thresholds::kGpuIdleMinShare * static_cast<double>(window);
            // GPU idle = the window less the union of every device's activity, from the sets themselves.
            int64_t gpuBusyNs = 0;
            const analysis::IntervalSet gpuBusy = o.gpuBusy.clippedTo(o.window);
            for (const auto& i : gpuBusy.intervals())
                gpuBusyNs += i.end - i.start;
            const int64_t gpuIdleNs = window - gpuBusyNs;
            QCOMPARE(gpuIdleNs, o.gpuIdleWhileCpuBusyNs + o.bothIdleNs);
            const bool underused = static_cast<double>(gpuBusyNs) < findings::thresholds::kGpuLowUtilization * static_cast<double>(window);
            const Finding* f = d->find("gpu-idle");
            QVERIFY2(bool(f) == (applies && (waitsOnCpu || underused)), path.c_str());
            if (!f)
                continue;
            const findings::Strength strength = waitsOnCpu ? findings::Strength::Strong
                : o.gpuIdleWhileCpuBusyNs * 2 >= gpuIdleNs ? findings::Strength::Weak
                                                           : findings::Strength::Provisional;
            QCOMPARE(f->strength, strength);
            seen.insert(strength);
            QCOMPARE(f->impactNs, strength == findings::Strength::Provisional ? o.bothIdleNs : o.gpuIdleWhileCpuBusyNs);
            if (strength != findings::Strength::Strong)
                QVERIFY2(evidenceHas(*f, "The GPU was idle " + stats::formatDuration(gpuIdleNs) + " of the "), describe(*f));
            // The longest gap's length, and the CPU work named in it lies in it (an op or CUDA call of any thread).
            QVERIFY(f->where.size() >= 2);
            const findings::Where gap = f->where[1];
            QVERIFY2(evidenceHas(*f, "The longest GPU gap (the second range) lasted " + stats::formatDuration(gap.end - gap.start) + "; "),
                     describe(*f));
            if (f->where.size() > 2) {
                const trace::Event& e = d->t->events[f->where[2].event];
                QVERIFY(e.kind == trace::EventKind::CpuOp || trace::isLaunchApi(e.kind));
                QVERIFY(e.start < gap.end && e.end() > gap.start);
                const bool most = 2 * (std::min(e.end(), gap.end) - std::max(e.start, gap.start)) >= gap.end - gap.start;
                QVERIFY2(evidenceHas(*f, (most ? "the CPU was in " : "the longest there was ") + std::string(d->t->name(e))), describe(*f));
            }
            std::vector<analysis::Interval> gpu;
            for (const auto& e : d->t->events)
                if (trace::isGpuActivity(e.kind))
                    gpu.push_back({std::max(e.start, o.window.start), std::min(e.end(), o.window.end)});
            std::sort(gpu.begin(), gpu.end(), [](auto a, auto b) { return a.start < b.start; });
            int64_t busy = 0, reach = o.window.start;
            for (const auto& i : gpu) {
                const int64_t from = std::max(i.start, reach);
                if (i.end > from) {
                    busy += i.end - from;
                    reach = i.end;
                }
            }
            QVERIFY2(evidenceHas(*f, "busy " + stats::formatDuration(busy) + " ("), describe(*f));
            QVERIFY2(evidenceHas(*f, findings::rules::percentText(findings::rules::ratio(o.gpuIdleWhileCpuBusyNs, window))), describe(*f));
        }
        QCOMPARE(seen.size(), size_t(3)); // the fixtures hold every tier
        QVERIFY(diagnoseFile(testutil::workloadTrace("launch_bound"))->find("gpu-idle"));
        // train_scheduled: the GPU busy 20% of the window, the CPU working in 49% of it (under half) and
        // neither in 31%.
        const auto scheduled = diagnoseFile(testutil::workloadTrace("train_scheduled"));
        const Finding* weak = scheduled->find("gpu-idle");
        QVERIFY(weak);
        QCOMPARE(weak->strength, findings::Strength::Weak);
        // streams_overlap: its longest gap is one of three ~41 ms pinned allocations of a .to() (raw events).
        const auto streams = diagnoseFile(testutil::workloadTrace("streams_overlap"));
        QVERIFY2(
            evidenceHas(*streams->find("gpu-idle"), "the CPU was in cudaHostAlloc (in aten::empty_strided, called from aten::to) for "),
            describe(*streams->find("gpu-idle")));
        // gemm_compare is a warm GPU-bound loop: the GPU is busy most of the window.
        const auto gemm = diagnoseFile(testutil::workloadTrace("gemm_compare"));
        QVERIFY(gemm->overlap.devices.front().utilization > 0.5);
        QVERIFY(!gemm->find("gpu-idle"));
    }

    // dominant-kernel against per-name sums of the GPU activities' dur.
    void dominantKernel()
    {
        // launch_bound: two 0.86 us kernels at 50.1% and 49.9%: a near tie, and advice about launches, not occupancy.
        {
            const auto d = diagnoseFile(testutil::workloadTrace("launch_bound"));
            const Finding* f = d->find("dominant-kernel");
            QVERIFY(f);
            QCOMPARE(f->strength, findings::Strength::Weak);
            QVERIFY2(evidenceHas(*f, "nearly as much, so the two share the work"), describe(*f));
            QVERIFY2(f->nextStep.find("launch it fewer times") != std::string::npos, describe(*f));
        }
        bool firedSomewhere = false;
        for (const std::string& path : fixtures()) {
            const auto d = diagnoseFile(path);
            std::map<std::string, std::pair<int64_t, uint64_t>> byName;
            int64_t total = 0;
            for (const auto& e : d->t->events)
                if (trace::isGpuActivity(e.kind)) {
                    auto& [ns, calls] = byName[std::string(d->t->name(e))];
                    ns += e.duration;
                    ++calls;
                    total += e.duration;
                }
            std::string top;
            for (const auto& [n, v] : byName)
                if (top.empty() || v.first > byName[top].first)
                    top = n;
            const double share = findings::rules::ratio(top.empty() ? 0 : byName[top].first, total);
            const Finding* f = d->find("dominant-kernel");
            QVERIFY2(bool(f) == (share >= findings::thresholds::kDominantMinShare), path.c_str());
            if (!f)
                continue;
            firedSomewhere = true;
            QVERIFY2(evidenceHas(*f, top + " ran " + stats::formatDuration(byName[top].first) + " of " + stats::formatDuration(total)),
                     describe(*f));
            QVERIFY2(evidenceHas(*f,
                                 "(" + findings::rules::percentText(share) + ") in "
                                     + findings::rules::countText(byName[top].second, "call", "calls")),
                     describe(*f));
            const auto it = std::find_if(d->classification.kernels.begin(), d->classification.kernels.end(),
                                         [&](const auto& c) { return c.name == top; });
            QVERIFY(it != d->classification.kernels.end());
            QVERIFY2(evidenceHas(*f, "Roofline: " + std::string(roofline::className(it->cls)) + " (" + it->strength + ")"), describe(*f));
            QCOMPARE(std::string(d->t->name(d->t->events[f->where.front().event])), top);
            // Strong with a clear lead over the next name, weak on a near tie.
            int64_t next = 0;
            for (const auto& [n, v] : byName)
                if (n != top)
                    next = std::max(next, v.first);
            QCOMPARE(f->strength,
                     double(byName[top].first) >= findings::thresholds::kDominantLead * double(next) ? findings::Strength::Strong
                                                                                                     : findings::Strength::Weak);
            // torch's key_averages row of the kernel carries the same GPU time.
            QVERIFY2(evidenceHas(*f,
                                 "key_averages: self_cuda_time_total "
                                     + stats::formatTorchTime(static_cast<double>(byName[top].first) / 1000.0) + " over "
                                     + findings::rules::countText(byName[top].second, "call", "calls")),
                     describe(*f));
        }
        QVERIFY(firedSomewhere);
    }

    // warmup-in-window on jit_cold: iter_0 against the median of iter_1..9, from the annotations' dur, with the
    // Lazy Function Loading inside iter_0.
    void warmupOnJitCold()
    {
        const auto d = diagnoseFile(testutil::workloadTrace("jit_cold"));
        std::map<int, int64_t> iterNs, iterStart;
        int64_t iter0Start = 0, iter0End = 0, lazyStart = -1, bufferStart = -1, bufferNs = 0;
        for (const auto& e : d->t->events) {
            if (d->t->name(e) == "Activity Buffer Request") {
                bufferStart = e.start;
                bufferNs = e.duration;
            }
            const std::string n(d->t->name(e));
            if (e.kind == trace::EventKind::UserAnnotation && n.starts_with("iter_")) {
                iterNs[std::stoi(n.substr(5))] = e.duration;
                iterStart[std::stoi(n.substr(5))] = e.start;
                if (n == "iter_0") {
                    iter0Start = e.start;
                    iter0End = e.end();
                }
            }
            if (n == "Lazy Function Loading")
                lazyStart = e.start;
        }
        QCOMPARE(iterNs.size(), size_t(10));
        // A step runs to the next one's start (analysis::findSteps); the last one's end is findSteps' own.
        for (int i = 0; i < 9; ++i)
            iterNs[i] = std::max(iterNs[i], iterStart[i + 1] - iterStart[i]);
        const analysis::Step last = analysis::findSteps(*d->t).back();
        QCOMPARE(last.start, iterStart[9]);
        iterNs[9] = last.end - last.start;
        // The profiler's buffer request lies in iter_0 and is not the run's time.
        QVERIFY(bufferStart >= iter0Start && bufferStart + bufferNs <= iter0End);
        iterNs[0] -= bufferNs;
        std::vector<int64_t> rest;
        for (int i = 1; i < 10; ++i)
            rest.push_back(iterNs[i]);
        std::sort(rest.begin(), rest.end());
        const int64_t median = rest[4]; // nine values: the fifth
        QVERIFY(static_cast<double>(iterNs[0]) >= findings::thresholds::kWarmupSlowdown * static_cast<double>(median));
        QVERIFY(lazyStart >= iter0Start && lazyStart < iter0End);
        const Finding* f = d->find("warmup-in-window");
        QVERIFY(f);
        QCOMPARE(f->strength, findings::Strength::Strong);
        QVERIFY2(evidenceHas(*f,
                             "The first step, iter_0, took " + stats::formatDuration(iterNs[0]) + "; the median of the other 9 steps is "
                                 + stats::formatDuration(median)),
                 describe(*f));
        QVERIFY2(evidenceHas(*f, "without the profiler's own " + stats::formatDuration(bufferNs) + " of overhead events in it"),
                 describe(*f));
        QVERIFY2(evidenceHas(*f, "1 of them in the first step"), describe(*f));
        QCOMPARE(f->where.front().start, iter0Start);
    }

    // gemm_compare is a warm GPU-bound loop. Its raw events hold no module loading and no pageable copy, and
    // its two cudaDeviceSynchronize calls lie outside every timed region: nothing to say about warm-up,
    // syncs or pageable copies. Its steps are custom_kernel regions, each running to the next one's start (over
    // its torch_ref): the first takes 4.09 ms against a median of about 230 us, but 3.1 ms of it is the
    // profiler's Activity Buffer Request; without it the step is under 1 ms slower.
    void gemmCompareIsClean()
    {
        const std::string path = testutil::workloadTrace("gemm_compare");
        std::vector<std::pair<double, double>> regions;
        std::vector<double> syncs;
        std::vector<std::pair<double, double>> customKernels; // ts, end in us
        std::vector<std::pair<double, double>> overheads;
        const io::Json events = rawEvents(path);
        for (const auto& e : events)
            if (cat(e) == "overhead")
                overheads.push_back(
                    {io::jsonDouble(io::jsonMember(e, "ts")).value_or(0), io::jsonDouble(io::jsonMember(e, "dur")).value_or(0)});
        for (const auto& e : events) {
            const std::string n = name(e);
            QVERIFY(n != "Lazy Function Loading" && n != "Runtime Triggered Module Loading" && !n.starts_with("cuModuleLoad"));
            QVERIFY(!(cat(e) == "gpu_memcpy" && n.find("Pageable") != std::string::npos));
            const double ts = io::jsonDouble(io::jsonMember(e, "ts")).value_or(0);
            const double dur = io::jsonDouble(io::jsonMember(e, "dur")).value_or(0);
            if (cat(e) == "user_annotation") {
                regions.push_back({ts, ts + dur});
                if (n == "custom_kernel")
                    customKernels.push_back({ts, ts + dur});
            }
            if (n == "cudaDeviceSynchronize" || n == "cudaStreamSynchronize")
                syncs.push_back(ts);
        }
        QCOMPARE(syncs.size(), size_t(2));
        for (const double s : syncs)
            for (const auto& r : regions)
                QVERIFY(s < r.first || s >= r.second);
        // The first step is not both 3x the others' median and 1 ms slower: the windows from the raw starts (the
        // last one's end is the rule's, checked in tst_steps), the overheads inside taken out.
        const auto d = diagnoseFile(path);
        std::sort(customKernels.begin(), customKernels.end());
        QCOMPARE(customKernels.size(), size_t(20));
        const std::vector<analysis::Step> steps = analysis::findSteps(*d->t);
        QCOMPARE(steps.size(), customKernels.size());
        std::vector<double> durs;
        for (size_t k = 0; k < customKernels.size(); ++k) {
            const double start = customKernels[k].first;
            const double end = k + 1 < customKernels.size() ? std::max(customKernels[k].second, customKernels[k + 1].first)
                                                            : double(steps.back().end - steps.back().start) / 1000.0 + start;
            double own = end - start;
            for (const auto& [ots, odur] : overheads)
                if (ots >= start && ots < end)
                    own -= std::min(ots + odur, end) - ots;
            durs.push_back(own);
        }
        // The profiler's 3.1 ms buffer request lies in the first window.
        QVERIFY(std::any_of(overheads.begin(), overheads.end(), [&](const auto& o) {
            return o.first >= customKernels[0].first && o.first < customKernels[1].first && o.second > 3000.0;
        }));
        std::vector<double> rest(durs.begin() + 1, durs.end());
        std::sort(rest.begin(), rest.end());
        QCOMPARE(rest.size() % 2, size_t(1)); // 19 others: the median is the middle one
        const double mid = rest[rest.size() / 2];
        QVERIFY(durs.front() >= findings::thresholds::kWarmupSlowdown * mid); // 3x the median, but under 1 ms slower
        QVERIFY((durs.front() - mid) * 1000.0 < static_cast<double>(findings::thresholds::kWarmupMinExtraNs));
        for (const char* id : {"gpu-idle", "sync-stall", "warmup-in-window", "pageable-memcpy", "memory-growth", "out-of-memory"})
            QVERIFY2(!d->find(id), id);
    }

    // pageable-memcpy: per copy kind of 1 MiB or more, the count, the bytes arg summed and the rate, from the raw
    // events.
    void pageableMemcpy()
    {
        bool firedSomewhere = false;
        std::vector<std::string> paths = fixtures();
        paths.push_back(testutil::dataPath("external/hta/critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz"));
        paths.push_back(testutil::dataPath("external/tb_plugin/resnet50_v100_worker0.pt.trace.json.gz"));
        for (const std::string& path : paths) {
            struct Kind
            {
                uint64_t copies = 0;
                double bytes = 0;
                int64_t ns = 0;
            };
            std::map<std::string, Kind> kinds;
            for (const auto& e : rawEvents(path))
                if (cat(e) == "gpu_memcpy" && name(e).find("Pageable") != std::string::npos) {
                    Kind& k = kinds[name(e)];
                    ++k.copies;
                    k.bytes += io::jsonDouble(arg(e, "bytes")).value_or(0);
                    k.ns += durNs(e);
                }
            std::erase_if(kinds,
                          [](const auto& k) { return k.second.bytes < static_cast<double>(findings::thresholds::kPageableMinBytes); });
            const auto d = diagnoseFile(path);
            const Finding* f = d->find("pageable-memcpy");
            QVERIFY2(bool(f) == !kinds.empty(), path.c_str());
            if (!f)
                continue;
            firedSomewhere = true;
            QCOMPARE(f->evidence.size(), kinds.size());
            for (const auto& [n, k] : kinds)
                QVERIFY2(evidenceHas(*f,
                                     n + ": " + findings::rules::countText(k.copies, "copy", "copies") + ", "
                                         + stats::formatBytes(static_cast<int64_t>(k.bytes)) + " in " + stats::formatDuration(k.ns)
                                         + " on the GPU (" + findings::rules::rateText(k.bytes, k.ns) + ")"),
                         describe(*f));
        }
        QVERIFY(firedSomewhere);                                                                     // the session's pageable HtoD copies
        QVERIFY(!diagnoseFile(testutil::workloadTrace("streams_overlap"))->find("pageable-memcpy")); // pinned copies
    }

    // out-of-memory: each [OutOfMemory] instant of the raw events, with its Bytes.
    void outOfMemory()
    {
        for (const std::string& path : fixtures()) {
            std::vector<int64_t> requests;
            for (const auto& e : rawEvents(path))
                if (name(e) == "[OutOfMemory]")
                    requests.push_back(io::jsonInteger(arg(e, "Bytes")).value_or(-1));
            const auto d = diagnoseFile(path);
            const Finding* f = d->find("out-of-memory");
            QVERIFY2(bool(f) == !requests.empty(), path.c_str());
            if (!f)
                continue;
            QCOMPARE(f->where.size(), requests.size());
            for (const int64_t bytes : requests)
                QVERIFY2(evidenceHas(*f, "A request for " + stats::formatBytes(bytes) + " on cuda:"), describe(*f));
        }
        QVERIFY(diagnoseFile(sessionTrace())->find("out-of-memory"));
    }

    // memory-growth: the growth from the step-end Total Allocated of the raw [memory] events.
    void memoryGrowth()
    {
        for (const std::string& path : fixtures()) {
            const auto d = diagnoseFile(path);
            const Finding* f = d->find("memory-growth");
            QVERIFY2(bool(f) == (d->memory.worstLeak() != nullptr), path.c_str());
            if (!f)
                continue;
            const memory::SuspectedLeak& leak = *d->memory.worstLeak();
            const memory::DeviceMemory& device = d->memory.devices[leak.device];
            // Total Allocated of the device's last [memory] record at or before a time, from the raw events.
            std::vector<std::pair<int64_t, int64_t>> totals; // ns, bytes
            for (const auto& e : rawEvents(path))
                if (name(e) == "[memory]" && io::jsonInteger(arg(e, "Device Type")) == device.deviceType
                    && io::jsonInteger(arg(e, "Device Id")) == device.deviceId)
                    totals.push_back({std::llround(io::jsonDouble(io::jsonMember(e, "ts")).value_or(0) * 1000.0),
                                      io::jsonInteger(arg(e, "Total Allocated")).value_or(0)});
            std::stable_sort(totals.begin(), totals.end(), [](auto a, auto b) { return a.first < b.first; });
            const auto at = [&](int64_t time) {
                int64_t v = 0;
                for (const auto& [ts, bytes] : totals)
                    if (ts <= time)
                        v = bytes;
                return v;
            };
            const auto& steps = d->memory.steps;
            QVERIFY(leak.firstStep > 0);
            const int64_t growth = at(steps[leak.lastStep].end) - at(steps[leak.firstStep - 1].end);
            QCOMPARE(growth, leak.growthBytes);
            QVERIFY2(evidenceHas(*f, "per step over " + stats::formatCount(leak.steps) + " steps")
                         && evidenceHas(*f,
                                        stats::formatBytes(growth) + " in all since the end of "
                                            + std::string(d->t->strings.view(steps[leak.firstStep - 1].name))),
                     describe(*f));
        }
        QVERIFY(diagnoseFile(testutil::workloadTrace("memory_churn"))->find("memory-growth"));
        const auto session = diagnoseFile(sessionTrace());
        const Finding* f = session->find("memory-growth");
        QVERIFY(f);
        QVERIFY2(evidenceHas(*f, "4.00 MiB per step"), describe(*f));
    }

    // tiny-kernels against the kernels' dur in the raw events.
    void tinyKernels()
    {
        for (const std::string& path : fixtures()) {
            uint64_t kernels = 0, tiny = 0;
            int64_t tinyNs = 0;
            for (const auto& e : rawEvents(path))
                if (cat(e) == "kernel") {
                    ++kernels;
                    if (durNs(e) < findings::thresholds::kTinyKernelNs) {
                        ++tiny;
                        tinyNs += durNs(e);
                    }
                }
            const auto d = diagnoseFile(path);
            const Finding* f = d->find("tiny-kernels");
            const bool expected = tiny >= findings::thresholds::kTinyKernelsMinCount
                && static_cast<double>(tiny) >= findings::thresholds::kTinyKernelsMinShare * static_cast<double>(kernels);
            QVERIFY2(bool(f) == expected, path.c_str());
            if (f)
                QVERIFY2(evidenceHas(*f,
                                     stats::formatCount(tiny) + " of " + stats::formatCount(kernels) + " kernels ("
                                         + findings::rules::percentText(static_cast<double>(tiny) / static_cast<double>(kernels))
                                         + ") ran shorter than 3.000us, " + stats::formatDuration(tinyNs) + " of GPU time"),
                         describe(*f));
        }
        QVERIFY(diagnoseFile(testutil::workloadTrace("launch_bound"))->find("tiny-kernels"));
        QVERIFY(!diagnoseFile(testutil::workloadTrace("gemm_compare"))->find("tiny-kernels"));
    }

    // cuda-graph: the launches and the kernels they replay (same correlation) from the raw events; the
    // thresholds on a small synthetic trace of two graph launches replaying 3 kernels each beside two single launches.
    void cudaGraph()
    {
        for (const std::string& path : fixtures()) {
            std::set<int64_t> correlations;
            uint64_t launches = 0, replayed = 0;
            int64_t launchNs = 0;
            const io::Json events = rawEvents(path);
            for (const auto& e : events)
                if (cat(e) == "cuda_runtime" && name(e).find("GraphLaunch") != std::string::npos) {
                    ++launches;
                    launchNs += durNs(e);
                    correlations.insert(io::jsonInteger(arg(e, "correlation")).value_or(-1));
                }
            for (const auto& e : events)
                if (cat(e) == "kernel" && correlations.contains(io::jsonInteger(arg(e, "correlation")).value_or(-2)))
                    ++replayed;
            const auto d = diagnoseFile(path);
            const Finding* f = d->find("cuda-graph");
            QVERIFY2(bool(f) == (launches > 0), path.c_str());
            if (f)
                QVERIFY2(evidenceHas(*f,
                                     stats::formatCount(launches) + " graph launches replayed " + stats::formatCount(replayed)
                                         + " kernels, " + stats::formatFixed(double(replayed) / double(launches), 1)
                                         + " per launch; the launch calls took " + stats::formatDuration(launchNs) + " of CPU time"),
                         describe(*f));
        }
        const auto d = diagnoseText(graphTrace());
        const Finding* f = d->find("cuda-graph");
        QVERIFY(f);
        QVERIFY2(evidenceHas(*f, "2 graph launches replayed 6 kernels, 3.0 per launch; the launch calls took 20.000us of CPU time"),
                 describe(*f));
        // 6 kernels at 8 us each one by one: 48 us against 20 us.
        QVERIFY2(
            evidenceHas(
                *f, "8.000us per launch (2 single-kernel launches), they would have cost 48.000us of CPU: the graphs save about 28.000us"),
            describe(*f));
        QCOMPARE(f->where.size(), size_t(2));
    }

    // sync-stall on the traces with ProfilerStep#N steps, from the raw events: the synchronising calls (and
    // cudaMemcpyAsync calls whose copy goes to pageable host memory, matched by correlation) starting in
    // each step. resnet50 and the NCCL trace sync in every step but wait under 1% of the steps' time: silent.
    void syncStallOnRealSteps()
    {
        const std::vector<std::string> paths{testutil::workloadTrace("train_scheduled"),
                                             testutil::dataPath("external/tb_plugin/resnet50_v100_worker0.pt.trace.json.gz"),
                                             testutil::dataPath("external/hta/nccl_parser_config_nccl_data.json.gz")};
        int silencedByWaitShare = 0;
        for (const std::string& path : paths) {
            const io::Json events = rawEvents(path);
            std::vector<std::pair<double, double>> steps; // ts, end in us
            std::set<int64_t> pageableDtoH;
            for (const auto& e : events) {
                if (name(e).starts_with("ProfilerStep#") && (cat(e) == "user_annotation" || cat(e) == "cpu_op"))
                    steps.push_back(
                        {io::jsonDouble(io::jsonMember(e, "ts")).value_or(0),
                         io::jsonDouble(io::jsonMember(e, "ts")).value_or(0) + io::jsonDouble(io::jsonMember(e, "dur")).value_or(0)});
                if (cat(e) == "gpu_memcpy" && name(e).find("DtoH") != std::string::npos && name(e).find("Pageable") != std::string::npos)
                    pageableDtoH.insert(io::jsonInteger(arg(e, "correlation")).value_or(-1));
            }
            QVERIFY2(steps.size() >= 3, path.c_str());
            std::vector<int> syncsIn(steps.size(), 0);
            int64_t waitNs = 0, stepNs = 0;
            for (const auto& st : steps)
                stepNs += std::llround((st.second - st.first) * 1000.0);
            for (const auto& e : events) {
                const std::string n = name(e);
                const bool sync = n == "cudaStreamSynchronize" || n == "cudaDeviceSynchronize" || n == "cudaEventSynchronize"
                    || n == "cudaMemcpy"
                    || (n == "cudaMemcpyAsync" && pageableDtoH.contains(io::jsonInteger(arg(e, "correlation")).value_or(-2)));
                if (!sync || (cat(e) != "cuda_runtime" && cat(e) != "cuda_driver"))
                    continue;
                const double ts = io::jsonDouble(io::jsonMember(e, "ts")).value_or(0);
                for (size_t k = 0; k < steps.size(); ++k)
                    if (ts >= steps[k].first && ts < steps[k].second) {
                        ++syncsIn[k];
                        waitNs += durNs(e);
                    }
            }
            const auto withSync = std::count_if(syncsIn.begin(), syncsIn.end(), [](int n) { return n > 0; });
            const bool everyStep = static_cast<double>(withSync)
                >= findings::thresholds::kSyncStallMinStepShare * static_cast<double>(steps.size());
            const bool costly = static_cast<double>(waitNs) >= findings::thresholds::kSyncStallMinWaitShare * static_cast<double>(stepNs);
            const auto d = diagnoseFile(path);
            QVERIFY2(bool(d->find("sync-stall")) == (everyStep && costly), path.c_str());
            silencedByWaitShare += everyStep && !costly;
        }
        QCOMPARE(silencedByWaitShare, 2); // resnet50 and the NCCL trace
    }

    // A trace loaded in part is said first, with where it stops, the kernel launches whose kernels lie past the
    // cut and its [memory] records; a whole trace never gets it.
    void partialTraceIsSaidFirst()
    {
        const auto cut = diagnoseFile(testutil::dataPath("findings/partial_trace.json.gz"));
        QVERIFY(!cut->found.empty());
        const Finding& f = cut->found.front();
        QCOMPARE(f.id, std::string("partial-trace"));
        QCOMPARE(f.strength, findings::Strength::Strong);
        QVERIFY2(evidenceHas(f, "Loading stopped at byte 62000: unexpected end of file"), describe(f));
        QVERIFY2(evidenceHas(f, "The trace's " + stats::formatCount(cut->t->memory.size()) + " [memory] records stop where the file does"),
                 describe(f));
        QVERIFY2(evidenceHas(f, stats::formatCount(cut->t->events.size() + cut->t->memory.size()) + " complete events were kept"),
                 describe(f));
        QVERIFY(cut->find("memory-growth")); // what the readable part shows, after it
        // Launches of kernels that lie past the cut, counted by correlation id among the events loaded.
        const std::string text = R"({"traceEvents":[
            {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10,"dur":50},
            {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":20,"dur":5,"args":{"correlation":1}},
            {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":30,"dur":5,"args":{"correlation":2}},
            {"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":1,"tid":1,"ts":40,"dur":5,"args":{"correlation":3}},
            {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":25,"dur":10,"args":{"correlation":1,"device":0,"stream":7}},
            {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":)";
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("cut.json")).toStdString();
        io::writeTextFile(path, text, "the test's trace");
        const auto launches = diagnoseTrace(
            [&] {
                trace::LoadOptions options;
                options.partial = true;
                return trace::loadTrace(path, options);
            }(),
            path);
        const Finding* l = launches->find("partial-trace");
        QVERIFY(l);
        QVERIFY2(evidenceHas(*l, "1 of 2 kernel launch calls have no GPU activity in the readable part"), describe(*l));
        QVERIFY(!evidenceHas(*l, "[memory]"));
        // In a window holding only the launch whose kernel was read: no launch line (the cut is still said).
        findings::DiagnoseInputs windowed;
        windowed.window = analysis::Interval{launches->t->events.front().start, launches->t->events.front().start + 15'000};
        bool saidCut = false;
        for (const Finding& w : findings::diagnose(*launches->t, windowed))
            if (w.id == "partial-trace") {
                saidCut = true;
                QVERIFY2(!evidenceHas(w, "kernel launch calls"), describe(w));
            }
        QVERIFY(saidCut);
        // Cut before any event: no time range to point at.
        io::writeTextFile(path, "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"na", "the test's trace");
        trace::LoadOptions partial;
        partial.partial = true;
        const auto empty = trace::loadTrace(path, partial);
        QVERIFY(empty->events.empty());
        const std::vector<Finding> none = findings::diagnose(*empty, {});
        QCOMPARE(none.size(), size_t(1));
        QCOMPARE(none.front().id, std::string("partial-trace"));
        QVERIFY(none.front().where.empty());
        // Whole traces: never.
        for (const std::string& whole : fixtures())
            QVERIFY2(!diagnoseFile(whole)->find("partial-trace"), whole.c_str());
    }

    // A trace without memory events, GPU activity or steps: those rules say nothing.
    void rulesThatCannotApplySayNothing()
    {
        const auto cpuOnly = diagnoseFile(testutil::dataPath("external/hta/cpu_only_rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"));
        for (const char* id : {"gpu-idle", "launch-bound", "dominant-kernel", "pageable-memcpy", "memory-growth", "out-of-memory"})
            QVERIFY2(!cpuOnly->find(id), id);
        const auto jit = diagnoseFile(testutil::workloadTrace("jit_cold"));
        QVERIFY(jit->t->memory.empty());
        QVERIFY(!jit->find("memory-growth") && !jit->find("out-of-memory"));
        // No inputs at all: only the rules that read the trace alone may speak.
        const auto t = trace::loadTrace(testutil::workloadTrace("launch_bound"));
        for (const Finding& f : findings::diagnose(*t, {}))
            QVERIFY2(f.id == "warmup-in-window" || f.id == "sync-stall" || f.id == "pageable-memcpy" || f.id == "tiny-kernels"
                         || f.id == "cuda-graph",
                     f.id.c_str());
    }

    // The thresholds, crossed on purpose: a sync in 4 of 5 steps is "every step" (80%), in 3 of 5 it is not;
    // a first step 3x the others' median and 1 ms slower is warm-up, just under 3x is not.
    void thresholdsAreCrossed()
    {
        QCOMPARE(findings::thresholds::kSyncStallMinStepShare, 0.8);
        const auto four = diagnoseText(syntheticTrace({{500, true}, {500, true}, {500, true}, {500, true}, {500, false}}));
        const Finding* f = four->find("sync-stall");
        QVERIFY(f);
        QVERIFY2(evidenceHas(*f, "4 of 5 steps call a host synchronisation: cudaStreamSynchronize x4 (400.000us)"), describe(*f));
        // The steps are 500 us regions 50 us apart: each runs to the next one's start (550 us), the last is its own.
        QVERIFY2(evidenceHas(*f, "The CPU waited 400.000us in them, 80.000us per step, 14.8% of the steps' time"), describe(*f));
        QCOMPARE(f->where.size(), size_t(4));
        QVERIFY(!diagnoseText(syntheticTrace({{500, true}, {500, true}, {500, true}, {500, false}, {500, false}}))->find("sync-stall"));
        QVERIFY(!diagnoseText(syntheticTrace({{500, true}, {500, true}}))->find("sync-stall")); // fewer than kSyncStallMinSteps
        // The waits (100 us each) at 1% of the steps' time fire; just under 1% they do not: 500 us of waits in
        // 4 x (9960 + 50) + 9960 = 50,000 us of steps.
        QCOMPARE(findings::thresholds::kSyncStallMinWaitShare, 0.01);
        QVERIFY(diagnoseText(syntheticTrace(std::vector<SyntheticStep>(5, {9960, true})))->find("sync-stall"));
        QVERIFY(!diagnoseText(syntheticTrace(std::vector<SyntheticStep>(5, {9961, true})))->find("sync-stall"));

        QCOMPARE(findings::thresholds::kWarmupSlowdown, 3.0);
        // Steps of 3100 + 50 us against 1000 + 50 (the median of 1050, 1050 and the last one's own 1000).
        const auto slow = diagnoseText(syntheticTrace({{3100, false}, {1000, false}, {1000, false}, {1000, false}}));
        const Finding* w = slow->find("warmup-in-window");
        QVERIFY(w);
        QCOMPARE(w->strength, findings::Strength::Weak); // no module loading to explain it
        QVERIFY2(evidenceHas(*w, "The first step, step_0, took 3.150ms; the median of the other 3 steps is 1.050ms (3.0x)"), describe(*w));
        QVERIFY(!diagnoseText(syntheticTrace({{3099, false}, {1000, false}, {1000, false}, {1000, false}}))->find("warmup-in-window"));
        // 3x but under 1 ms slower (1350 us against a median of 425): jitter on short steps.
        QVERIFY(!diagnoseText(syntheticTrace({{1300, false}, {400, false}, {400, false}}))->find("warmup-in-window"));
        QVERIFY(diagnoseText(syntheticTrace({{1400, false}, {400, false}, {400, false}}))->find("warmup-in-window")); // 1.025 ms slower
    }

    // Each id fires on the H200 trace recorded with its problem built in; the clean, warm, GPU-bound loop has
    // no gpu-idle, sync-stall, warmup-in-window or pageable-memcpy.
    void recordedPerId()
    {
        std::set<std::string> covered;
        for (const auto& [file, id] : recordedFixtures()) {
            const auto d = diagnoseFile(testutil::dataPath("findings/" + file + ".json.gz"));
            if (!id.empty()) {
                QVERIFY2(d->find(id), (file + ": " + id + " does not fire").c_str());
                covered.insert(id);
                continue;
            }
            for (const char* quiet : {"gpu-idle", "sync-stall", "warmup-in-window", "pageable-memcpy", "partial-trace"})
                if (const Finding* f = d->find(quiet))
                    QFAIL(describe(*f).constData());
        }
        for (const findings::Rule& rule : findings::allRules())
            QVERIFY2(covered.contains(std::string(rule.id)), std::string(rule.id).c_str());
    }

    // Listed by impact: an out-of-memory first, then the time at stake, largest first; the impact of the
    // time findings is the figure their evidence states.
    void orderedByImpact()
    {
        for (const std::string& path : fixtures()) {
            const auto d = diagnoseFile(path);
            for (size_t k = 1; k < d->found.size(); ++k) {
                const Finding& a = d->found[k - 1];
                const Finding& b = d->found[k];
                QVERIFY2(b.id != "out-of-memory", path.c_str());
                if (a.id != "out-of-memory")
                    QVERIFY2(a.impactNs >= b.impactNs, (path + ": " + a.id + " before " + b.id).c_str());
            }
            if (const Finding* f = d->find("gpu-idle"))
                QCOMPARE(f->impactNs,
                         f->strength == findings::Strength::Provisional ? d->overlap.bothIdleNs : d->overlap.gpuIdleWhileCpuBusyNs);
            if (const Finding* f = d->find("launch-bound"))
                QCOMPARE(f->impactNs, d->overlap.launches.cpuNs);
        }
        const auto session = diagnoseFile(sessionTrace());
        QVERIFY(!session->found.empty());
        QCOMPARE(session->found.front().id, std::string("out-of-memory"));
        // launch_bound: the GPU idle time (60 ms) outweighs the launch time (24 ms).
        const auto launch = diagnoseFile(testutil::workloadTrace("launch_bound"));
        QCOMPARE(launch->found.front().id, std::string("gpu-idle"));
    }

    // A window: the whole trace's span gives the whole trace's findings; a part counts only what starts in it.
    void windowedFindings()
    {
        for (const std::string& path : fixtures()) {
            const auto d = diagnoseFile(path);
            const std::vector<Finding> whole = diagnoseWindow(*d, {d->t->firstTime(), d->t->lastTime() + 1});
            // gpu-idle and launch-bound are shares of the overlap window, which is wider here than the default
            // (first to last CPU work and GPU activity), so they may differ; every other finding is the same.
            const auto byWindow = [](const std::vector<Finding>& list) {
                std::vector<const Finding*> out;
                for (const Finding& f : list)
                    if (f.id != "gpu-idle" && f.id != "launch-bound")
                        out.push_back(&f);
                return out;
            };
            const auto a = byWindow(whole), b = byWindow(d->found);
            QVERIFY2(a.size() == b.size(), path.c_str());
            for (size_t k = 0; k < a.size(); ++k) {
                QCOMPARE(a[k]->id, b[k]->id);
                if (a[k]->id != "dominant-kernel")
                    QCOMPARE(a[k]->evidence, b[k]->evidence);
            }
        }
        // tiny-kernels in the first half of launch_bound: the count of kernels under 3 us that start there,
        // from the raw events.
        const std::string launchPath = testutil::workloadTrace("launch_bound");
        const auto launch = diagnoseFile(launchPath);
        const int64_t middle = (launch->t->firstTime() + launch->t->lastTime()) / 2;
        const analysis::Interval firstHalf{launch->t->firstTime(), middle};
        uint64_t kernels = 0, tiny = 0;
        for (const auto& e : rawEvents(launchPath))
            if (cat(e) == "kernel") {
                const int64_t ts = std::llround(io::jsonDouble(io::jsonMember(e, "ts")).value_or(0) * 1000.0);
                if (ts < firstHalf.start || ts >= firstHalf.end)
                    continue;
                ++kernels;
                tiny += durNs(e) < findings::thresholds::kTinyKernelNs;
            }
        QVERIFY(kernels > 0 && kernels < 10000);
        const auto half = diagnoseWindow(*launch, firstHalf);
        const Finding* t = findIn(half, "tiny-kernels");
        QVERIFY(t);
        QVERIFY2(evidenceHas(*t, stats::formatCount(tiny) + " of " + stats::formatCount(kernels) + " kernels"), describe(*t));
        for (const findings::Where& w : t->where)
            if (w.event != trace::kNoIndex)
                QVERIFY(launch->t->events[w.event].start >= firstHalf.start && launch->t->events[w.event].start < firstHalf.end);

        // The H200 session: before its OOM no out-of-memory; the first two steps are too few for a leak.
        const auto session = diagnoseFile(sessionTrace());
        QVERIFY(!session->memory.ooms.empty() && session->memory.steps.size() >= 5);
        const int64_t oom = session->memory.ooms.front().time;
        QVERIFY(!findIn(diagnoseWindow(*session, {session->t->firstTime(), oom}), "out-of-memory"));
        QVERIFY(findIn(diagnoseWindow(*session, {session->t->firstTime(), oom + 1}), "out-of-memory"));
        const auto& steps = session->memory.steps;
        QVERIFY(!findIn(diagnoseWindow(*session, {steps[0].start, steps[1].end}), "memory-growth"));
        QVERIFY(findIn(diagnoseWindow(*session, {steps[0].start, steps.back().end}), "memory-growth"));

        // jit_cold without its first step: its slow first step is outside, so no slow-first evidence.
        const auto cold = diagnoseFile(testutil::workloadTrace("jit_cold"));
        const Finding* w = cold->find("warmup-in-window");
        QVERIFY(w && w->where.front().event != trace::kNoIndex);
        const auto later = diagnoseWindow(*cold, {w->where.front().end, cold->t->lastTime() + 1});
        if (const Finding* again = findIn(later, "warmup-in-window"))
            QVERIFY2(!evidenceHas(*again, "The first step, " + std::string(cold->t->name(cold->t->events[w->where.front().event]))),
                     describe(*again));
    }
};

QTEST_GUILESS_MAIN(TestFindings)
#include "tst_findings.moc"
