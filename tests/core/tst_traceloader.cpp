// SPDX-License-Identifier: MIT
#include "testutil.h"

#include "io/bytesource.h"
#include "io/tracefileerror.h"
#include "trace/idindex.h"
#include "stats/keyaverages.h"
#include "trace/traceloader.h"

#include <QtTest>

#include <atomic>
#include <limits>
#include <map>

using namespace tilescope;
using trace::EventKind;
using trace::kNoIndex;

namespace {

std::unique_ptr<trace::Trace> loadText(const std::string& json, trace::LoadOptions options = {})
{
    auto source = io::memorySource(json, "inline.json");
    return trace::loadTrace(*source, options);
}

std::map<EventKind, int> kindCounts(const trace::Trace& t)
{
    std::map<EventKind, int> counts;
    for (const auto& e : t.events)
        ++counts[e.kind];
    return counts;
}

} // namespace

class TestTraceLoader : public QObject
{
    Q_OBJECT
private slots:
    // The links' index: the earliest event of an id, every event of it in event order, nothing for an id
    // never given (below, between and above the given ones), negative and extreme ids included.
    void idIndex()
    {
        using tilescope::trace::IdIndex;
        IdIndex index;
        const std::vector<std::pair<int64_t, uint32_t>> given{{7, 0}, {-3, 1}, {7, 2}, {INT64_MAX, 3}, {2, 4}, {7, 5}, {INT64_MIN + 1, 6}};
        for (const auto& [id, event] : given)
            index.add(id, event);
        index.seal();
        QCOMPARE(index.first(7), 0u);
        QCOMPARE(index.first(-3), 1u);
        QCOMPARE(index.first(INT64_MAX), 3u);
        QCOMPARE(index.first(INT64_MIN + 1), 6u);
        for (const int64_t absent : {int64_t(INT64_MIN), int64_t(-4), int64_t(0), int64_t(3), int64_t(8), int64_t(INT64_MAX - 1)})
            QCOMPARE(index.first(absent), tilescope::trace::kNoIndex);
        std::vector<uint32_t> seven;
        index.forEach(7, [&](uint32_t e) { seven.push_back(e); });
        QCOMPARE(seven, (std::vector<uint32_t>{0, 2, 5}));
        std::vector<uint32_t> none;
        index.forEach(5, [&](uint32_t e) { none.push_back(e); });
        QVERIFY(none.empty());
        IdIndex empty;
        empty.seal();
        QCOMPARE(empty.first(7), tilescope::trace::kNoIndex);
    }

    void kinetoMetadataAndCounts()
    {
        const auto t = trace::loadTrace(testutil::workloadTrace("gemm_compare"));
        QCOMPARE(t->meta.format, trace::TraceFormat::Kineto);
        QCOMPARE(t->meta.schemaVersion.value_or(0), 1);
        QCOMPARE(t->meta.baseTimeNs.value_or(0), int64_t(1790857026000000000));
        QVERIFY(t->meta.recordShapes);
        QVERIFY(t->meta.withFlops);
        QVERIFY(!t->meta.profileMemory);
        QCOMPARE(t->meta.devices.size(), size_t(1));
        QCOMPARE(t->meta.devices[0].name, std::string("NVIDIA H200"));
        QCOMPARE(t->meta.devices[0].numSms, 132);
        QCOMPARE(t->meta.devices[0].computeMajor, 9);
        QCOMPARE(t->meta.devices[0].totalGlobalMem, int64_t(150109880320));
        QCOMPARE(t->meta.key("cupti_version").value_or(""), std::string("130001"));
        // Counts from the file (python: Counter of (ph, cat)).
        const auto counts = kindCounts(*t);
        QCOMPARE(counts.at(EventKind::UserAnnotation), 40);
        QCOMPARE(counts.at(EventKind::CpuOp), 40);
        QCOMPARE(counts.at(EventKind::Kernel), 40);
        QCOMPARE(counts.at(EventKind::CudaDriver), 40);
        QCOMPARE(counts.at(EventKind::GpuUserAnnotation), 40);
        QCOMPARE(counts.at(EventKind::CudaRuntime), 22);
        QCOMPARE(counts.at(EventKind::GpuMemset), 20);
        QCOMPARE(counts.at(EventKind::Overhead), 1);
        QCOMPARE(counts.at(EventKind::TraceSpan), 1);
        QCOMPARE(t->flows.size(), size_t(122));
        QCOMPARE(t->stats.records, uint64_t(426));
        QCOMPARE(t->events.size(), size_t(246)); // 244 complete events and 2 global instants
    }

