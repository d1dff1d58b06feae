// SPDX-License-Identifier: MIT
// Profiling sessions end to end with Debian's python3-torch (1.13, CPU, legacy profiler): script and
// kernel-vs-reference modes, the exported harness, failures, timeout, cancel, and tilescope-cli capture.
#include "roofline/classify.h"
#include "session/captureargs.h"
#include "session/commandline.h"
#include "session/harnessexport.h"
#include "session/manifestwriter.h"
#include "session/sessionfiles.h"
#include "session/sessionmanifest.h"
#include "session/sessionevent.h"
#include "session/pythonlocator.h"
#include "session/sessionconfig.h"
#include "session/sessionrunner.h"
#include "stats/keyaverages.h"
#include "trace/traceloader.h"
#include "io/smalljson.h"
#include "io/textfile.h"
#include "io/tracefileerror.h"
#include "testutil.h"

#include <QtTest>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <unistd.h>

using namespace tilescope;
using namespace tilescope::session;
namespace fs = std::filesystem;

namespace {

// Debian's interpreter: it is the one python3-torch installs into (python3 on PATH may be another).
const char* kPython = "/usr/bin/python3";

SessionTools tools()
{
    SessionTools t;
    t.harness = std::string(TILESCOPE_SOURCE_DIR) + "/resources/harness/tilescope_harness.py";
#ifdef TILESCOPE_TORCH_TOOL
    t.torchTool = TILESCOPE_TORCH_TOOL;
#endif
    return t;
}

int countPrefixed(const trace::Trace& t, std::string_view prefix)
{
    int n = 0;
    for (const trace::Event& e : t.events)
        n += t.name(e).starts_with(prefix);
    return n;
}

// Processes whose command line holds `marker`: none may survive a session.
int processesWith(const std::string& marker)
{
    int n = 0;
    for (const auto& entry : fs::directory_iterator("/proc")) {
        const std::string pid = entry.path().filename().string();
        if (pid.find_first_not_of("0123456789") != std::string::npos || pid == std::to_string(::getpid()))
            continue;
        std::string cmdline = testutil::readFile(entry.path().string() + "/cmdline");
        for (char& c : cmdline)
            c = c == '\0' ? ' ' : c;
        n += !testutil::isZombie(entry.path().string()) && cmdline.find(marker) != std::string::npos;
    }
    return n;
}

// The torch of kPython: its version and whether it sees a CUDA device.
std::string probeTorch(const char* expression)
{
    QProcess p;
    p.start(QString::fromLatin1(kPython),
            {QStringLiteral("-c"), QStringLiteral("import torch; print(") + QLatin1String(expression) + u')'});
    p.waitForFinished(60000);
    return p.readAllStandardOutput().trimmed().toStdString();
}
std::string torchVersion() { return probeTorch("torch.__version__"); }
bool torchHasCuda() { return probeTorch("torch.cuda.is_available()") == "True"; }

struct CliResult
{
    int exitCode = -1;
    std::string out, err;
};

CliResult runCli(const QStringList& args)
{
    const testutil::ProcessRun r = testutil::runProcess(QStringLiteral(TILESCOPE_CLI), args);
    return {r.exitCode, r.out.toStdString(), r.err.toStdString()};
}

} // namespace

class TestSession : public QObject
{
    Q_OBJECT

    QTemporaryDir m_tmp;

    std::string out(const char* name) const { return (fs::path(m_tmp.path().toStdString()) / name).string(); }

    SessionConfig base(SessionMode mode, const char* outName) const
    {
        SessionConfig c;
        c.mode = mode;
        c.python = kPython;
        c.device = "cpu";
        c.outputDirectory = out(outName);
        c.timeoutSeconds = 120;
        return c;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        QProcess probe;
        probe.start(QString::fromLatin1(kPython), {QStringLiteral("-c"), QStringLiteral("import torch; print(torch.__version__)")});
        probe.waitForFinished(60000);
        QVERIFY2(probe.exitCode() == 0, "these tests need Debian's python3-torch: run packaging/install-deps.sh");
    }

    void configRoundTripsThroughJson()
    {
        SessionConfig c = base(SessionMode::Kernel, "roundtrip");
        c.kernel = "k.py:fn";
        c.reference = "pkg.mod:ref";
        c.inputs = "bf16:64x128,f32:";
        c.args = {"a b", "--x=\"1\""};
        c.environment = {{"CUDA_VISIBLE_DEVICES", "0"}};
        c.schedule = ProfileSchedule{2, 1, 4, 2};
        c.flopsPerCall = 137438953472.0;
        c.cudaActivity = false;
        c.withStack = true;
        c.memorySnapshot = true;
        c.memoryTimeline = true;
        c.memorySnapshotMaxEntries = 5000;
        const SessionConfig back = sessionConfigFromJson(toJson(c), "test");
        QCOMPARE(toJson(back), toJson(c));
        QVERIFY(back.memorySnapshot && back.memoryTimeline);
        QCOMPARE(back.memorySnapshotMaxEntries, 5000);
        QCOMPARE(back.schedule->active, 4);
        QCOMPARE(*back.flopsPerCall, 137438953472.0);
        QVERIFY(!back.cudaActivity);
        QCOMPARE(back.args[1], std::string("--x=\"1\""));
    }

