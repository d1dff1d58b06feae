// SPDX-License-Identifier: MIT
// Steps (issue #13): the per-step table against the raw events, read independently with nlohmann from the
// decompressed trace (GPU intervals clipped to each step and merged here), and --step / --steps in the CLI.
#include "testutil.h"

#include "analysis/overlap.h"
#include "analysis/steps.h"
#include "io/decimal.h"
#include "io/smalljson.h"
#include "report/stepsreport.h"
#include "trace/traceloader.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <regex>

using namespace tilescope;

namespace {

// A file `ts` in µs with at most three decimals as ns. The trace's µs (about 5.4e12) sit where a double's
// spacing is 2^-10 µs, so the double is within 0.49 ns of the decimal; multiplied in long double it
// rounds to the exact ns.
int64_t ns(const io::Json& us) { return std::llround(static_cast<long double>(us.get<double>()) * 1000.0L); }

struct RawSpan
{
    int64_t start, end;
    std::string name, cat;
    std::string thread; // "pid/tid"
};

std::vector<RawSpan> readSpans(const std::string& path)
{
    std::vector<RawSpan> out;
    const io::Json doc = io::readSmallJsonFile(path); // kept: a range-for over a temporary's member dangles
    for (const io::Json& e : doc["traceEvents"])
        if (e.value("ph", "") == "X" && e.contains("dur"))
            out.push_back({ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), e.value("name", ""), e.value("cat", ""),
                           e.value("pid", io::Json()).dump() + "/" + e.value("tid", io::Json()).dump()});
    return out;
}

// The union of the GPU activity (kernel, gpu_memcpy, gpu_memset) clipped to [start, end), merged here.
int64_t rawGpuBusy(const std::vector<RawSpan>& spans, int64_t start, int64_t end)
{
    std::vector<std::pair<int64_t, int64_t>> clipped;
    for (const RawSpan& s : spans)
        if ((s.cat == "kernel" || s.cat == "gpu_memcpy" || s.cat == "gpu_memset") && s.end > start && s.start < end)
            clipped.emplace_back(std::max(s.start, start), std::min(s.end, end));
    std::sort(clipped.begin(), clipped.end());
    int64_t busy = 0, coveredTo = start;
    for (const auto& [a, b] : clipped) {
        const int64_t from = std::max(a, coveredTo);
        if (b > from) {
            busy += b - from;
            coveredTo = b;
        }
    }
    return busy;
}

uint64_t rawKernels(const std::vector<RawSpan>& spans, int64_t start, int64_t end)
{
    return uint64_t(std::count_if(spans.begin(), spans.end(),
                                  [&](const RawSpan& s) { return s.cat == "kernel" && s.start >= start && s.start < end; }));
}

using Run = testutil::ProcessRun;
Run cli(const QStringList& arguments) { return testutil::runProcess(QStringLiteral(TILESCOPE_CLI), arguments); }

QString trainScheduled() { return QString::fromStdString(testutil::workloadTrace("train_scheduled")); }
std::string sessionTrace() { return testutil::dataPath("memory/h200_session/trace.pt.trace.json.gz"); }