    void exactNanosecondTimes()
    {
        const auto t = trace::loadTrace(testutil::workloadTrace("gemm_compare"));
        const uint32_t first = testutil::findEvent(*t, "custom_kernel", EventKind::UserAnnotation);
        QVERIFY(first != kNoIndex);
        QCOMPARE(t->events[first].start, int64_t(5349368629953311));
        QCOMPARE(t->events[first].duration, int64_t(3678986));
    }

    void annotationWideningUndone()
    {
        const auto t = trace::loadTrace(testutil::workloadTrace("gemm_compare"));
        QCOMPARE(t->meta.annotationWideningStart, int64_t(1));
        QCOMPARE(t->meta.annotationWideningEnd, int64_t(1));
        // Each custom_kernel GPU span now coincides with its single matmul_kernel, and holds it: the span's row is
        // above the kernel's on the stream, whichever of the two the file wrote first (torch_ref's spans, which
        // start before their kernels, hold theirs too).
        for (const char* annotation : {"custom_kernel", "torch_ref"})
            for (int k = 0; k < 20; ++k) {
                const uint32_t spanIndex = testutil::findEvent(*t, annotation, EventKind::GpuUserAnnotation, k);
                const auto& span = t->events[spanIndex];
                int held = 0;
                for (const auto& e : t->events)
                    if (e.kind == EventKind::Kernel && e.track == span.track && e.start >= span.start && e.end() <= span.end()) {
                        ++held;
                        QCOMPARE(e.parent, spanIndex);
                        QCOMPARE(e.depth, uint16_t(span.depth + 1));
                    }
                QCOMPARE(held, 1);
                if (std::string_view(annotation) == "custom_kernel") {
                    bool matched = false;
                    for (const auto& e : t->events)
                        matched = matched || (e.kind == EventKind::Kernel && e.start == span.start && e.end() == span.end());
                    QVERIFY(matched);
                }
            }
    }

    void tracksAndNesting()
    {
        const auto t = trace::loadTrace(testutil::workloadTrace("gemm_compare"));
        const auto& mm = t->events[testutil::findEvent(*t, "aten::mm", EventKind::CpuOp)];
        QVERIFY(mm.parent != kNoIndex);
        QCOMPARE(t->name(t->events[mm.parent]), std::string_view("torch_ref"));
        QCOMPARE(mm.depth, uint16_t(1));
        const auto& host = t->tracks[mm.track];
        QCOMPARE(host.type, trace::Track::Type::HostThread);
        QCOMPARE(t->strings.view(host.name), std::string_view("thread 449 (python3)"));
        const auto& kernel = t->events[testutil::findEvent(*t, "matmul_kernel", EventKind::Kernel)];
        const auto& stream = t->tracks[kernel.track];
        QCOMPARE(stream.type, trace::Track::Type::GpuStream);
        QCOMPARE(stream.device, 0);
        QCOMPARE(stream.stream.value_or(-1), int64_t(7));
        QCOMPARE(t->strings.view(t->processes[stream.process].labels), std::string_view("GPU 0"));
        // Lanes are sorted by start with the longer slice first.
        for (const auto& track : t->tracks)
            for (size_t i = 1; i < track.events.size(); ++i) {
                const auto& a = t->events[track.events[i - 1]];
                const auto& b = t->events[track.events[i]];
                QVERIFY(a.start < b.start || (a.start == b.start && a.duration >= b.duration));
            }
    }