    void configsFromBeforeTheMemoryOptionsStillLoad()
    {
        // A config saved before --memory-snapshot existed: the memory keys take their defaults.
        const SessionConfig old = sessionConfigFromJson(R"({"version": 1, "mode": "script", "script": "t.py", "profile_memory": true,
                                                            "record_shapes": true, "with_stack": false, "out": "o"})",
                                                        "old.json");
        const SessionConfig defaults;
        QVERIFY(!old.memorySnapshot && !old.memoryTimeline);
        QCOMPARE(old.memorySnapshotMaxEntries, defaults.memorySnapshotMaxEntries);
        QVERIFY(old.profileMemory);
        const io::Json written = io::parseSmallJson(toJson(SessionConfig{}), "default");
        QCOMPARE(written.at("memory_snapshot").get<bool>(), false);
        QCOMPARE(written.at("memory_timeline").get<bool>(), false);
        QCOMPARE(written.at("memory_snapshot_max_entries").get<int>(), 100000);
    }

    void badConfigsNameTheFileAndTheField()
    {
        const auto expectError = [](const char* json, const char* needle) {
            try {
                sessionConfigFromJson(json, "my-session.json");
                QFAIL("no error");
            } catch (const io::TraceFileError& e) {
                const std::string what = e.what();
                QVERIFY2(what.find("my-session.json") != std::string::npos && what.find(needle) != std::string::npos, what.c_str());
            }
        };
        expectError("{\"mode\": \"jit\"}", "unknown mode 'jit'");
        expectError("{\"warmup\": -1}", "'warmup'");
        expectError("{\"iters\": 0}", "'iters'");
        expectError("{\"args\": \"x\"}", "'args'");
        expectError("{\"activities\": [\"gpu\"]}", "'activities'");
        expectError("{\"mode\": ", "my-session.json");
        expectError("{\"memory_snapshot\": \"yes\"}", "'memory_snapshot' must be true or false");
        expectError("{\"memory_timeline\": 1}", "'memory_timeline' must be true or false");
        expectError("{\"memory_snapshot_max_entries\": 0}", "'memory_snapshot_max_entries' must be a whole number >= 1");
    }

    void validationSaysWhatIsMissing()
    {
        SessionConfig c;
        c.mode = SessionMode::Kernel;
        c.kernel = "nocolon";
        const auto problems = validate(c);
        const auto has = [&](const char* text) {
            for (const auto& p : problems)
                if (p.find(text) != std::string::npos)
                    return true;
            return false;
        };
        QVERIFY(has("'nocolon' is not module:callable"));
        QVERIFY(has("no reference given"));
        QVERIFY(has("no inputs given"));
        QVERIFY(has("no output folder"));
        SessionConfig cmd;
        cmd.mode = SessionMode::Command;
        cmd.command = "python train.py";
        cmd.outputDirectory = "x";
        QVERIFY(validate(cmd).at(0).find("{out}") != std::string::npos);
        // The memory options belong to the Python harness: other modes refuse them before starting.
        for (const SessionMode mode : {SessionMode::TorchScript, SessionMode::Command, SessionMode::Calibrate}) {
            SessionConfig m;
            m.mode = mode;
            m.torchscript = testutil::sessionData("train_loop.py");
            m.command = "x {out}";
            m.outputDirectory = "x";
            QVERIFY(validate(m).empty());
            m.memoryTimeline = true;
            const auto problems = validate(m);
            QCOMPARE(problems.size(), size_t(1));
            QCOMPARE(problems[0],
                     "the memory snapshot and timeline (--memory-snapshot, --memory-timeline) are recorded by the Python "
                     "harness, so only in script and kernel sessions, not in a "
                         + std::string(modeName(mode)) + " session");
        }
        for (const SessionMode mode : {SessionMode::Script, SessionMode::Kernel}) {
            SessionConfig m;
            m.mode = mode;
            m.memorySnapshot = m.memoryTimeline = true;
            for (const std::string& p : validate(m))
                QVERIFY2(p.find("memory") == std::string::npos, p.c_str());
        }
    }

    void progressLinesBecomeEvents()
    {
        auto e = parseSessionLine("@tilescope {\"event\": \"phase\", \"phase\": \"warmup\", \"step\": 3, \"of\": 10}", false);
        QVERIFY(e.kind == SessionEvent::Kind::Phase);
        QCOMPARE(e.phase, std::string("warmup"));
        QCOMPARE(e.step, 3);
        QCOMPARE(e.of, 10);
        e = parseSessionLine("@tilescope {\"event\": \"artifact\", \"kind\": \"trace\", \"path\": \"/o/t.json\"}", false);
        QVERIFY(e.kind == SessionEvent::Kind::Artifact);
        QCOMPARE(e.path, std::string("/o/t.json"));
        // Broken or foreign lines stay log lines, and stderr never carries events.
        QVERIFY(parseSessionLine("@tilescope {\"event\": ", false).kind == SessionEvent::Kind::Log);
        QVERIFY(parseSessionLine("@tilescope {\"event\": \"error\", \"message\": \"x\"}", true).kind == SessionEvent::Kind::Log);
        QVERIFY(parseSessionLine("epoch 1 loss 0.3", false).kind == SessionEvent::Kind::Log);
    }

    void writtenProgressLinesReadBack()
    {
        // tilescope-torch prints what these write; the reader must get every field back unchanged.
        auto e = parseSessionLine(phaseLine("warmup", "warm-up \"3\"/10", 3, 10), false);
        QVERIFY(e.kind == SessionEvent::Kind::Phase);
        QCOMPARE(e.phase, std::string("warmup"));
        QCOMPARE(e.step, 3);
        QCOMPARE(e.of, 10);
        QCOMPARE(e.message, std::string("warm-up \"3\"/10"));
        e = parseSessionLine(phaseLine("setup", "starting"), false);
        QCOMPARE(e.step, -1);
        QCOMPARE(e.of, -1);
        e = parseSessionLine(artifactLine("trace", "/a b/trace.pt.trace.json"), false);
        QVERIFY(e.kind == SessionEvent::Kind::Artifact);
        QCOMPARE(e.artifactKind, std::string("trace"));
        QCOMPARE(e.path, std::string("/a b/trace.pt.trace.json"));
        e = parseSessionLine(resultLine("/o/tilescope-session.json", "/o/calibration.json"), false);
        QVERIFY(e.kind == SessionEvent::Kind::Result);
        QCOMPARE(e.path, std::string("/o/tilescope-session.json"));
        QVERIFY(resultLine("").find("manifest") == std::string::npos);
        e = parseSessionLine(errorLine("torch is not installed\nfor python3"), false);
        QVERIFY(e.kind == SessionEvent::Kind::Error);
        QCOMPARE(e.message, std::string("torch is not installed\nfor python3"));
    }

    void writtenManifestReadsBack()
    {
        const std::string dir = out("manifest-written");
        fs::create_directories(dir);
        ManifestRecord m;
        m.mode = "torchscript";
        m.ok = true;
        m.torch = "2.11.0";
        m.profiler = "kineto";
        m.device = {{"name", "H200"}};
        m.trace = kTraceFile;
        m.notes = {"one", "two"};
        const std::string path = writeSessionManifest(dir, m);
        QCOMPARE(path, (fs::path(dir) / kManifestFile).string());
        QCOMPARE(manifestInFolder(dir).value_or(""), path);
        QVERIFY(!fs::exists(path + ".tmp"));
        const SessionManifest read = readSessionManifest(path);
        QCOMPARE(read.mode, m.mode);
        QCOMPARE(read.status, std::string("ok"));
        QCOMPARE(read.torch, m.torch);
        QCOMPARE(read.profiler, m.profiler);
        QCOMPARE(read.deviceName, std::string("H200"));
        QCOMPARE(read.trace, (fs::path(dir) / kTraceFile).string());
        QCOMPARE(read.notes, m.notes);
        QVERIFY(read.memorySnapshot.empty() && read.memoryTimeline.empty());
    }

    void manifestNamesTheMemoryFiles()
    {
        // As the harness writes it: names relative to the folder, read back absolute.
        const std::string dir = out("manifest-memory");
        fs::create_directories(dir);
        io::Json j = {{"version", 1},
                      {"mode", "script"},
                      {"status", "ok"},
                      {"trace", kTraceFile},
                      {"memory_snapshot", kMemorySnapshotFile},
                      {"memory_timeline", kMemoryTimelineFile}};
        io::writeTextFile(dir + "/" + kManifestFile, io::dumpJson(j), "test manifest");
        const SessionManifest m = readSessionManifest(dir + "/" + kManifestFile);
        QCOMPARE(m.memorySnapshot, dir + "/memory_snapshot.pickle");
        QCOMPARE(m.memoryTimeline, dir + "/memory_timeline.json");
        // The harness spells the same names as sessionfiles.h.
        const std::string harness = testutil::readFile(tools().harness);
        QVERIFY(harness.find("MEMORY_SNAPSHOT = \"" + std::string(kMemorySnapshotFile) + "\"") != std::string::npos);
        QVERIFY(harness.find("MEMORY_TIMELINE = \"" + std::string(kMemoryTimelineFile) + "\"") != std::string::npos);
    }

    void harnessMemoryRecordingAgainstStandInTorch()
    {
        // The paths that need CUDA and torch >= 2.1, run here against stand-in torch modules.
        QProcess p;
        p.start(QString::fromLatin1(kPython),
                {QStringLiteral(TILESCOPE_SOURCE_DIR "/tests/tools/test_harness_memory.py"), QString::fromStdString(tools().harness)});
        QVERIFY(p.waitForFinished(60000));
        const QByteArray output = p.readAllStandardOutput() + p.readAllStandardError();
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, output.constData());
        QVERIFY2(output.contains("ok: harness memory recording"), output.constData());
    }

    void memoryOptionsAreRefusedBeforeRunningWithoutCuda_data()
    {
        QTest::addColumn<bool>("kernelMode");
        QTest::addColumn<bool>("snapshot");
        QTest::addColumn<bool>("timeline");
        QTest::addColumn<QString>("options");
        QTest::newRow("script, snapshot") << false << true << false << QStringLiteral("--memory-snapshot needs");
        QTest::newRow("script, timeline") << false << false << true << QStringLiteral("--memory-timeline needs");
        QTest::newRow("kernel, both") << true << true << true << QStringLiteral("--memory-snapshot and --memory-timeline need");
    }

    void memoryOptionsAreRefusedBeforeRunningWithoutCuda()
    {
        QFETCH(bool, kernelMode);
        QFETCH(bool, snapshot);
        QFETCH(bool, timeline);
        QFETCH(QString, options);
        if (torchHasCuda())
            QSKIP("this torch sees a CUDA device: tools/gpu/prove_memory.sh checks the recording there");
        SessionConfig c = base(kernelMode ? SessionMode::Kernel : SessionMode::Script, kernelMode ? "memkernel" : "memscript");
        c.device.clear(); // auto: the CPU here
        c.script = testutil::sessionData("train_loop.py");
        c.kernel = testutil::sessionData("kernels.py") + ":broadcast_mm";
        c.reference = testutil::sessionData("kernels.py") + ":reference_mm";
        c.inputs = "f32:8x8,f32:8x8";
        c.memorySnapshot = snapshot;
        c.memoryTimeline = timeline;
        std::vector<std::string> phases;
        const SessionResult r = runSession(c, tools(), [&](const SessionEvent& e) {
            if (e.kind == SessionEvent::Kind::Phase)
                phases.push_back(e.phase);
        });
        QVERIFY(r.status == SessionResult::Status::Failed);
        // One sentence: what was asked, what it needs, and what is missing here.
        const std::string sentence = options.toStdString() + " CUDA and torch \u2265 2.1 (torch " + torchVersion() + " here ";
        QVERIFY2(r.error.find(sentence) != std::string::npos, r.error.c_str());
        QVERIFY2(r.error.ends_with("sees no CUDA device)"), r.error.c_str());
        const std::string manifestError = io::jsonText(io::readSmallJsonFile(r.manifestPath), "error");
        QVERIFY2(manifestError.starts_with(options.toStdString()), manifestError.c_str());
        QCOMPARE(r.manifest.status, std::string("failed"));
        // Before running: nothing was profiled, built or loaded.
        QVERIFY(r.tracePath.empty());
        QVERIFY(!fs::exists(c.outputDirectory + "/" + kTraceFile));
        QVERIFY(!fs::exists(c.outputDirectory + "/" + kMemorySnapshotFile));
        QCOMPARE(phases, (std::vector<std::string>{"setup", "setup"})); // TileScope's and the harness's
        QVERIFY(r.memorySnapshotPath.empty() && r.memoryTimelinePath.empty());
    }

    void scriptSessionFollowsTheScheduleAndMatchesTorch()
    {
        SessionConfig c = base(SessionMode::Script, "script");
        c.script = testutil::sessionData("train_loop.py");
        c.args = {"8"};
        c.schedule = ProfileSchedule{1, 1, 3, 1};
        std::vector<SessionEvent> events;
        const SessionResult r = runSession(c, tools(), [&](const SessionEvent& e) { events.push_back(e); });
        QVERIFY2(r.status == SessionResult::Status::Ok, r.error.c_str());
        QCOMPARE(r.manifest.mode, std::string("script"));
        QCOMPARE(r.manifest.profiler, std::string("legacy"));
        QVERIFY(!r.keyAveragesPath.empty());
        // Phases arrive in the documented order: setup before profile before export.
        std::vector<std::string> phases;
        for (const SessionEvent& e : events)
            if (e.kind == SessionEvent::Kind::Phase && (phases.empty() || phases.back() != e.phase))
                phases.push_back(e.phase);
        QCOMPARE(phases, (std::vector<std::string>{"setup", "profile", "export", "done"}));

        const auto t = trace::loadTrace(r.tracePath);
        QCOMPARE(countPrefixed(*t, "ProfilerStep#"), 3); // the active window only
        QCOMPARE(testutil::countNamed(*t, "train_step"), 3);
        // torch's own key_averages (written by the harness) equals TileScope's, key by key.
        const io::Json ref = io::readSmallJsonFile(r.keyAveragesPath);
        std::map<std::string, int64_t> torchCounts, ours;
        std::map<std::string, double> torchSelf, oursSelf;
        for (const io::Json& row : ref.at("rows")) {
            torchCounts[row.at("key").get<std::string>()] = *io::jsonInteger(io::jsonMember(row, "count"));
            torchSelf[row.at("key").get<std::string>()] = *io::jsonDouble(io::jsonMember(row, "self_cpu_time_total_us"));
        }
        for (const stats::KeyAverage& row : stats::computeKeyAverages(*t).rows) {
            ours[row.key] = row.count;
            oursSelf[row.key] = row.selfCpuTimeTotal;
        }
        QVERIFY(torchCounts.size() > 10);
        QCOMPARE(ours, torchCounts);
        // Self times agree too (legacy export: integer us), which needs ProfilerStep#N to nest with the
        // script's train_step region around opt.step(): the harness steps when that region closes.
        for (const auto& [key, self] : torchSelf)
            QVERIFY2(std::abs(oursSelf[key] - self) <= std::max(1.0, 0.005 * self),
                     (key + ": " + std::to_string(oursSelf[key]) + " vs torch " + std::to_string(self)).c_str());
        QCOMPARE(torchCounts["Optimizer.step#SGD.step"], int64_t(3));
    }

    void scriptStepsOnTilescopeStep()
    {
        SessionConfig c = base(SessionMode::Script, "manual");
        c.script = testutil::sessionData("manual_steps.py");
        c.schedule = ProfileSchedule{0, 1, 2, 1};
        const SessionResult r = runSession(c, tools(), nullptr);
        QVERIFY2(r.status == SessionResult::Status::Ok, r.error.c_str());
        const auto t = trace::loadTrace(r.tracePath);
        QCOMPARE(testutil::countNamed(*t, "manual_region"), 2);
        QCOMPARE(countPrefixed(*t, "ProfilerStep#"), 2);
    }

    void scheduleThatNeverCompletesFailsClearly()
    {
        SessionConfig c = base(SessionMode::Script, "neverstep");
        c.script = testutil::sessionData("train_loop.py");
        c.args = {"1"};
        c.schedule = ProfileSchedule{2, 1, 3, 1};
        const SessionResult r = runSession(c, tools(), nullptr);
        QVERIFY(r.status == SessionResult::Status::Failed);
        QVERIFY2(r.error.find("never reached its active window") != std::string::npos, r.error.c_str());
        QVERIFY(!r.manifest.notes.empty());
        QVERIFY2(r.manifest.notes[0].find("made 1 steps") != std::string::npos, r.manifest.notes[0].c_str());
    }

    void kernelSessionLabelsBothAndChecksThem()
    {
        SessionConfig c = base(SessionMode::Kernel, "kernel");
        c.kernel = testutil::sessionData("kernels.py") + ":build_fake_kernel";
        c.kernelFactory = true;
        c.reference = testutil::sessionData("kernels.py") + ":reference_mm";
        c.inputs = "float32:64x32,f32:32x48";
        c.warmupIterations = 3;
        c.measuredIterations = 4;
        c.flopsPerCall = 2.0 * 64 * 32 * 48;
        c.bytesPerCall = 4.0 * (64 * 32 + 32 * 48 + 64 * 48);
        int warmups = 0;
        const SessionResult r = runSession(
            c, tools(), [&](const SessionEvent& e) { warmups += e.kind == SessionEvent::Kind::Phase && e.phase == "warmup"; });
        QVERIFY2(r.status == SessionResult::Status::Ok, r.error.c_str());
        QCOMPARE(warmups, 3);
        QCOMPARE(r.manifest.checks.size(), size_t(1));
        QVERIFY(r.manifest.checks[0].passed);
        QVERIFY(*r.manifest.checks[0].maxAbsError < 1e-3);
        const auto t = trace::loadTrace(r.tracePath);
        QCOMPARE(testutil::countNamed(*t, "tilelang_kernel"), 4);
        QCOMPARE(testutil::countNamed(*t, "torch_ref"), 4);
        QCOMPARE(testutil::countNamed(*t, "aten::mm"), 4); // only the reference calls torch.mm
        // The generated source is saved, named after its kernel, and the sidecar loads.
        QCOMPARE(r.manifest.sources.size(), size_t(1));
        QCOMPARE(r.manifest.sources[0].kernel, std::string("main_kernel"));
        QVERIFY(testutil::readFile(r.manifest.sources[0].path).find("tl::gemm_ss") != std::string::npos);
        QCOMPARE(r.annotationsPath, r.tracePath + ".annotations.json");
        const auto annotations = roofline::loadAnnotations(r.annotationsPath);
        QCOMPARE(annotations.size(), size_t(2));
        QCOMPARE(annotations[0].region, std::string("tilelang_kernel"));
        QCOMPARE(*annotations[0].flops, *c.flopsPerCall);
        QCOMPARE(annotations[1].region, std::string("torch_ref"));
        QCOMPARE(*annotations[1].bytes, *c.bytesPerCall);
    }

    void wrongKernelFailsItsCheckButKeepsTheTrace()
    {
        SessionConfig c = base(SessionMode::Kernel, "wrong");
        c.kernel = testutil::sessionData("kernels.py") + ":wrong_mm";
        c.reference = testutil::sessionData("kernels.py") + ":reference_mm";
        c.inputs = "f32:16x16,f32:16x16";
        c.warmupIterations = 1;
        c.measuredIterations = 1;
        const SessionResult r = runSession(c, tools(), nullptr);
        QVERIFY2(r.status == SessionResult::Status::Ok, r.error.c_str());
        QVERIFY(!r.manifest.checks.at(0).passed);
        QVERIFY(std::abs(*r.manifest.checks[0].maxAbsError - 1.0) < 1e-5);
        QVERIFY(!r.tracePath.empty());
    }

    void badKernelSpecsFailWithTheirReason_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<QString>("inputs");
        QTest::addColumn<QString>("expected");
        const QString k = QString::fromStdString(testutil::sessionData("kernels.py"));
        QTest::newRow("no attribute") << k + QStringLiteral(":nope") << QStringLiteral("f32:4x4,f32:4x4")
                                      << QStringLiteral("has no attribute 'nope'");
        QTest::newRow("no file") << QStringLiteral("/nonexistent/k.py:fn") << QStringLiteral("f32:4x4") << QStringLiteral("does not exist");
        QTest::newRow("bad dtype") << k + QStringLiteral(":broadcast_mm") << QStringLiteral("float31:4x4")
                                   << QStringLiteral("unknown dtype 'float31'");
        QTest::newRow("bad dims") << k + QStringLiteral(":broadcast_mm") << QStringLiteral("f32:4xq")
                                  << QStringLiteral("'q' is not a dimension");
        QTest::newRow("shape mismatch") << k + QStringLiteral(":broadcast_mm") << QStringLiteral("f32:4x5,f32:4x4")
                                        << QStringLiteral("failed on its first call");
    }

    void badKernelSpecsFailWithTheirReason()
    {
        QFETCH(QString, kernel);
        QFETCH(QString, inputs);
        QFETCH(QString, expected);
        SessionConfig c = base(SessionMode::Kernel, "badkernel");
        c.kernel = kernel.toStdString();
        c.reference = testutil::sessionData("kernels.py") + ":reference_mm";
        c.inputs = inputs.toStdString();
        const SessionResult r = runSession(c, tools(), nullptr);
        QVERIFY(r.status == SessionResult::Status::Failed);
        QVERIFY2(r.error.find(expected.toStdString()) != std::string::npos, r.error.c_str());
        QCOMPARE(r.manifest.status, std::string("failed"));
    }

    void crashingScriptFailsClearlyAndKeepsThePartialTrace()
    {
        SessionConfig c = base(SessionMode::Script, "crash");
        c.script = testutil::sessionData("crash.py");
        const SessionResult r = runSession(c, tools(), nullptr);
        QVERIFY(r.status == SessionResult::Status::Failed);
        QVERIFY2(r.error.find("exited with code 1") != std::string::npos, r.error.c_str());
        QVERIFY2(r.error.find("ValueError: tilescope test crash") != std::string::npos, r.error.c_str());
        bool traceback = false;
        for (const std::string& line : r.stderrTail)
            traceback = traceback || line.find("crash.py") != std::string::npos;
        QVERIFY(traceback);
        QVERIFY(!r.tracePath.empty());
        const auto t = trace::loadTrace(r.tracePath);
        QCOMPARE(testutil::countNamed(*t, "aten::mm"), 1);
    }

    void missingTorchIsSaidPlainly()
    {
        SessionConfig c = base(SessionMode::Script, "notorch");
        c.script = testutil::sessionData("train_loop.py");
        c.environment = {{"PYTHONPATH", testutil::sessionData("no_torch")}};
        const SessionResult r = runSession(c, tools(), nullptr);
        QVERIFY(r.status == SessionResult::Status::Failed);
        QVERIFY2(r.error.find("torch is not installed for /usr/bin/python3") != std::string::npos, r.error.c_str());
    }

    // Without a named interpreter, the first candidate whose torch imports: here the system python
    // after a python3 without torch and a conda env that is not there.
    void pythonWithTorchIsFound()
    {
        const std::string noTorch = (std::filesystem::path(m_tmp.path().toStdString()) / "python-without-torch").string();
        {
            std::ofstream script(noTorch);
            script << "#!/bin/sh\nexit 1\n";
        }
        std::filesystem::permissions(noTorch, std::filesystem::perms::owner_all);
        QVERIFY(pythonHasTorch(kPython));
        QVERIFY(!pythonHasTorch(noTorch));
        QVERIFY(!pythonHasTorch("/nonexistent/bin/python"));

        PythonCandidates candidates;
        candidates.onPath = noTorch;
        candidates.condaPrefix = "/nonexistent/conda/bin/python";
        candidates.system = kPython;
        const TorchPython found = findTorchPython(candidates);
        QVERIFY(found.hasTorch);
        QCOMPARE(found.python, std::string(kPython));
        QCOMPARE(found.tried, (std::vector<std::string>{noTorch, kPython}));
        QCOMPARE(found.note, noTorch + " on PATH has no torch; using " + kPython + ", the system python");

        candidates.system = noTorch;
        const TorchPython none = findTorchPython(candidates);
        QVERIFY(!none.hasTorch);
        QCOMPARE(none.python, noTorch); // the harness then says torch is missing, as before
        QVERIFY2(none.note.starts_with("no python with torch found (tried " + noTorch + ")"), none.note.c_str());

        candidates.onPath = kPython;
        const TorchPython first = findTorchPython(candidates);
        QCOMPARE(first.python, std::string(kPython));
        QVERIFY(first.note.empty());
    }

    void missingInterpreterIsAStartError()
    {
        SessionConfig c = base(SessionMode::Script, "nopython");
        c.script = testutil::sessionData("train_loop.py");
        c.python = "/nonexistent/venv/bin/python";
        const SessionResult r = runSession(c, tools(), nullptr);
        QVERIFY(r.status == SessionResult::Status::Failed);
        QVERIFY2(r.error.find("cannot run '/nonexistent/venv/bin/python'") != std::string::npos, r.error.c_str());
    }

    void hangingScriptTimesOutWithNoOrphans()
    {
        SessionConfig c = base(SessionMode::Script, "hang");
        c.script = testutil::sessionData("hang.py");
        c.timeoutSeconds = 6;
        const SessionResult r = runSession(c, tools(), nullptr);
        QVERIFY(r.status == SessionResult::Status::TimedOut);
        QVERIFY2(r.error.find("timed out after 6 s") != std::string::npos, r.error.c_str());
        QVERIFY(r.seconds < 30);
        // The group was sent SIGKILL; its delivery is asynchronous (under load a process may still be listed for
        // some milliseconds): what must not happen is a process surviving it.
        QTRY_COMPARE_WITH_TIMEOUT(processesWith("tilescope-hang-child"), 0, 5000);
        QTRY_COMPARE_WITH_TIMEOUT(processesWith(testutil::sessionData("hang.py")), 0, 5000);
    }

    void cancelEndsTheSession()
    {
        SessionConfig c = base(SessionMode::Script, "cancel");
        c.script = testutil::sessionData("hang.py");
        std::atomic<bool> cancel{false};
        const SessionResult r = runSession(
            c, tools(),
            [&](const SessionEvent& e) {
                if (e.message.starts_with("child "))
                    cancel = true; // the script is running and has started its own child
            },
            &cancel);
        QVERIFY(r.status == SessionResult::Status::Cancelled);
        QVERIFY(r.seconds < 30);
        QTRY_COMPARE_WITH_TIMEOUT(processesWith("tilescope-hang-child"), 0, 5000); // as above: SIGKILL lands asynchronously
    }

    void exportedHarnessRunsOnItsOwn()
    {
        SessionConfig c = base(SessionMode::Kernel, "unused");
        c.kernel = testutil::sessionData("kernels.py") + ":broadcast_mm";
        c.reference = testutil::sessionData("kernels.py") + ":reference_mm";
        c.inputs = "f32:8x8,f32:8x8";
        c.warmupIterations = 1;
        c.measuredIterations = 2;
        const std::string script = out("exported_session.py");
        writeExportedHarness(c, tools().harness, script);
        QVERIFY(testutil::readFile(script).find("EMBEDDED_CONFIG = json.loads(") != std::string::npos);
        const std::string remote = out("remote");
        QProcess p;
        p.start(QString::fromLatin1(kPython), {QString::fromStdString(script), QStringLiteral("--out"), QString::fromStdString(remote)});
        QVERIFY(p.waitForFinished(120000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const SessionManifest m = readSessionManifest(remote + "/tilescope-session.json");
        QCOMPARE(m.status, std::string("ok"));
        QCOMPARE(testutil::countNamed(*trace::loadTrace(m.trace), "torch_ref"), 2);
        QVERIFY(!fs::exists(c.outputDirectory)); // --out replaced the embedded folder
    }

    void commandSessionFindsItsTrace()
    {
        SessionConfig c = base(SessionMode::Command, "command");
        // A memory timeline written after the trace is not taken for it.
        c.command = "cp " + testutil::dataPath("legacy/cpu_mlp/trace.json")
            + " {out}/from_command.json && echo '[[1], [[0, 0, 0, 0, 0, 0, 0, 0, 0]]]' > {out}/run_memory_timeline.json";
        const SessionResult r = runSession(c, tools(), nullptr);
        QVERIFY2(r.status == SessionResult::Status::Ok, r.error.c_str());
        QCOMPARE(fs::path(r.tracePath).filename().string(), std::string("from_command.json"));
        QCOMPARE(r.manifest.status, std::string("ok"));
    }

    void torchscriptWithoutTheToolSaysWhy()
    {
        SessionConfig c = base(SessionMode::TorchScript, "notool");
        c.torchscript = testutil::sessionData("train_loop.py"); // any existing file: the tool check comes first
        SessionTools none = tools();
        none.torchTool.clear();
        const SessionResult r = runSession(c, none, nullptr);
        QVERIFY(r.status == SessionResult::Status::Failed);
        QVERIFY2(r.error.find("tilescope-torch") != std::string::npos, r.error.c_str());
    }

#ifdef TILESCOPE_TORCH_TOOL
    void torchscriptSessionThroughLibTorch()
    {
        SessionConfig c = base(SessionMode::TorchScript, "torchscript");
        c.torchscript = testutil::dataPath("torchscript/mlp.pt");
        c.inputs = "f32:8x32";
        c.warmupIterations = 2;
        c.measuredIterations = 3;
        int profileSteps = 0;
        const SessionResult r = runSession(
            c, tools(), [&](const SessionEvent& e) { profileSteps += e.kind == SessionEvent::Kind::Phase && e.phase == "profile"; });
        QVERIFY2(r.status == SessionResult::Status::Ok, r.error.c_str());
        QCOMPARE(profileSteps, 3);
        QCOMPARE(r.manifest.mode, std::string("torchscript"));
        const auto t = trace::loadTrace(r.tracePath);
        QCOMPARE(testutil::countNamed(*t, "torchscript_forward"), 3);
        QCOMPARE(testutil::countNamed(*t, "aten::addmm"), 9); // three Linear layers a call
    }

    void calibrateSessionWritesCeilings()
    {
        SessionConfig c = base(SessionMode::Calibrate, "calibrate");
        c.quick = true;
        const SessionResult r = runSession(c, tools(), nullptr);
        QVERIFY2(r.status == SessionResult::Status::Ok, r.error.c_str());
        const auto measured = roofline::loadMeasuredCeilings(r.calibrationPath);
        QVERIFY(measured.memoryBytesPerS && *measured.memoryBytesPerS > 1e8);
        QVERIFY(measured.fp32 && *measured.fp32 > 1e7);
        QCOMPARE(r.manifest.mode, std::string("calibrate"));
        // A GPU that is not there is a clear failure, not a hang or a crash.
        SessionConfig gpu = base(SessionMode::Calibrate, "calibrate-gpu");
        gpu.device = "cuda:0";
        gpu.quick = true;
        const SessionResult g = runSession(gpu, tools(), nullptr);
        QVERIFY(g.status == SessionResult::Status::Failed);
        QVERIFY2(g.error.find("CUDA requested") != std::string::npos, g.error.c_str());
    }
#endif

    void cliCapturePrintsTheTracePath()
    {
        const QString dir = QString::fromStdString(out("cli"));
        const CliResult r = runCli({QStringLiteral("capture"), QStringLiteral("--script"),
                                    QString::fromStdString(testutil::sessionData("train_loop.py")), QStringLiteral("--python"),
                                    QString::fromLatin1(kPython), QStringLiteral("--out"), dir, QStringLiteral("--quiet"),
                                    QStringLiteral("--"), QStringLiteral("3")});
        QVERIFY2(r.exitCode == 0, r.err.c_str());
        QCOMPARE(r.out, dir.toStdString() + "/trace.pt.trace.json\n");
        QVERIFY(r.err.find("[export]") != std::string::npos);
        QVERIFY(testutil::countNamed(*trace::loadTrace(dir.toStdString() + "/trace.pt.trace.json"), "train_step") == 3);
    }

    void cliCaptureRefusesTheMemoryOptionsClearly()
    {
        if (torchHasCuda())
            QSKIP("this torch sees a CUDA device");
        const QString dir = QString::fromStdString(out("climemory"));
        CliResult r = runCli({QStringLiteral("capture"), QStringLiteral("--script"),
                              QString::fromStdString(testutil::sessionData("train_loop.py")), QStringLiteral("--python"),
                              QString::fromLatin1(kPython), QStringLiteral("--memory-snapshot"), QStringLiteral("--memory-timeline"),
                              QStringLiteral("--out"), dir, QStringLiteral("--quiet"), QStringLiteral("--"), QStringLiteral("2")});
        QCOMPARE(r.exitCode, 1);
        const std::string sentence = "--memory-snapshot and --memory-timeline need CUDA and torch \u2265 2.1 (torch " + torchVersion();
        QVERIFY2(r.err.find("capture failed: python3 exited with code 1: --memory-snapshot") != std::string::npos, r.err.c_str());
        QVERIFY2(r.err.find(sentence) != std::string::npos, r.err.c_str());
        QVERIFY2(r.err.find("Traceback") == std::string::npos, r.err.c_str());
        QVERIFY(r.out.empty());
        QVERIFY(!fs::exists(dir.toStdString() + "/" + kTraceFile));
        // A TorchScript session cannot record them: refused as bad usage before anything starts.
        r = runCli({QStringLiteral("capture"), QStringLiteral("--torchscript"),
                    QString::fromStdString(testutil::sessionData("train_loop.py")), QStringLiteral("--inputs"), QStringLiteral("f32:4"),
                    QStringLiteral("--memory-snapshot"), QStringLiteral("--out"), QString::fromStdString(out("climemory-ts"))});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.find("only in script and kernel sessions, not in a torchscript session") != std::string::npos, r.err.c_str());
        r = runCli({QStringLiteral("capture"), QStringLiteral("--script"), QStringLiteral("x.py"),
                    QStringLiteral("--memory-snapshot-entries"), QStringLiteral("0")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.find("--memory-snapshot-entries expects a whole number >= 1") != std::string::npos, r.err.c_str());
        r = runCli({QStringLiteral("capture"), QStringLiteral("--script"), QStringLiteral("x.py"), QStringLiteral("--memory-snapshot=1")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.find("--memory-snapshot takes no value") != std::string::npos, r.err.c_str());
    }

    // What the Profile dialog shows as its command line is what the CLI runs: parsed back by the real
    // tilescope-cli (--save-config writes the config it parsed; --export-harness or a validation problem
    // stops it before anything runs), it is the same config.
    void captureArgumentsParseBackToTheSameConfig()
    {
        std::vector<SessionConfig> configs;
        SessionConfig script = base(SessionMode::Script, "args-script");
        script.script = "/some where/train.py";
        script.args = {"--epochs", "2", "a b", "", "it's"};
        script.schedule = ProfileSchedule{0, 1, 3, 2};
        script.memorySnapshot = true;
        script.memoryTimeline = true;
        script.memorySnapshotMaxEntries = 2500;
        script.environment = {{"CUDA_VISIBLE_DEVICES", "1"}, {"X", "a=b c"}};
        script.workingDirectory = "/tmp";
        script.timeoutSeconds = 12.5;
        script.recordShapes = false;
        script.withStack = true;
        script.withFlops = false;
        script.profileMemory = true;
        configs.push_back(script);
        SessionConfig kernel = base(SessionMode::Kernel, "args-kernel");
        kernel.kernel = "k.py:build";
        kernel.kernelFactory = true;
        kernel.reference = "pkg.mod:ref";
        kernel.inputs = "bf16:64x128,f32:";
        kernel.flopsPerCall = 137438953472.0;
        kernel.bytesPerCall = 0.1;
        kernel.refFlopsPerCall = 3;
        kernel.rtol = 1e-5;
        kernel.atol = 0.25;
        kernel.warmupIterations = 0;
        kernel.measuredIterations = 7;
        kernel.cpuActivity = false;
        kernel.device = "cuda:1";
        kernel.memorySnapshot = true;
        configs.push_back(kernel);
        SessionConfig cpu = base(SessionMode::Script, "args-cpu");
        cpu.script = "t.py";
        cpu.cudaActivity = false;
        configs.push_back(cpu);
        SessionConfig command = base(SessionMode::Command, "args-command");
        command.command = "{python} train.py 'no out here'"; // no {out}: the CLI stops at validation
        command.cpuActivity = command.cudaActivity = false;
        configs.push_back(command);
        SessionConfig torchscript = base(SessionMode::TorchScript, "args-ts");
        torchscript.torchscript = "/nonexistent/model.pt"; // stops at validation
        torchscript.inputs = "f32:8x32";
        configs.push_back(torchscript);
        int n = 0;
        for (const SessionConfig& c : configs) {
            const std::vector<std::string> argv = captureArguments(c);
            QCOMPARE(argv.at(0), std::string("tilescope-cli"));
            QCOMPARE(argv.at(1), std::string("capture"));
            // The line the dialog shows splits back into the same words.
            QCOMPARE(splitCommandLine(shellQuoted(argv)), argv);
            const std::string saved = out(("args-" + std::to_string(++n) + ".json").c_str());
            QStringList args;
            for (size_t i = 1; i < argv.size(); ++i)
                args << QString::fromStdString(argv[i]);
            const auto dashes = args.indexOf(QStringLiteral("--"));
            const QStringList extra = {QStringLiteral("--save-config"), QString::fromStdString(saved), QStringLiteral("--export-harness"),
                                       QString::fromStdString(saved + ".py")};
            if (dashes < 0)
                args << extra;
            else
                for (qsizetype i = 0; i < extra.size(); ++i)
                    args.insert(dashes + i, extra[i]);
            const CliResult r = runCli(args);
            QVERIFY2(fs::exists(saved), (shellQuoted(argv) + "\n" + r.err).c_str());
            QCOMPARE(toJson(readSessionConfig(saved)), toJson(c));
        }
        // Defaults stay off the line: a plain script session is short.
        SessionConfig plain;
        plain.script = "t.py";
        plain.outputDirectory = "o";
        QCOMPARE(shellQuoted(captureArguments(plain)), std::string("tilescope-cli capture --script t.py --out o"));
    }

    void cliCaptureExitCodes()
    {
        const QString k = QString::fromStdString(testutil::sessionData("kernels.py"));
        CliResult r = runCli({QStringLiteral("capture"), QStringLiteral("--kernel"), k + QStringLiteral(":wrong_mm"),
                              QStringLiteral("--ref"), k + QStringLiteral(":reference_mm"), QStringLiteral("--inputs"),
                              QStringLiteral("f32:8x8,f32:8x8"), QStringLiteral("--python"), QString::fromLatin1(kPython),
                              QStringLiteral("--warmup"), QStringLiteral("1"), QStringLiteral("--out"),
                              QString::fromStdString(out("cliwrong"))});
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(r.err.find("check allclose: FAILED") != std::string::npos, r.err.c_str());
        r = runCli({QStringLiteral("capture"), QStringLiteral("--script"), QString::fromStdString(testutil::sessionData("crash.py")),
                    QStringLiteral("--python"), QString::fromLatin1(kPython), QStringLiteral("--out"),
                    QString::fromStdString(out("clicrash"))});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.find("capture failed") != std::string::npos && r.err.find("tilescope test crash") != std::string::npos,
                 r.err.c_str());
        QVERIFY(r.err.find("a partial trace was written") != std::string::npos);
        r = runCli({QStringLiteral("capture"), QStringLiteral("--script"), QStringLiteral("x.py"), QStringLiteral("--schedule"),
                    QStringLiteral("1,2")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.find("--schedule expects WAIT,WARMUP,ACTIVE,REPEAT") != std::string::npos, r.err.c_str());
        r = runCli({QStringLiteral("capture"), QStringLiteral("--script"), QStringLiteral("/nonexistent.py"), QStringLiteral("--out"),
                    QStringLiteral("o")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.find("script '/nonexistent.py' does not exist") != std::string::npos, r.err.c_str());
    }
};

QTEST_GUILESS_MAIN(TestSession)
#include "tst_session.moc"