// The step table of `path` against its raw events; `stepName` matches the step events' names.
void checkTable(const std::string& path, const std::string& stepPattern, analysis::StepSource source, size_t expectedSteps)
{
    const auto t = trace::loadTrace(path);
    const analysis::StepTable table = analysis::computeStepTable(*t);
    const std::vector<RawSpan> spans = readSpans(path);
    std::vector<RawSpan> rawSteps;
    const std::regex pattern(stepPattern);
    for (const RawSpan& s : spans)
        if (s.cat == "user_annotation" && std::regex_match(s.name, pattern))
            rawSteps.push_back(s);
    std::stable_sort(rawSteps.begin(), rawSteps.end(), [](const RawSpan& a, const RawSpan& b) { return a.start < b.start; });
    QCOMPARE(table.source, source);
    QCOMPARE(rawSteps.size(), expectedSteps);
    QCOMPARE(table.steps.size(), rawSteps.size());
    // A repeated region's window, from the raw spans: to the next one's start (analysis::findSteps); the last
    // one's, which runs on over what the steps before held, is taken from the table once it is checked to be
    // at least its own span and at most one longest step (repeatedRegionStepsSpanTheirIterations checks it).
    if (source == analysis::StepSource::RepeatedRegion) {
        int64_t longest = 0;
        for (size_t k = 0; k + 1 < rawSteps.size(); ++k) {
            longest = std::max(longest, rawSteps[k + 1].start - rawSteps[k].start);
            rawSteps[k].end = std::max(rawSteps[k].end, rawSteps[k + 1].start);
        }
        const analysis::StepRow& last = table.steps.back();
        QVERIFY(last.end >= rawSteps.back().end);
        QVERIFY(last.end <= std::max(rawSteps.back().end, rawSteps.back().start + longest));
        rawSteps.back().end = last.end;
    }
    for (size_t k = 0; k < rawSteps.size(); ++k) {
        const analysis::StepRow& row = table.steps[k];
        const RawSpan& raw = rawSteps[k];
        QCOMPARE(std::string(t->strings.view(row.name)), raw.name);
        QCOMPARE(row.index, uint32_t(k));
        // The number the name ends with (every fixture that numbers its steps does so uniquely), else the position.
        const bool numbered = std::isdigit(static_cast<unsigned char>(raw.name.back()));
        QCOMPARE(row.number, numbered ? std::stoll(raw.name.substr(raw.name.find_last_not_of("0123456789") + 1)) : int64_t(k));
        QCOMPARE(row.start, raw.start);
        QCOMPARE(row.end, raw.end);
        QCOMPARE(row.durationNs, raw.end - raw.start);
        QCOMPARE(row.gpuBusyNs, rawGpuBusy(spans, raw.start, raw.end));
        QCOMPARE(row.kernels, rawKernels(spans, raw.start, raw.end));
        QCOMPARE(row.gpuUtilization, double(row.gpuBusyNs) / double(row.durationNs));
        // CPU busy through the other code path (computeOverlap walks the events; the table uses OverlapIndex).
        QCOMPARE(row.cpuBusyNs, analysis::computeOverlap(*t, analysis::Interval{raw.start, raw.end}).cpuBusyNs);
    }
    // A fixture where the steps do keep the GPU busy: the check above is not vacuous.
    QVERIFY(
        std::any_of(table.steps.begin(), table.steps.end(), [](const analysis::StepRow& r) { return r.gpuBusyNs > 0 && r.kernels > 0; }));
}

// A complete event on pid 1, tid 1 (times in us).
io::Json slice(const std::string& category, const std::string& name, double ts, double dur)
{
    return io::Json{{"ph", "X"}, {"cat", category}, {"name", name}, {"pid", 1}, {"tid", 1}, {"ts", ts}, {"dur", dur}};
}

// A trace from its JSON text, through a temporary file.
std::unique_ptr<trace::Trace> loadJson(const std::string& json)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("t.json"));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(json.data(), qint64(json.size())) != qint64(json.size()))
        return nullptr;
    f.close();
    return trace::loadTrace(path.toStdString());
}

} // namespace

