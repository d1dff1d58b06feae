// SPDX-License-Identifier: MIT
// Repeated kernel sequences (issue #13): each reported sequence checked against the raw JSON events read
// here with nlohmann (kernels per stream in start order, each with its op found by External id, else as the
// innermost cpu_op enclosing its launch call, as on pre-2.0 traces): every
// occurrence really is that run of op -> kernel steps on one stream, occurrences and sequences never share
// a kernel, the GPU time is the raw durations' sum, and the first sequence covers as many kernels as the
// best run found by brute force. A synthetic trace with a known answer (no rotations, an elementwise
// chain flagged, memcpy and op-less kernels end runs); the CLI; bad input.
#include "exactjson.h"
#include "testutil.h"

#include "analysis/kernelsequences.h"
#include "io/smalljson.h"
#include "trace/traceloader.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

using namespace tilescope;

namespace {

int64_t ns(const nlohmann::json& us) { return testutil::exactNs(us); }

struct RawKernel
{
    int64_t start = 0, duration = 0;
    std::string op, name; // op "" when the kernel has none
    bool breaks = false;  // a memcpy/memset, or a kernel without op: ends a run
    bool kernel = false;
};

struct RawOp
{
    std::string name;
    int64_t start = 0; // ns
};

// Each kernel's op by the kernel's position in traceEvents, as torch links them: the cpu_op/user_annotation whose External id the
// kernel carries; when that names none, the innermost cpu_op enclosing (by time) the runtime/driver call of
// the kernel's correlation on that call's thread. Pre-2.0 writers put the correlation id as every
// activity's External id (no op carries it), so there an External id equal to the correlation names none.
std::map<size_t, RawOp> rawKernelOps(const nlohmann::json& doc)
{
    auto isActivity = [](const std::string& cat) {
        return cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset" || cat == "cuda_runtime" || cat == "cuda_driver";
    };
    auto arg = [](const nlohmann::json& e, const char* key) -> std::optional<int64_t> {
        if (!e.contains("args") || !e["args"].contains(key) || !e["args"][key].is_number_integer())
            return std::nullopt;
        return e["args"][key].get<int64_t>();
    };
    bool correlationAsExternal = false, everyActivityHasExternal = true;
    std::map<int64_t, RawOp> opByExternal;
    std::map<std::string, std::vector<std::pair<int64_t, RawOp>>> opsByThread;                  // thread -> (end, op)
    std::map<int64_t, std::pair<std::string, std::pair<int64_t, int64_t>>> launchByCorrelation; // -> thread, start, end
    for (const nlohmann::json& e : doc["traceEvents"]) {
        const std::string cat = e.value("cat", "");
        if (e.value("ph", "") != "X")
            continue;
        const std::string thread = e["pid"].dump() + "/" + e["tid"].dump();
        const int64_t start = ns(e["ts"]), end = start + ns(e["dur"]);
        if (cat == "cpu_op")
            opsByThread[thread].push_back({end, {e["name"].get<std::string>(), start}});
        if ((cat == "cpu_op" || cat == "user_annotation") && arg(e, "External id"))
            opByExternal.emplace(*arg(e, "External id"), RawOp{e["name"].get<std::string>(), start});
        if (isActivity(cat)) {
            everyActivityHasExternal = everyActivityHasExternal && arg(e, "External id");
            correlationAsExternal = correlationAsExternal || (arg(e, "External id") && arg(e, "External id") == arg(e, "correlation"));
        }
        if ((cat == "cuda_runtime" || cat == "cuda_driver") && arg(e, "correlation"))
            launchByCorrelation.emplace(*arg(e, "correlation"), std::make_pair(thread, std::make_pair(start, end)));
    }
    const bool externalIsCorrelation = everyActivityHasExternal && correlationAsExternal;
    std::map<size_t, RawOp> out;
    for (size_t index = 0; index < doc["traceEvents"].size(); ++index) {
        const nlohmann::json& e = doc["traceEvents"][index];
        if (e.value("ph", "") != "X" || e.value("cat", "") != "kernel")
            continue;
        const std::optional<int64_t> correlation = arg(e, "correlation");
        const std::optional<int64_t> external = arg(e, "External id");
        if (external && !(externalIsCorrelation && external == correlation))
            if (const auto it = opByExternal.find(*external); it != opByExternal.end()) {
                out[index] = it->second;
                continue;
            }
        const auto launch = correlation ? launchByCorrelation.find(*correlation) : launchByCorrelation.end();
        if (launch == launchByCorrelation.end())
            continue;
        const auto [callStart, callEnd] = launch->second.second;
        const std::pair<int64_t, RawOp>* innermost = nullptr;
        for (const auto& candidate : opsByThread[launch->second.first]) {
            const int64_t opStart = candidate.second.start, opEnd = candidate.first;
            if (opStart > callStart || callEnd > opEnd)
                continue;
            // Of two ops with the same span the later written is the inner one (its caller is written first).
            if (!innermost || opStart > innermost->second.start
                || (opStart == innermost->second.start && opEnd - opStart <= innermost->first - innermost->second.start))
                innermost = &candidate;
        }
        if (innermost)
            out[index] = innermost->second;
    }
    return out;
}

// Per stream (pid, tid): kernels, memcpys and memsets by start (longer first on ties, as the loader sorts).
std::map<std::pair<std::string, std::string>, std::vector<RawKernel>> readRaw(const std::string& path, int64_t from = INT64_MIN,
                                                                              int64_t to = INT64_MAX)
{
    const nlohmann::json doc = testutil::readExactJson(path);
    const std::map<size_t, RawOp> opOfKernel = rawKernelOps(doc);
    std::map<std::pair<std::string, std::string>, std::vector<RawKernel>> out;
    for (size_t index = 0; index < doc["traceEvents"].size(); ++index) {
        const nlohmann::json& e = doc["traceEvents"][index];
        const std::string cat = e.value("cat", "");
        if (e.value("ph", "") != "X" || (cat != "kernel" && cat != "gpu_memcpy" && cat != "gpu_memset"))
            continue;
        RawKernel k;
        k.start = ns(e["ts"]);
        if (k.start < from || k.start >= to)
            continue;
        k.duration = ns(e["dur"]);
        k.name = e["name"].get<std::string>();
        if (const auto it = opOfKernel.find(index); it != opOfKernel.end())
            k.op = it->second.name;
        k.kernel = cat == "kernel";
        k.breaks = !k.kernel || k.op.empty();
        out[{e["pid"].dump(), e["tid"].dump()}].push_back(k);
    }
    for (auto& [stream, list] : out)
        std::stable_sort(list.begin(), list.end(), [](const RawKernel& a, const RawKernel& b) {
            return a.start != b.start ? a.start < b.start : a.duration > b.duration;
        });
    return out;
}

using Run = std::vector<std::pair<std::string, std::string>>;

// The best cover (non-overlapping occurrences x length, occurrences >= 2) of any run of min..max steps, by brute force.
uint64_t bestCover(const std::map<std::pair<std::string, std::string>, std::vector<RawKernel>>& raw, uint32_t minLength, uint32_t maxLength)
{
    std::map<Run, std::pair<uint64_t, std::vector<std::pair<const void*, size_t>>>> runs; // -> (count, occurrences)
    std::map<Run, std::map<const void*, size_t>> nextFree;
    for (const auto& [stream, list] : raw)
        for (size_t p = 0; p < list.size(); ++p)
            for (uint32_t l = minLength; l <= maxLength && p + l <= list.size(); ++l) {
                Run run;
                bool ok = true;
                for (size_t k = p; k < p + l && ok; ++k) {
                    ok = !list[k].breaks;
                    run.emplace_back(list[k].op, list[k].name);
                }
                if (!ok)
                    break;
                size_t& free = nextFree[run][&list];
                if (p >= free) {
                    ++runs[run].first;
                    free = p + l;
                }
            }
    uint64_t best = 0;
    for (const auto& [run, entry] : runs)
        if (entry.first >= 2)
            best = std::max<uint64_t>(best, entry.first * run.size());
    return best;
}

// Every reported sequence against the raw kernels.
void checkAgainstRaw(const trace::Trace& t, const analysis::KernelSequenceReport& r, const std::string& path)
{
    const auto raw = r.options.window ? readRaw(path, r.options.window->start, r.options.window->end) : readRaw(path);
    std::set<std::pair<const void*, size_t>> used;
    for (const analysis::KernelSequence& q : r.sequences) {
        QVERIFY(q.occurrences.size() >= 2);
        QVERIFY(q.steps.size() >= r.options.minLength && q.steps.size() <= r.options.maxLength);
        int64_t gpu = 0;
        bool elementwise = true;
        for (const uint32_t first : q.occurrences) {
            const trace::Event& e = t.events[first];
            // find the occurrence's first kernel in the raw stream lists by start and name
            const std::vector<RawKernel>* list = nullptr;
            size_t at = 0;
            for (const auto& [stream, kernels] : raw)
                for (size_t k = 0; k < kernels.size() && !list; ++k)
                    if (kernels[k].start == e.start && kernels[k].name == t.name(e) && !used.count({&kernels, k})) {
                        list = &kernels;
                        at = k;
                    }
            QVERIFY2(list != nullptr, "an occurrence whose first kernel the raw events do not have");
            QVERIFY(at + q.steps.size() <= list->size());
            for (size_t k = 0; k < q.steps.size(); ++k) {
                const RawKernel& raw = (*list)[at + k];
                QVERIFY(!raw.breaks);
                QCOMPARE(raw.op, std::string(t.strings.view(q.steps[k].op)));
                QCOMPARE(raw.name, std::string(t.strings.view(q.steps[k].kernel)));
                QVERIFY2(used.insert({list, at + k}).second, "a kernel counted twice");
                gpu += raw.duration;
                const std::string name = raw.name.starts_with("void ") ? raw.name.substr(5) : raw.name;
                elementwise = elementwise && (name.find("elementwise_kernel") != std::string::npos || name.starts_with("triton_poi_"));
            }
        }
        QCOMPARE(q.gpuNs, gpu);
        QCOMPARE(q.elementwise, elementwise);
    }
    if (!r.sequences.empty())
        QCOMPARE(r.sequences.front().occurrences.size() * r.sequences.front().steps.size(),
                 size_t(bestCover(raw, r.options.minLength, r.options.maxLength)));
}

std::unique_ptr<trace::Trace> load(const std::string& path)
{
    trace::LoadOptions options;
    options.keepRawArgs = false;
    return trace::loadTrace(path, options);
}

testutil::ProcessRun cli(const QStringList& arguments) { return testutil::runProcess(QStringLiteral(TILESCOPE_CLI), arguments); }

// A trace of one stream: op -> kernel steps given as letters; '|' is a memcpy, '.' a kernel without op.
// Letters a-e are elementwise (ATen's vectorized_elementwise_kernel under aten::a...), others GEMMs.
std::string syntheticTrace(const std::string& steps)
{
    std::ostringstream out;
    out << R"({"traceEvents": [)";
    int64_t ts = 1000, id = 1;
    bool firstEvent = true;
    for (const char c : steps) {
        const std::string comma = firstEvent ? "" : ",";
        firstEvent = false;
        if (c == '|') {
            out << comma << R"({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 7, "ts": )" << ts
                << R"(, "dur": 2, "args": {"device": 0, "stream": 7}})";
        } else {
            const bool withOp = c != '.';
            const bool pointwise = c >= 'a' && c <= 'e';
            const std::string kernel = pointwise ? std::string("void at::native::vectorized_elementwise_kernel<4, op_") + c + ">()"
                                                 : std::string("gemm_") + c;
            if (withOp)
                out << comma << R"({"ph": "X", "cat": "cpu_op", "name": "aten::)" << c << R"(", "pid": 1, "tid": 1, "ts": )" << ts
                    << R"(, "dur": 3, "args": {"External id": )" << id << "}},";
            else
                out << comma;
            out << R"({"ph": "X", "cat": "kernel", "name": ")" << kernel << R"(", "pid": 0, "tid": 7, "ts": )" << ts + 1
                << R"(, "dur": 2, "args": {"device": 0, "stream": 7)" << (withOp ? ", \"External id\": " + std::to_string(id) : "") << "}}";
        }
        ts += 5;
        ++id;
    }
    out << "]}";
    return out.str();
}

std::string stepsText(const trace::Trace& t, const analysis::KernelSequence& q)
{
    std::string out;
    for (const analysis::SequenceStep& s : q.steps)
        out += std::string(t.strings.view(s.op)).substr(6);
    return out;
}

} // namespace