    // Rows of a lane: a nested event sits under its parent (one row under it in a lane without overlapping
    // slices), no two events of a row overlap, and an event
    // that outlives the one it starts in does not push every later one a row deeper. torch's loop writes each
    // ProfilerStep#N inside a Python frame it outlives, and the next step's frame inside that step: 200 steps
    // of it stayed 4 rows deep (it was one row more per step).
    void rowsOfOverlappingSlices()
    {
        // (plain strings: moc misreads raw string literals in a slot's body)
        std::string json = "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"<module>\", "
                           "\"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 100000}";
        for (int i = 0; i < 200; ++i) {
            const int t = 10 + 400 * i;
            const auto slice = [&](const char* cat, const std::string& name, int ts, int dur) {
                json += ", {\"ph\": \"X\", \"cat\": \"" + std::string(cat) + "\", \"name\": \"" + name
                    + "\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(ts) + ", \"dur\": " + std::to_string(dur) + "}";
            };
            slice("python_function", "profiler.py(800): step", t, 20);                  // the frame of prof.step()
            slice("user_annotation", "ProfilerStep#" + std::to_string(i), t + 10, 400); // begins in it, outlives it
            slice("cpu_op", "aten::mm", t + 50, 100);                                   // the step's work
            slice("cpu_op", "aten::add", t + 60, 10);
        }
        json += "]}";
        const auto t = loadText(json);
        const trace::Track& lane = t->tracks[t->events.front().track];
        QCOMPARE(lane.partialOverlaps, 199u + 200u); // each step over its frame, each frame but the first over a step
        QVERIFY2(lane.maxDepth <= 4, qPrintable(QString::number(lane.maxDepth)));
        for (const auto& e : t->events) {
            if (t->name(e) == "aten::add")
                QCOMPARE(e.depth, uint16_t(t->events[e.parent].depth + 1));
        }
        const auto checkRows = [](const trace::Trace& trace, const std::string& what) {
            for (const trace::Track& track : trace.tracks) {
                std::vector<int64_t> rowEnd(track.maxDepth + size_t(1), std::numeric_limits<int64_t>::min());
                for (const uint32_t i : track.events) { // in start order
                    const trace::Event& e = trace.events[i];
                    QVERIFY2(e.depth <= track.maxDepth, what.c_str());
                    QVERIFY2(rowEnd[e.depth] <= e.start, what.c_str());
                    rowEnd[e.depth] = e.end();
                    // Below its parent; right below it where nothing overlaps (else a row may hold an overlapping
                    // slice that is not an ancestor).
                    const bool plain = track.partialOverlaps == 0;
                    if (e.parent != kNoIndex)
                        QVERIFY2(plain ? e.depth == trace.events[e.parent].depth + 1 : e.depth > trace.events[e.parent].depth,
                                 what.c_str());
                    else if (plain)
                        QVERIFY2(e.depth == 0, what.c_str());
                }
            }
        };
        checkRows(*t, "inline");
        for (const char* w : {"gemm_compare", "train_scheduled", "launch_bound", "streams_overlap"})
            checkRows(*trace::loadTrace(testutil::workloadTrace(w)), w);
        checkRows(*trace::loadTrace(testutil::dataPath("external/hta/ns_resolution_trace_rank0.json.gz")), "ns_resolution");
    }

    void links()
    {
        const auto t = trace::loadTrace(testutil::workloadTrace("gemm_compare"));
        // cuBLAS: kernel -> cuLaunchKernelEx (correlation) -> aten::mm (External id).
        const uint32_t nvjet = testutil::findEvent(*t, "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", EventKind::Kernel);
        QVERIFY(nvjet != kNoIndex);
        const uint32_t launch = t->launchOf(nvjet);
        QVERIFY(launch != kNoIndex);
        QCOMPARE(t->name(t->events[launch]), std::string_view("cuLaunchKernelEx"));
        QCOMPARE(t->activitiesOf(launch), std::vector<uint32_t>{nvjet});
        QCOMPARE(t->name(t->events[t->opOf(nvjet)]), std::string_view("aten::mm"));
        QCOMPARE(t->opOf(launch), t->opOf(nvjet));
        // Triton launches through the driver API outside every ATen op: a launch, but no op.
        const uint32_t triton = testutil::findEvent(*t, "matmul_kernel", EventKind::Kernel);
        QVERIFY(t->launchOf(triton) != kNoIndex);
        QCOMPARE(t->name(t->events[t->launchOf(triton)]), std::string_view("cuLaunchKernelEx"));
        QCOMPARE(t->opOf(triton), kNoIndex);
        // GPU span -> its CPU annotation.
        const uint32_t span = testutil::findEvent(*t, "custom_kernel", EventKind::GpuUserAnnotation);
        QCOMPARE(t->name(t->events[t->annotationOf(span)]), std::string_view("custom_kernel"));
        QCOMPARE(t->events[t->annotationOf(span)].kind, EventKind::UserAnnotation);
    }