class TestSteps : public QObject
{
    Q_OBJECT
private slots:
    void profilerSteps()
    {
        checkTable(testutil::workloadTrace("train_scheduled"), "ProfilerStep#[0-9]+", analysis::StepSource::ProfilerStep, 3);
    }
    void repeatedRegions()
    {
        checkTable(sessionTrace(), "step_[0-9]+", analysis::StepSource::RepeatedRegion, 6);
        const auto t = trace::loadTrace(sessionTrace());
        const analysis::StepTable table = analysis::computeStepTable(*t);
        QCOMPARE(table.family, std::string("step_"));
        QCOMPARE(analysis::stepSourceText(table), std::string("repeated region step_"));
        QVERIFY(table.tiedFamilies.empty());
    }
    // A step busy with kernels launched in the one before (the GPU runs behind the CPU) is explained under the
    // table; a trace whose every busy step started its own kernels gets no note. Here one kernel started in
    // ProfilerStep#1 runs through #2-#5; streams_overlap's last step is busy with its previous one's copy.
    void busyStepsWithoutTheirOwnKernelsAreExplained()
    {
        io::Json events = io::Json::array();
        for (int k = 1; k <= 5; ++k)
            events.push_back(slice("user_annotation", "ProfilerStep#" + std::to_string(k), 10 * k, 10));
        io::Json kernel = slice("kernel", "gemm", 15, 50);
        kernel["pid"] = 0;
        kernel["tid"] = 7;
        events.push_back(kernel);
        const auto t = loadJson(io::dumpJson(io::Json{{"traceEvents", events}}));
        QVERIFY(t);
        const analysis::StepTable table = analysis::computeStepTable(*t);
        std::vector<int64_t> busyWithout;
        for (const analysis::StepRow& s : table.steps)
            if (s.kernels == 0 && s.gpuBusyNs > 0)
                busyWithout.push_back(s.number);
        QVERIFY(busyWithout.size() > 3);
        const std::string text = report::stepsText(*t, table);
        const std::string note = "note: " + std::string(report::kStepGpuBusyText) + " (" + std::to_string(busyWithout.size()) + " steps: "
            + std::to_string(busyWithout[0]) + ", " + std::to_string(busyWithout[1]) + ", " + std::to_string(busyWithout[2]) + ", ...).\n";
        QVERIFY2(text.ends_with(note), text.c_str());
        const auto streams = trace::loadTrace(testutil::dataPath("h200/streams_overlap/trace.json.gz"));
        const std::string one = report::stepsText(*streams, analysis::computeStepTable(*streams));
        QVERIFY2(one.ends_with("note: " + std::string(report::kStepGpuBusyText) + " (step 4).\n"), one.c_str());
        const auto train = trace::loadTrace(testutil::workloadTrace("train_scheduled"));
        QVERIFY(report::stepsText(*train, analysis::computeStepTable(*train)).find("note: ") == std::string::npos);
    }