class TestKernelSequences : public QObject
{
    Q_OBJECT

private slots:
    void elementwiseRule()
    {
        QVERIFY(trace::isElementwiseKernel("void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>(int)"));
        QVERIFY(trace::isElementwiseKernel("void at::native::unrolled_elementwise_kernel<foo>()"));
        QVERIFY(trace::isElementwiseKernel("triton_poi_fused_add_cos_sin_0"));
        QVERIFY(!trace::isElementwiseKernel("void at::native::reduce_kernel<512, 1>()"));
        QVERIFY(!trace::isElementwiseKernel("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coo"));
    }

    // A back-to-back repeat is reported once, not as its rotations; the elementwise chain is flagged.
    void syntheticKnownAnswer()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("seq.json").toStdString();
        // PQRS four times back to back, then abc (elementwise) three times split by memcpys and op-less kernels
        std::ofstream(path) << syntheticTrace("xPQRSPQRSPQRSPQRSy|abc|abc.abc.");
        const auto t = load(path);
        const analysis::KernelSequenceReport r = analysis::findKernelSequences(*t, {10, 3, 16, std::nullopt});
        QCOMPARE(r.kernels, uint64_t{4 * 4 + 2 + 9 + 2});
        QCOMPARE(r.steps, uint64_t{4 * 4 + 2 + 9});
        QCOMPARE(r.sequences.size(), size_t{2});
        QCOMPARE(stepsText(*t, r.sequences[0]), std::string("PQRS"));
        QCOMPARE(r.sequences[0].occurrences.size(), size_t{4});
        QVERIFY(!r.sequences[0].elementwise);
        QCOMPARE(stepsText(*t, r.sequences[1]), std::string("abc"));
        QCOMPARE(r.sequences[1].occurrences.size(), size_t{3});
        QVERIFY(r.sequences[1].elementwise);
        QCOMPARE(r.sequences[1].gpuNs, int64_t{9 * 2000});
        checkAgainstRaw(*t, r, path);
    }

    // A repeat longer than --max-length comes out as pieces that tile it, each once.
    void longRepeatTiles()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("long.json").toStdString();
        std::string steps = "x";
        for (int i = 0; i < 6; ++i)
            steps += "FGHIJKLMN"; // nine steps, six times
        std::ofstream(path) << syntheticTrace(steps + "y");
        const auto t = load(path);
        const analysis::KernelSequenceReport r = analysis::findKernelSequences(*t, {10, 2, 6, std::nullopt});
        QVERIFY(r.sequences.size() >= 2);
        QCOMPARE(r.sequences[0].steps.size(), size_t{6});
        QCOMPARE(r.sequences[0].occurrences.size(), size_t{6});
        QCOMPARE(stepsText(*t, r.sequences[0]), std::string("FGHIJK"));
        QCOMPARE(stepsText(*t, r.sequences[1]), std::string("LMN"));
        QCOMPARE(r.sequences[1].occurrences.size(), size_t{6});
        checkAgainstRaw(*t, r, path);
    }

    void fixturesEqualRawEvents_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("minLength");
        QTest::addColumn<int>("maxLength");
        QTest::newRow("train_scheduled") << QString::fromStdString(testutil::workloadTrace("train_scheduled")) << 3 << 16;
        QTest::newRow("train_scheduled 2..5") << QString::fromStdString(testutil::workloadTrace("train_scheduled")) << 2 << 5;
        QTest::newRow("hta ns_resolution (resnet)")
            << QString::fromStdString(testutil::dataPath("external/hta/ns_resolution_trace_rank0.json.gz")) << 3 << 8;
        QTest::newRow("sync_stall") << QString::fromStdString(testutil::dataPath("findings/sync_stall.json.gz")) << 2 << 8;
    }

    void fixturesEqualRawEvents()
    {
        QFETCH(QString, path);
        QFETCH(int, minLength);
        QFETCH(int, maxLength);
        const auto t = load(path.toStdString());
        const analysis::KernelSequenceReport r = analysis::findKernelSequences(
            *t, {20, static_cast<uint32_t>(minLength), static_cast<uint32_t>(maxLength), std::nullopt});
        QVERIFY(!r.sequences.empty());
        checkAgainstRaw(*t, r, path.toStdString());
    }

    // Pre-2.0 traces (External id = correlation id on every activity): each kernel's op is the innermost
    // cpu_op enclosing its launch call, as found in the raw events by time, for every kernel.
    void preTwoZeroOpsAreTheEnclosingOps_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("withOp"); // kernels with an op, counted in the raw events
        QTest::newRow("hta alexnet") << QString::fromStdString(
            testutil::dataPath("external/hta/critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz"))
                                     << 79;
        QTest::newRow("hta trace_filter_sampled rank 0")
            << QString::fromStdString(testutil::dataPath("ranks/hta/trace_filter_sampled_rank-0.json.gz")) << 1138;
    }

    void preTwoZeroOpsAreTheEnclosingOps()
    {
        QFETCH(QString, path);
        QFETCH(int, withOp);
        const nlohmann::json doc = testutil::readExactJson(path.toStdString());
        std::map<int64_t, RawOp> expected; // by the kernel's correlation
        for (const auto& [index, op] : rawKernelOps(doc))
            QVERIFY(expected.emplace(doc["traceEvents"][index]["args"]["correlation"].get<int64_t>(), op).second);
        const auto t = load(path.toStdString());
        QVERIFY(t->meta.externalIdEqualsCorrelationMeansNone);
        size_t kernels = 0, found = 0;
        for (uint32_t i = 0; i < t->events.size(); ++i) {
            const trace::Event& e = t->events[i];
            if (e.kind != trace::EventKind::Kernel)
                continue;
            ++kernels;
            const uint32_t op = t->opOf(i);
            const auto it = expected.find(e.correlation);
            QCOMPARE(op != trace::kNoIndex, it != expected.end());
            if (op == trace::kNoIndex)
                continue;
            ++found;
            QCOMPARE(std::string(t->name(t->events[op])), it->second.name);
            QCOMPARE(t->events[op].start, it->second.start);
            QCOMPARE(t->events[op].kind, trace::EventKind::CpuOp);
        }
        QCOMPARE(found, expected.size());
        QCOMPARE(found, size_t(withOp));
        QVERIFY(kernels > 0);
        const analysis::KernelSequenceReport r = analysis::findKernelSequences(*t, {20, 2, 8, std::nullopt});
        QCOMPARE(r.steps, uint64_t(found));
        QVERIFY(!r.sequences.empty());
        checkAgainstRaw(*t, r, path.toStdString());
        const auto run = ::cli({"sequences", path});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(!run.out.contains("no repeated kernel sequence"));
    }

    // Only kernels starting in the window: the middle third of train_scheduled, checked as above; the CLI's
    // --step equals --window of that step.
    void window()
    {
        const std::string path = testutil::workloadTrace("train_scheduled");
        const auto t = load(path);
        const int64_t span = t->lastTime() - t->firstTime();
        analysis::KernelSequenceOptions options;
        options.window = analysis::Interval{t->firstTime() + span / 3, t->firstTime() + 2 * span / 3};
        const analysis::KernelSequenceReport r = analysis::findKernelSequences(*t, options);
        uint64_t inside = 0;
        for (const auto& [stream, kernels] : readRaw(path, options.window->start, options.window->end))
            for (const RawKernel& k : kernels)
                inside += k.kernel;
        QCOMPARE(r.kernels, inside);
        QVERIFY(r.kernels < analysis::findKernelSequences(*t).kernels);
        checkAgainstRaw(*t, r, path);

        const QString trace = QString::fromStdString(path);
        const auto byStep = ::cli({"sequences", trace, "--format", "json", "--step", "3"});
        QCOMPARE(byStep.exitCode, 0);
        const io::Json doc = io::parseSmallJson(byStep.out.toStdString(), "sequences");
        const auto byWindow = ::cli(
            {"sequences", trace, "--format", "json", "--window",
             QString::fromStdString(io::dumpJson(doc["window_start_us"]) + "," + io::dumpJson(doc["window_end_us"]))});
        QCOMPARE(byWindow.out, byStep.out);
        QVERIFY(doc["kernels"].get<int>() == 162); // ProfilerStep#3's kernels (steps)
    }

    void cli()
    {
        const QString path = QString::fromStdString(testutil::workloadTrace("train_scheduled"));
        auto run = ::cli({"sequences", path, "--format", "json", "--top", "3"});
        QCOMPARE(run.exitCode, 0);
        const io::Json doc = io::parseSmallJson(run.out.toStdString(), "sequences");
        QCOMPARE(doc["kernels"].get<int>(), 486);
        QVERIFY(!doc["sequences"].empty() && doc["sequences"].size() <= 3);
        for (const io::Json& q : doc["sequences"]) {
            QCOMPARE(q["kernels"].get<size_t>(), q["length"].get<size_t>() * q["occurrences"].get<size_t>());
            QCOMPARE(q["steps"].size(), q["length"].get<size_t>());
            QCOMPARE(q["fusion_candidate"].get<bool>(), !q["next_step"].is_null());
        }
        run = ::cli({"sequences", path});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.out.contains("occurrences"));
    }

    void badInput()
    {
        QTemporaryDir dir;
        const QString broken = dir.filePath("broken.json");
        std::ofstream(broken.toStdString()) << "{\"traceEvents\": [1, 2";
        auto run = ::cli({"sequences", broken});
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains("broken.json"));
        const QString path = QString::fromStdString(testutil::workloadTrace("jit_cold"));
        run = ::cli({"sequences", path, "--min-length", "1"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains("--min-length"));
        run = ::cli({"sequences", path, "--min-length", "5", "--max-length", "4"});
        QCOMPARE(run.exitCode, 2);
        run = ::cli({"sequences", path, "--top", "0"});
        QCOMPARE(run.exitCode, 2);
        // No op -> kernel repeats: said in words
        run = ::cli({"sequences",
                     QString::fromStdString(testutil::dataPath("external/hta/cpu_only_rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"))});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.out.contains("no repeated kernel sequence"));
    }
};

QTEST_GUILESS_MAIN(TestKernelSequences)
#include "tst_kernelsequences.moc"