    void forwardBackwardFlows()
    {
        const auto t = trace::loadTrace(testutil::workloadTrace("train_scheduled"));
        QCOMPARE(t->forwardBackward().size(), size_t(381));
        for (const auto& [forward, backward] : t->forwardBackward()) {
            QCOMPARE(t->events[forward].kind, EventKind::CpuOp);
            QCOMPARE(t->events[backward].kind, EventKind::CpuOp);
            QVERIFY(t->events[forward].track != t->events[backward].track);
        }
        QCOMPARE(t->memory.size(), size_t(1566));
        QVERIFY(t->meta.withStack && t->meta.profileMemory);
    }

    void rawArgsKeptOnRequest()
    {
        const auto withArgs = trace::loadTrace(testutil::workloadTrace("gemm_compare"));
        const auto& mm = withArgs->events[testutil::findEvent(*withArgs, "aten::mm", EventKind::CpuOp)];
        QVERIFY(withArgs->rawArgs(mm).find(R"("Input Dims": [[4096, 4096], [4096, 4096]])") != std::string_view::npos);
        QCOMPARE(withArgs->strings.view(withArgs->ops[mm.op].inputShapes), std::string_view("[[4096, 4096], [4096, 4096]]"));
        QCOMPARE(withArgs->ops[mm.op].flops, uint64_t(137438953472));
        trace::LoadOptions lean;
        lean.keepRawArgs = false;
        const auto without = trace::loadTrace(testutil::workloadTrace("gemm_compare"), lean);
        QVERIFY(without->args.empty());
        QCOMPARE(without->events.size(), withArgs->events.size());
    }