    // Two regions repeating as often (compute_stream and copy_stream, 5 each): the first to start is taken,
    // and the source says which other one was as good a guess.
    void tiedRegionsAreSaid()
    {
        const auto t = trace::loadTrace(testutil::dataPath("h200/streams_overlap/trace.json.gz"));
        const analysis::StepTable table = analysis::computeStepTable(*t);
        QCOMPARE(table.source, analysis::StepSource::RepeatedRegion);
        QCOMPARE(table.family, std::string("compute_stream"));
        QCOMPARE(table.tiedFamilies, std::vector<std::string>{"copy_stream"});
        QCOMPARE(table.steps.size(), size_t(5));
        checkTable(testutil::dataPath("h200/streams_overlap/trace.json.gz"), "compute_stream", analysis::StepSource::RepeatedRegion, 5);
        QCOMPARE(analysis::stepSourceText(table), std::string("repeated region compute_stream"));
        QCOMPARE(analysis::stepSourceDescription(table),
                 std::string("repeated region compute_stream, as often as copy_stream: the first to start is taken; each step runs to the "
                             "next one's start, over any copy_stream between"));
        // The CLI: the description heads the table; JSON keeps "source" short and lists the tie.
        const QString path = QString::fromStdString(testutil::dataPath("h200/streams_overlap/trace.json.gz"));
        const Run text = cli({"steps", path});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.startsWith("steps (repeated region compute_stream, as often as copy_stream: the first to start is taken; each "
                                     "step runs to the next one's start, over any copy_stream between): 5\n"),
                 text.out.constData());
        const Run json = cli({"steps", path, "--format", "json"});
        const QJsonObject doc = QJsonDocument::fromJson(json.out).object();
        QCOMPARE(doc.value("source").toString(), QStringLiteral("repeated region compute_stream"));
        QCOMPARE(doc.value("tied_with").toArray(), (QJsonArray{QStringLiteral("copy_stream")}));
    }

    // streams_overlap's compute_stream holds an iteration's launches (0.1-0.3 ms); its copies and waits follow it
    // (copy_stream, up to 44 ms). A step is the iteration: its copy_stream lies inside it, the last one's too;
    // the cudaDeviceSynchronize after the loop, which no iteration held, is not the last step's.
    void repeatedRegionStepsSpanTheirIterations()
    {
        const std::string path = testutil::dataPath("h200/streams_overlap/trace.json.gz");
        const auto t = trace::loadTrace(path);
        const analysis::StepTable table = analysis::computeStepTable(*t);
        std::vector<RawSpan> copies, syncs;
        for (const RawSpan& s : readSpans(path)) {
            if (s.cat == "user_annotation" && s.name == "copy_stream")
                copies.push_back(s);
            if (s.name == "cudaDeviceSynchronize")
                syncs.push_back(s);
        }
        std::sort(copies.begin(), copies.end(), [](const RawSpan& a, const RawSpan& b) { return a.start < b.start; });
        QCOMPARE(copies.size(), table.steps.size());
        QVERIFY(!syncs.empty());
        for (size_t k = 0; k < copies.size(); ++k) {
            QVERIFY(table.steps[k].start < copies[k].start);
            QVERIFY(copies[k].end <= table.steps[k].end);
            if (k + 1 < copies.size())
                QCOMPARE(table.steps[k].end, table.steps[k + 1].start); // the iterations tile the loop
        }
        QCOMPARE(table.steps.back().end, copies.back().end);
        for (const RawSpan& sync : syncs)
            QVERIFY(sync.start >= table.steps.back().end);
        QVERIFY(table.steps[1].durationNs > 40'000'000); // 43 ms, not compute_stream's 0.3 ms
        // --step 1 is that iteration.
        const Run json = cli({"steps", QString::fromStdString(path), "--format", "json"});
        QCOMPARE(json.exitCode, 0);
        const QJsonArray rows = QJsonDocument::fromJson(json.out).object().value("steps").toArray();
        QCOMPARE(std::llround(rows.at(1).toObject().value("duration_us").toDouble() * 1000.0), table.steps[1].durationNs);
    }

    // The last region's step runs on over what its thread does next beside the region while the steps before held
    // its family, up to one median step: what they never held (the final synchronize) ends it.
    void lastRepeatedRegionReachesOverWhatTheStepsHeld()
    {
        io::Json events = io::Json::array();
        for (int k = 0; k < 3; ++k) {
            events.push_back(slice("user_annotation", "step_" + std::to_string(k), 100 * k, 10));
            events.push_back(slice("cpu_op", "aten::copy_", 100 * k + 50, 20)); // each iteration's tail
        }
        const auto tail = loadJson(io::dumpJson(io::Json{{"traceEvents", events}}));
        QVERIFY(tail);
        const std::vector<analysis::Step> steps = analysis::findSteps(*tail);
        QCOMPARE(steps.size(), size_t(3));
        QCOMPARE(steps[0].end - steps[0].start, int64_t(100'000));
        QCOMPARE(steps[2].start, steps[1].end);
        QCOMPARE(steps[2].end - steps[2].start, int64_t(70'000)); // [200, 270): its copy_
        // What no step held ends it: the copy_ after it is not the last step's.
        events.push_back(slice("cpu_op", "cudaDeviceSynchronize", 275, 5));
        events.push_back(slice("cpu_op", "aten::copy_", 285, 5));
        const auto synced = loadJson(io::dumpJson(io::Json{{"traceEvents", events}}));
        QVERIFY(synced);
        QCOMPARE(analysis::findSteps(*synced).back().end - analysis::findSteps(*synced).back().start, int64_t(70'000));
        // A held op running past one step is cut there.
        events.push_back(slice("cpu_op", "aten::copy_", 200 + 60, 500));
        const auto longCopy = loadJson(io::dumpJson(io::Json{{"traceEvents", events}}));
        QVERIFY(longCopy);
        QCOMPARE(analysis::findSteps(*longCopy).back().end - analysis::findSteps(*longCopy).back().start, int64_t(100'000));
        // The families held, not the names: fwd_2's step takes bwd_2 (bwd_0 and bwd_1 were held before it).
        io::Json pairs2 = io::Json::array();
        for (int k = 0; k < 3; ++k) {
            pairs2.push_back(slice("user_annotation", "fwd_" + std::to_string(k), 100 * k, 20));
            pairs2.push_back(slice("user_annotation", "bwd_" + std::to_string(k), 100 * k + 30, 60));
        }
        const auto numbered = loadJson(io::dumpJson(io::Json{{"traceEvents", pairs2}}));
        QVERIFY(numbered);
        QCOMPARE(analysis::findSteps(*numbered).back().end - analysis::findSteps(*numbered).back().start, int64_t(90'000));
        // Under a Python frame (with_stack=True) the regions and what lies beside them have the frame for parent.
        io::Json framed = io::Json::array({slice("python_function", "train.py(12): train_loop", -5, 1000)});
        for (int k = 0; k < 3; ++k) {
            framed.push_back(slice("user_annotation", "step_" + std::to_string(k), 100 * k, 10));
            framed.push_back(slice("cpu_op", "aten::copy_", 100 * k + 50, 20));
        }
        const auto stacked = loadJson(io::dumpJson(io::Json{{"traceEvents", framed}}));
        QVERIFY(stacked);
        const analysis::Step lastFramed = analysis::findSteps(*stacked).back();
        QVERIFY(stacked->events[lastFramed.event].parent != trace::kNoIndex); // the premise: under the frame
        QCOMPARE(lastFramed.end - lastFramed.start, int64_t(70'000));
        // Reached at one median step, not the longest (the warm-up's 1000 us): held ops after the loop are cut there.
        io::Json warm = io::Json::array();
        for (int k = 0; k < 4; ++k) {
            const double start = k == 0 ? 0 : 1000 + 100 * (k - 1);
            warm.push_back(slice("user_annotation", "step_" + std::to_string(k), start, 10));
            warm.push_back(slice("cpu_op", "aten::mm", start + 20, 30));
        }
        for (int k = 0; k < 10; ++k)
            warm.push_back(slice("cpu_op", "aten::mm", 1260 + 50 * k, 30)); // an evaluation after the loop
        const auto capped = loadJson(io::dumpJson(io::Json{{"traceEvents", warm}}));
        QVERIFY(capped);
        const std::vector<analysis::Step> cappedSteps = analysis::findSteps(*capped);
        QCOMPARE(cappedSteps.size(), size_t(4));
        // step_3 at 1200 us: its own mm, then the evaluation's that start before 1300 (the one at 1260, to 1290).
        QCOMPARE(cappedSteps.back().end - cappedSteps.back().start, int64_t(90'000));
        // gemm_compare alternates custom_kernel and torch_ref: the last step holds its torch_ref, not the
        // cudaDeviceSynchronize after the loop.
        const auto pairs = trace::loadTrace(testutil::workloadTrace("gemm_compare"));
        const std::vector<analysis::Step> custom = analysis::findSteps(*pairs);
        QCOMPARE(custom.size(), size_t(20));
        const trace::Track& lane = pairs->tracks[pairs->events[custom.back().event].track];
        uint32_t lastRef = trace::kNoIndex, sync = trace::kNoIndex;
        for (const uint32_t e : lane.events) {
            if (pairs->name(pairs->events[e]) == "torch_ref")
                lastRef = e;
            if (pairs->name(pairs->events[e]) == "cudaDeviceSynchronize" && pairs->events[e].start > custom.back().start)
                sync = e;
        }
        QVERIFY(lastRef != trace::kNoIndex && sync != trace::kNoIndex);
        QCOMPARE(custom.back().end, pairs->events[lastRef].end());
        QVERIFY(pairs->events[sync].start >= custom.back().end);
        // A ProfilerStep#N keeps its own span.
        const auto profiler = trace::loadTrace(testutil::workloadTrace("train_scheduled"));
        for (const analysis::Step& s : analysis::findSteps(*profiler))
            QCOMPARE(s.end, profiler->events[s.event].end());
    }

    // A region is top-level when no op holds it whole, whether or not it nests in what overlaps it: here
    // step_0..3 lie inside aten::outer, each also overlapping a Python frame or an op that it does not nest in,
    // so the loader gives them no parent; they are not steps. The lone top-level region repeats once: no steps.
    void regionsHeldByAnOpAreNotTopLevel()
    {
        io::Json events = io::Json::array({slice("cpu_op", "aten::outer", 0, 1000), slice("user_annotation", "top", 0, 1001)});
        for (int k = 0; k < 4; ++k) {
            const double start = 100 + 200 * k;
            events.push_back(slice("python_function", "frame", start - 10, 20));
            events.push_back(slice("cpu_op", "aten::crossing", start + 50, 100));
            events.push_back(slice("user_annotation", "step_" + std::to_string(k), start, 100));
        }
        const auto t = loadJson(io::dumpJson(io::Json{{"traceEvents", events}}));
        QVERIFY(t);
        const analysis::StepTable table = analysis::computeStepTable(*t);
        QCOMPARE(table.source, analysis::StepSource::None);
        QVERIFY(table.steps.empty());
    }

    // Back-to-back regions, each overlapping the next by a nanosecond, with an op in each: every one is a step
    // (nothing holds them), and the walk stays linear (40,000 of them would take minutes otherwise).
    void chainOfOverlappingRegions()
    {
        io::Json events = io::Json::array();
        constexpr int kRegions = 2000;
        for (int k = 0; k < kRegions; ++k) {
            events.push_back(slice("user_annotation", "step_" + std::to_string(k), 1000 + 9.999 * k, 10));
            events.push_back(slice("cpu_op", "aten::add", 1001 + 9.999 * k, 2));
        }
        const auto t = loadJson(io::dumpJson(io::Json{{"traceEvents", events}}));
        QVERIFY(t);
        const analysis::StepTable table = analysis::computeStepTable(*t);
        QCOMPARE(table.source, analysis::StepSource::RepeatedRegion);
        QCOMPARE(table.steps.size(), size_t(kRegions));
    }
    void cleanFindingsFixture()
    {
        checkTable(testutil::dataPath("findings/clean.json.gz"), "ProfilerStep#[0-9]+", analysis::StepSource::ProfilerStep, 8);
    }

    void parseStepRange()
    {
        using R = std::optional<std::pair<int64_t, int64_t>>;
        QCOMPARE(analysis::parseStepRange("3"), R(std::pair<int64_t, int64_t>{3, 3}));
        QCOMPARE(analysis::parseStepRange("2-4"), R(std::pair<int64_t, int64_t>{2, 4}));
        for (const char* bad : {"", "-", "4-2", "a", "1-", "-1", "1-2-3", "1.5", " 1"})
            QVERIFY2(!analysis::parseStepRange(bad), bad);
    }

    void stepWindowAndErrors()
    {
        const auto t = trace::loadTrace(testutil::workloadTrace("train_scheduled"));
        const analysis::StepTable table = analysis::computeStepTable(*t);
        const auto w = analysis::stepWindow(*t, 3, 3);
        QVERIFY(w);
        QCOMPARE(w->start, table.steps[1].start);
        QCOMPARE(w->end, table.steps[1].end);
        const auto all = analysis::stepWindow(*t, 2, 4);
        QVERIFY(all);
        QCOMPARE(all->start, table.steps.front().start);
        QCOMPARE(all->end, table.steps.back().end);
        try {
            analysis::stepWindow(*t, 7, 7);
            QFAIL("step 7 does not exist");
        } catch (const analysis::StepSelectionError& e) {
            const std::string message = e.what();
            QVERIFY2(testutil::contains(message, "no step 7") && testutil::contains(message, "2-4"), e.what());
        }
        QVERIFY_THROWS_EXCEPTION(analysis::StepSelectionError, analysis::stepWindow(*t, 0, 3));
        QVERIFY_THROWS_EXCEPTION(analysis::StepSelectionError, analysis::stepWindow(*t, 4, 2));
    }

    void numbersByPositionWhenNamesRepeat()
    {
        // Steps named alike ("train" twice, a family without running numbers) are numbered by start from 0.
        const std::string json = R"({"traceEvents":[
            {"ph":"X","cat":"user_annotation","name":"train","pid":1,"tid":1,"ts":100,"dur":10},
            {"ph":"X","cat":"user_annotation","name":"train","pid":1,"tid":1,"ts":120,"dur":10},
            {"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":101,"dur":2}]})";
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("t.json")).toStdString();
        {
            QFile f(QString::fromStdString(path));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(json.data(), qint64(json.size()));
        }
        const auto t = trace::loadTrace(path);
        const analysis::StepTable table = analysis::computeStepTable(*t);
        QCOMPARE(table.steps.size(), size_t(2));
        QCOMPARE(table.steps[0].number, int64_t(0));
        QCOMPARE(table.steps[1].number, int64_t(1));
        const auto w = analysis::stepWindow(*t, 1, 1);
        QVERIFY(w);
        QCOMPARE(w->start, int64_t(120000));
        QCOMPARE(w->end, int64_t(130000));
        QCOMPARE(table.steps[0].cpuBusyNs, int64_t(2000));
        try {
            analysis::stepWindow(*t, 2, 2);
            QFAIL("step 2 does not exist");
        } catch (const analysis::StepSelectionError& e) {
            QVERIFY2(testutil::contains(e.what(), "no step 2; the trace has steps 0-1 (numbered by start from 0"), e.what());
        }
    }

    void cliStepsJson()
    {
        const Run r = cli({"steps", trainScheduled(), "--format", "json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(doc.value("source").toString(), QStringLiteral("ProfilerStep#N"));
        const QJsonArray steps = doc.value("steps").toArray();
        const auto t = trace::loadTrace(testutil::workloadTrace("train_scheduled"));
        const analysis::StepTable table = analysis::computeStepTable(*t);
        QCOMPARE(steps.size(), qsizetype(table.steps.size()));
        for (qsizetype k = 0; k < steps.size(); ++k) {
            const QJsonObject s = steps[k].toObject();
            QCOMPARE(s.keys(),
                     (QStringList{"cpu_busy_us", "duration_us", "end_us", "gpu_busy_us", "gpu_utilization", "kernels", "name", "start_us",
                                  "step"}));
            const analysis::StepRow& row = table.steps[size_t(k)];
            QCOMPARE(s.value("step").toInteger(), row.number);
            QCOMPARE(s.value("kernels").toInteger(), qint64(row.kernels));
            QCOMPARE(std::llround(s.value("gpu_busy_us").toDouble() * 1000.0), row.gpuBusyNs);
            QCOMPARE(std::llround(s.value("duration_us").toDouble() * 1000.0), row.durationNs);
        }
        const Run text = cli({"steps", trainScheduled()});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.startsWith("steps (ProfilerStep#N): 3\n") && text.out.contains("ProfilerStep#4"), text.out.constData());
    }

    void cliStepsWithoutSteps()
    {
        const QString path = QString::fromStdString(testutil::workloadTrace("launch_bound"));
        const auto t = trace::loadTrace(path.toStdString());
        QVERIFY(analysis::findSteps(*t).empty()); // the premise
        const Run json = cli({"steps", path, "--format", "json"});
        QCOMPARE(json.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(json.out).object();
        QVERIFY(doc.value("source").isNull());
        QVERIFY(doc.value("steps").toArray().isEmpty());
        const Run text = cli({"steps", path});
        QCOMPARE(text.exitCode, 0);
        QCOMPARE(text.out, QByteArray(report::kNoStepsText) + "\n");
        const Run overlap = cli({"overlap", path, "--step", "0"});
        QCOMPARE(overlap.exitCode, 2);
        QVERIFY2(overlap.err.contains("no steps") && overlap.err.contains(path.toUtf8()), overlap.err.constData());
    }

    void cliStepEqualsWindow()
    {
        const auto t = trace::loadTrace(testutil::workloadTrace("train_scheduled"));
        const analysis::StepTable table = analysis::computeStepTable(*t);
        for (const char* command : {"overlap", "diagnose"}) {
            const analysis::StepRow& step = table.steps[1]; // ProfilerStep#3
            const QString window = QString::fromStdString(io::formatNanosecondsAsMicroseconds(step.start) + ","
                                                          + io::formatNanosecondsAsMicroseconds(step.end));
            const Run byStep = cli({command, trainScheduled(), "--format", "json", "--step", "3"});
            const Run byWindow = cli({command, trainScheduled(), "--format", "json", "--window", window});
            QCOMPARE(byStep.exitCode, 0);
            QCOMPARE(byWindow.exitCode, 0);
            QCOMPARE(byStep.out, byWindow.out);
            const Run range = cli({command, trainScheduled(), "--format", "json", "--steps", "2-4"});
            const QString all = QString::fromStdString(io::formatNanosecondsAsMicroseconds(table.steps.front().start) + ","
                                                       + io::formatNanosecondsAsMicroseconds(table.steps.back().end));
            const Run allByWindow = cli({command, trainScheduled(), "--format", "json", "--window", all});
            QCOMPARE(range.exitCode, 0);
            QCOMPARE(range.out, allByWindow.out);
        }
        // The window really is the step's: overlap's JSON says so.
        const QJsonObject doc = QJsonDocument::fromJson(cli({"overlap", trainScheduled(), "--format", "json", "--step", "3"}).out).object();
        QCOMPARE(std::llround(doc.value("window_us").toDouble() * 1000.0), table.steps[1].durationNs);
    }

    void cliStepErrors()
    {
        struct Case
        {
            QStringList arguments;
            QByteArray says;
        };
        const QList<Case> cases{
            {{"overlap", trainScheduled(), "--step", "9"}, "no step 9; the trace has steps 2-4"},
            {{"diagnose", trainScheduled(), "--steps", "3-9"}, "no step 9"},
            {{"overlap", trainScheduled(), "--step", "x"}, "--step expects a step number"},
            {{"overlap", trainScheduled(), "--step", "2-3"}, "--step expects a step number"},
            {{"overlap", trainScheduled(), "--steps", "4-2"}, "--steps expects A-B"},
            {{"overlap", trainScheduled(), "--step", "2", "--window", "1,2"}, "exclude each other"},
            {{"diagnose", trainScheduled(), "--step", "2", "--steps", "2-3"}, "exclude each other"},
            {{"steps", trainScheduled(), "--format", "csv"}, "--format for steps"},
            {{"steps", trainScheduled(), "--step", "2"}, "unknown option --step"},
        };
        for (const Case& c : cases) {
            const Run r = cli(c.arguments);
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains(c.says),
                     (c.arguments.join(u' ') + QStringLiteral(": ") + QString::fromUtf8(r.err)).toUtf8().constData());
            QVERIFY(r.out.isEmpty());
        }
    }
};

QTEST_GUILESS_MAIN(TestSteps)
#include "tst_steps.moc"