    void opInputsAreStructuredOnceAtLoad()
    {
        trace::LoadOptions lean;
        lean.keepRawArgs = false;
        const auto t = loadText(R"JSON({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::conv2d", "pid": 1, "tid": 1, "ts": 0, "dur": 5,
   "args": {"Input Dims": [[8, 3, 32, 32], [16, 3, 3, 3], [], [], [], [], []],
            "Input type": ["float", "float", "", "ScalarList", "ScalarList", "ScalarList", "Int"],
            "Input Strides": [[3072, 1024, 32, 1], [27, 9, 3, 1], [], [], [], [], []],
            "Concrete Inputs": ["", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "1"], "Sequence number": 42}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::conv2d", "pid": 1, "tid": 1, "ts": 10, "dur": 5,
   "args": {"Input Dims": [[8, 3, 32, 32], [16, 3, 3, 3], [], [], [], [], []],
            "Input type": ["float", "float", "", "ScalarList", "ScalarList", "ScalarList", "Int"],
            "Input Strides": [[3072, 1024, 32, 1], [27, 9, 3, 1], [], [], [], [], []],
            "Concrete Inputs": ["", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "1"], "Sequence number": 43}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::cat", "pid": 1, "tid": 1, "ts": 20, "dur": 5,
   "args": {"Input Dims": [[[2, 4], [2, 4]], []], "Input type": ["TensorList", "Int"]}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": 30, "dur": 2,
   "args": {"bytes": 4096}},
  {"ph": "C", "name": "transfer", "pid": 1, "ts": 40, "args": {"bytes": 12, "other": 3}}
]})JSON",
                                lean);
        const auto& first = t->events[0];
        const auto& second = t->events[1];
        QVERIFY(first.op != kNoIndex && second.op != kNoIndex);
        QCOMPARE(t->ops[first.op].sequence, int64_t(42));
        QCOMPARE(t->ops[second.op].sequence, int64_t(43));
        QCOMPARE(t->ops[first.op].inputs, t->ops[second.op].inputs); // one stored list for equal inputs
        QCOMPARE(t->opInputs.size(), size_t(2));
        QCOMPARE(t->strings.view(t->ops[first.op].inputShapes), std::string_view("[[8, 3, 32, 32], [16, 3, 3, 3], [], [], [], [], []]"));
        QCOMPARE(t->ops[first.op].flops, uint64_t(2ull * 8 * 32 * 32 * 3 * 3 * 3 * 16)); // torch's conv2d formula, padding 1
        const trace::OpInputList conv = t->inputsOf(first);
        QCOMPARE(conv.inputs.size(), size_t(7));
        QVERIFY(conv.hasStrides && conv.hasConcrete);
        QCOMPARE(std::vector<int64_t>(conv.inputs[1].sizes.begin(), conv.inputs[1].sizes.end()), (std::vector<int64_t>{16, 3, 3, 3}));
        QCOMPARE(std::vector<int64_t>(conv.inputs[0].strides.begin(), conv.inputs[0].strides.end()),
                 (std::vector<int64_t>{3072, 1024, 32, 1}));
        QCOMPARE(conv.inputs[3].concrete, std::string_view("[1, 1]"));
        QCOMPARE(conv.inputs[0].type, std::string_view("float"));
        const trace::OpInputList cat = t->inputsOf(t->events[2]);
        QVERIFY(cat.inputs[0].isList && cat.inputs[0].sizes.empty());
        QVERIFY(!cat.hasStrides && !cat.hasConcrete);
        QCOMPARE(t->ops[t->events[2].op].sequence, trace::kNoId);
        QCOMPARE(t->transferBytesOf(3), std::optional<double>(4096));
        QCOMPARE(t->transferBytesOf(0), std::optional<double>());
        // A counter's "bytes" stays a counter series.
        QCOMPARE(t->counters.size(), size_t(2));
        QCOMPARE(t->strings.view(t->counters[0].series), std::string_view("transfer.bytes"));
        QCOMPARE(t->counters[0].value, 12.0);
    }

    void gzipAndPlainAgree()
    {
        const std::string plain = testutil::readFile(testutil::workloadTrace("gemm_compare"));
        const auto a = loadText(plain);
        const auto b = trace::loadTrace(testutil::dataPath("h200/launch_bound/trace.json.gz"));
        QCOMPARE(a->events.size(), size_t(246));
        QCOMPARE(b->meta.format, trace::TraceFormat::Kineto);
        QCOMPARE(kindCounts(*b).at(EventKind::Kernel), 3000);
    }

    void genericChromeFormats()
    {
        const auto t = loadText(R"JSON([
            {"ph": "B", "name": "outer", "pid": 1, "tid": 2, "ts": 10},
            {"ph": "B", "name": "inner", "pid": 1, "tid": 2, "ts": 12},
            {"ph": "E", "pid": 1, "tid": 2, "ts": 15},
            {"ph": "E", "pid": 1, "tid": 2, "ts": 20},
            {"ph": "X", "name": "gpu a", "cat": "kernel", "pid": 0, "tid": 7, "ts": 10, "dur": 5},
            {"ph": "X", "name": "gpu b (PDL)", "cat": "kernel", "pid": 0, "tid": 7, "ts": 12, "dur": 5},
            {"ph": "i", "name": "marker", "pid": 1, "tid": 2, "ts": 13, "s": "t"},
            {"ph": "C", "name": "queue", "pid": 1, "ts": 11, "args": {"depth": 3, "bytes": 1.5}},
            {"ph": "s", "id": 5, "cat": "ac2g", "name": "x", "pid": 1, "tid": 2, "ts": 12},
            {"ph": "f", "id": 5, "cat": "ac2g", "name": "x", "pid": 0, "tid": 7, "ts": 12, "bp": "e"},
            {"ph": "M", "name": "thread_name", "pid": 1, "tid": 2, "args": {"name": "worker"}},
            {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "app"}},
            {"ph": "M", "name": "thread_sort_index", "pid": 1, "tid": 2, "args": {"sort_index": 4}},
            {"ph": "P", "name": "sample", "pid": 1, "tid": 2, "ts": 1}
        ])JSON");
        QCOMPARE(t->meta.format, trace::TraceFormat::ChromeArray);
        const uint32_t outer = testutil::findEvent(*t, "outer", EventKind::Other);
        const uint32_t inner = testutil::findEvent(*t, "inner", EventKind::Other);
        QCOMPARE(t->events[outer].duration, int64_t(10000));
        QCOMPARE(t->events[inner].duration, int64_t(3000));
        QCOMPARE(t->events[inner].parent, outer);
        QCOMPARE(t->events[testutil::findEvent(*t, "marker", EventKind::Instant)].parent, inner);
        // Overlapping kernels on one stream are all kept, the later one drawn a level deeper.
        const auto& pdl = t->events[testutil::findEvent(*t, "gpu b (PDL)", EventKind::Kernel)];
        QVERIFY(pdl.flags & trace::PartialOverlap);
        QCOMPARE(pdl.depth, uint16_t(1));
        QCOMPARE(t->counters.size(), size_t(2));
        QCOMPARE(t->flows.size(), size_t(2));
        const auto& track = t->tracks[t->events[outer].track];
        QCOMPARE(t->strings.view(track.name), std::string_view("worker"));
        QCOMPARE(track.sortIndex.value_or(0), int64_t(4));
        QCOMPARE(t->strings.view(t->processes[track.process].name), std::string_view("app"));
        QCOMPARE(t->stats.ignoredRecords, uint64_t(1));
    }

    void unclosedBeginIsWarned()
    {
        const auto t = loadText(R"({"traceEvents": [{"ph": "B", "name": "a", "pid": 1, "tid": 1, "ts": 1},
                                                      {"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 2, "dur": 5}]})");
        QCOMPARE(t->events[0].duration, int64_t(6000));
        QCOMPARE(t->stats.warnings.size(), size_t(1));
        QCOMPARE(t->meta.format, trace::TraceFormat::ChromeObject);
    }

    // A record the file holds twice is counted twice, as written, and said so; the same op name at the same
    // time without ids (pre-2.0 traces nest such ops) is no repeat.
    void repeatedRecordsAreWarned()
    {
        const std::string op
            = R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 5, "args": {"External id": 7}})";
        const std::string kernel
            = R"({"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 12, "dur": 2, "args": {"correlation": 9, "External id": 7}})";
        // Another kernel at the same times sorts between a kernel and its copy.
        const std::string other
            = R"({"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 12, "dur": 2, "args": {"correlation": 10}})";
        const auto t = loadText(R"({"traceEvents": [)" + op + "," + kernel + "," + other + "," + op + "," + kernel + "," + kernel + "]}");
        QCOMPARE(t->events.size(), size_t(6));
        QCOMPARE(t->stats.warnings.size(), size_t(1));
        QVERIFY2(t->stats.warnings[0].starts_with("3 events are repeats: each equals an earlier event on its track"),
                 t->stats.warnings[0].c_str());
        // What the warning says of the numbers: the kernel's copies counted (3, and the other kernel), the op's
        // copy folded into it.
        const stats::KeyAverages averages = stats::computeKeyAverages(*t);
        for (const stats::KeyAverage& row : averages.rows) {
            if (row.key == "gemm")
                QCOMPARE(row.count, int64_t(4));
            if (row.key == "aten::mm")
                QCOMPARE(row.count, int64_t(1));
        }
        const auto nested = loadText(R"({"traceEvents": [
            {"ph": "X", "cat": "cpu_op", "name": "aten::to", "pid": 1, "tid": 1, "ts": 10, "dur": 5},
            {"ph": "X", "cat": "cpu_op", "name": "aten::to", "pid": 1, "tid": 1, "ts": 10, "dur": 5},
            {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 20, "dur": 5, "args": {"External id": 7}},
            {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 20, "dur": 5, "args": {"External id": 8}}]})");
        QVERIFY(nested->stats.warnings.empty());
    }

    // Nothing to draw is said as what the file holds: no records at all, or records none of which is an event.
    void noEventsIsSaid()
    {
        const auto empty = loadText(R"({"traceEvents": []})");
        QCOMPARE(empty->stats.warnings, std::vector<std::string>{"the trace holds no events: its traceEvents list is empty"});
        // A bare array has no traceEvents to speak of.
        QCOMPARE(loadText("[]")->stats.warnings, std::vector<std::string>{"the trace holds no events: the file is an empty JSON array"});
        const auto metadata = loadText(
            R"({"traceEvents": [{"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "python"}},
                                                            {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "main"}}]})");
        QCOMPARE(
            trace::noEventsText(*metadata),
            std::string("the trace holds no events: its 2 records are metadata (process and thread names and the like), nothing to draw"));
        QCOMPARE(metadata->stats.warnings, std::vector<std::string>{trace::noEventsText(*metadata)});
        const auto counter = loadText(
            R"({"traceEvents": [{"ph": "C", "name": "mem", "pid": 1, "tid": 0, "ts": 1, "args": {"bytes": 5}}]})");
        QVERIFY(trace::noEventsText(*counter).empty());
        QVERIFY(counter->stats.warnings.empty());
    }

    void pytorch18Format()
    {
        const auto t = trace::loadTrace(testutil::dataPath("external/tb_plugin/resnet50_v100_worker0.pt.trace.json.gz"));
        QCOMPARE(t->meta.format, trace::TraceFormat::Kineto18);
        QCOMPARE(t->meta.devices.size(), size_t(4));
        QCOMPARE(t->meta.devices[0].name, std::string("Tesla V100-DGXS-32GB"));
        const auto counts = kindCounts(*t);
        QCOMPARE(counts.at(EventKind::CpuOp), 23646);
        QVERIFY(counts.at(EventKind::Kernel) > 0);
        // 1.8 GPU events link through lower-case "external id".
        uint32_t kernel = kNoIndex;
        for (uint32_t i = 0; i < t->events.size() && kernel == kNoIndex; ++i)
            if (t->events[i].kind == EventKind::Kernel)
                kernel = i;
        QVERIFY(kernel != kNoIndex);
        QVERIFY(t->events[kernel].externalId != trace::kNoId);
        QVERIFY(t->opOf(kernel) != kNoIndex);
        QVERIFY(t->launchOf(kernel) != kNoIndex);
    }

    void legacyAutogradFormat()
    {
        const auto t = trace::loadTrace(testutil::dataPath("legacy/cpu_mlp/trace.json"));
        QCOMPARE(t->meta.format, trace::TraceFormat::LegacyAutograd);
        const auto counts = kindCounts(*t);
        QVERIFY(counts.at(EventKind::CpuOp) > 100);
        QCOMPARE(int(t->events.size()), counts.at(EventKind::CpuOp));
    }

    void progressAndCancel()
    {
        std::string big = R"({"traceEvents": [)";
        for (int i = 0; i < 60000; ++i)
            big += (i ? "," : "") + std::string(R"({"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": )")
                + std::to_string(i) + R"(, "dur": 0.5, "args": {"External id": )" + std::to_string(i) + "}}";
        big += "]}";
        std::vector<uint64_t> seen;
        trace::LoadOptions options;
        options.progress = [&](const trace::LoadProgress& p) {
            seen.push_back(p.inputBytesRead);
            QVERIFY(p.inputBytesRead <= p.inputBytesTotal);
        };
        const auto t = loadText(big, options);
        QCOMPARE(t->events.size(), size_t(60000));
        QVERIFY(seen.size() >= 3);
        QVERIFY(std::is_sorted(seen.begin(), seen.end()));

        std::atomic<bool> cancel{false};
        trace::LoadOptions cancelling;
        cancelling.cancel = &cancel;
        cancelling.progress = [&](const trace::LoadProgress&) { cancel = true; };
        QVERIFY_THROWS_EXCEPTION(io::LoadCancelled, loadText(big, cancelling));
    }
};

QTEST_APPLESS_MAIN(TestTraceLoader)
#include "tst_traceloader.moc"
