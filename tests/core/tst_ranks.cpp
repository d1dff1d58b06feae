// SPDX-License-Identifier: MIT
// Several ranks (issue #13): the rank set, per-rank figures against the raw events (read here with nlohmann,
// intervals merged here), the straggler verdict on real 4-rank gloo runs (rank 2 slow, and even), bad
// folders, and the CLI's `ranks` schema and per-rank runs of other commands.
#include "testutil.h"

#include "analysis/ranks.h"
#include "io/smalljson.h"
#include "io/tracefileerror.h"
#include "report/ranksreport.h"
#include "trace/rankset.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

using namespace tilescope;

namespace {

std::string glooFolder(const char* run) { return testutil::dataPath(std::string("ranks/gloo/") + run); }
std::string htaFolder() { return testutil::dataPath("ranks/hta"); }

int64_t ns(const io::Json& us) { return std::llround(static_cast<long double>(us.get<double>()) * 1000.0L); }

struct Span
{
    int64_t start, end;
};

// |union of `spans` ∩ [start, end)|, merged here.
int64_t unionWithin(std::vector<Span> spans, int64_t start, int64_t end)
{
    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.start < b.start; });
    int64_t total = 0, coveredTo = start;
    for (const Span& s : spans) {
        const int64_t from = std::max({s.start, coveredTo, start}), to = std::min(s.end, end);
        if (to > from) {
            total += to - from;
            coveredTo = to;
        }
    }
    return total;
}

// What a rank's figures must be, from its raw JSON: steps are the ProfilerStep#N annotations; collectives
// the NCCL kernels, else the gloo:/nccl: host spans.
struct Expected
{
    int64_t rank = -1, worldSize = -1;
    uint32_t steps = 0;
    int64_t stepMedian = 0, gpuBusy = 0, computePerStep = 0, collectivePerStep = 0;
};

Expected expectedFromRaw(const std::string& path)
{
    const io::Json doc = io::readSmallJsonFile(path);
    Expected x;
    x.rank = doc["distributedInfo"]["rank"].get<int64_t>();
    x.worldSize = doc["distributedInfo"]["world_size"].get<int64_t>();
    std::vector<Span> steps, gpu, compute, ncclKernels, hostCollectives;
    for (const io::Json& e : doc["traceEvents"]) {
        if (e.value("ph", "") != "X")
            continue;
        const std::string name = e.value("name", ""), cat = e.value("cat", "");
        const Span s{ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])};
        if (cat == "user_annotation" && name.starts_with("ProfilerStep#"))
            steps.push_back(s);
        if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset")
            gpu.push_back(s);
        const bool nccl = cat == "kernel"
            && (name.find("ncclKernel_") != std::string::npos || name.find("ncclDevKernel_") != std::string::npos);
        if (nccl)
            ncclKernels.push_back(s);
        else if (cat == "kernel")
            compute.push_back(s);
        if ((cat == "cpu_op" || cat == "user_annotation") && (name.starts_with("gloo:") || name.starts_with("nccl:")))
            hostCollectives.push_back(s);
    }
    const std::vector<Span>& collectives = ncclKernels.empty() ? hostCollectives : ncclKernels;
    std::vector<int64_t> durations;
    int64_t computeTotal = 0, collectiveTotal = 0;
    for (const Span& step : steps) {
        durations.push_back(step.end - step.start);
        x.gpuBusy += unionWithin(gpu, step.start, step.end);
        computeTotal += unionWithin(compute, step.start, step.end);
        collectiveTotal += unionWithin(collectives, step.start, step.end);
    }
    x.steps = uint32_t(steps.size());
    std::sort(durations.begin(), durations.end());
    x.stepMedian = durations.empty() ? 0 : durations[(durations.size() - 1) / 2];
    x.computePerStep = steps.empty() ? 0 : computeTotal / int64_t(steps.size());
    x.collectivePerStep = steps.empty() ? 0 : collectiveTotal / int64_t(steps.size());
    return x;
}

analysis::RanksReport ranksOf(const std::string& folder)
{
    return analysis::computeRanks(trace::loadRankSet(trace::traceFilesInFolder(folder)));
}

// The message of the TraceFileError `f` throws; "" when it throws none.
template <typename F> std::string errorOf(F&& f)
{
    try {
        f();
    } catch (const io::TraceFileError& e) {
        return e.what();
    }
    return {};
}

void copyFile(const std::string& from, const std::string& to) { std::filesystem::copy_file(from, to); }

using Run = testutil::ProcessRun;
Run cli(const QStringList& arguments) { return testutil::runProcess(QStringLiteral(TILESCOPE_CLI), arguments); }

} // namespace

class TestRanks : public QObject
{
    Q_OBJECT

private slots:
    void figuresEqualTheRawEvents_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::newRow("gloo slow") << QString::fromStdString(glooFolder("slow"));
        QTest::newRow("gloo even") << QString::fromStdString(glooFolder("even"));
        QTest::newRow("hta nccl") << QString::fromStdString(htaFolder());
    }
    void figuresEqualTheRawEvents()
    {
        QFETCH(QString, folder);
        const std::vector<std::string> files = trace::traceFilesInFolder(folder.toStdString());
        const analysis::RanksReport report = ranksOf(folder.toStdString());
        QCOMPARE(report.ranks.size(), files.size());
        std::vector<Expected> expected;
        for (const std::string& f : files)
            expected.push_back(expectedFromRaw(f));
        std::sort(expected.begin(), expected.end(), [](const Expected& a, const Expected& b) { return a.rank < b.rank; });
        for (size_t i = 0; i < expected.size(); ++i) {
            const analysis::RankFigures& got = report.ranks[i];
            const Expected& want = expected[i];
            QCOMPARE(report.worldSize, want.worldSize);
            QCOMPARE(got.rank, want.rank);
            QVERIFY(want.steps >= 2); // the fixtures have steps: the figures below are per step
            QCOMPARE(got.steps, want.steps);
            QVERIFY(got.hasSteps);
            QCOMPARE(got.stepMedianNs, want.stepMedian);
            QCOMPARE(got.gpuBusyNs, want.gpuBusy);
            QCOMPARE(got.computeNsPerStep, want.computePerStep);
            QVERIFY(want.collectivePerStep > 0);
            QCOMPARE(got.collectiveNsPerStep, want.collectivePerStep);
        }
    }

    void theSlowRankIsTheStraggler()
    {
        const analysis::RanksReport slow = ranksOf(glooFolder("slow"));
        QCOMPARE(slow.worldSize, int64_t(4));
        QVERIFY(slow.verdict.applicable);
        QCOMPARE(slow.verdict.stragglers, std::vector<int64_t>{2});
        for (const analysis::RankFigures& r : slow.ranks)
            QCOMPARE(r.collectiveSource, analysis::CollectiveSource::HostOps);
        // The evidence: rank 2 waits least, and its compute per step is the largest (7x the GEMMs).
        const auto& e = slow.verdict.evidence;
        QVERIFY(e[2].straggler);
        QVERIFY(e[2].waitRatio < analysis::kStragglerWaitRatio);
        for (size_t i = 0; i < 4; ++i)
            if (i != 2) {
                QVERIFY(!e[i].straggler);
                QVERIFY(slow.ranks[i].collectiveNsPerStep > slow.ranks[2].collectiveNsPerStep);
                QVERIFY(slow.ranks[2].computeNsPerStep > 5 * slow.ranks[i].computeNsPerStep);
            }
        // The table names the rank ("rank 2"; a bare "2" read as a count); several are listed as ranks.
        QVERIFY(report::ranksText(slow).ends_with("\nstraggler: rank 2 (the others wait for it inside the collectives)\n"));
        analysis::RanksReport two = slow;
        two.verdict.stragglers = {1, 2, 3};
        QVERIFY(report::ranksText(two).ends_with("\nstragglers: ranks 1, 2 and 3 (the others wait for them inside the collectives)\n"));
        // A median of an even count of steps is the lower middle one, and the text says so only then.
        const std::string medians = "\nmedians: of an even count of steps, the lower middle one";
        analysis::RanksReport even = slow, odd = slow;
        for (analysis::RankFigures& f : even.ranks)
            f.steps = 2;
        for (analysis::RankFigures& f : odd.ranks)
            f.steps = 3;
        QVERIFY(report::ranksText(even).find(medians) != std::string::npos);
        QVERIFY(report::ranksText(odd).find(medians) == std::string::npos);
    }

    void noStragglerWhenNoRankStandsOut()
    {
        const analysis::RanksReport even = ranksOf(glooFolder("even"));
        QVERIFY(even.verdict.applicable);
        QVERIFY(even.verdict.stragglers.empty());
        for (const auto& e : even.verdict.evidence)
            QVERIFY(e.waitRatio > analysis::kStragglerWaitRatio);
    }

    void theRuleOnHandMadeFigures()
    {
        const auto rank = [](int64_t r, int64_t waitNs, int64_t stepNs = 1000000) {
            analysis::RankFigures f;
            f.rank = r;
            f.collectiveNsPerStep = waitNs;
            f.stepMedianNs = stepNs;
            f.collectiveSource = analysis::CollectiveSource::HostOps;
            return f;
        };
        // 0.5x the others and 100 us shorter on a 1 ms step: a straggler.
        QCOMPARE(analysis::findStragglers({rank(0, 200000), rank(1, 200000), rank(2, 100000), rank(3, 200000)}).stragglers,
                 std::vector<int64_t>{2});
        // Far below in ratio, but only 4% of the step shorter: noise.
        QVERIFY(analysis::findStragglers({rank(0, 50000), rank(1, 50000), rank(2, 10000), rank(3, 50000)}).stragglers.empty());
        // 0.65x: within the others' spread.
        QVERIFY(analysis::findStragglers({rank(0, 200000), rank(1, 200000), rank(2, 130000), rank(3, 200000)}).stragglers.empty());
        // One rank: nothing to compare with.
        const auto alone = analysis::findStragglers({rank(0, 1000)});
        QVERIFY(!alone.applicable);
        QVERIFY(alone.stragglers.empty());
        // A rank without collectives: not sought (a missing record is no evidence).
        auto none = rank(1, 0);
        none.collectiveSource = analysis::CollectiveSource::None;
        QVERIFY(analysis::findStragglers({rank(0, 200000), none, rank(2, 200000)}).stragglers.empty());
    }

    void filesInAnyOrderGiveTheSameSet()
    {
        std::vector<std::string> files = trace::traceFilesInFolder(glooFolder("slow"));
        std::reverse(files.begin(), files.end());
        trace::RankSetLoadOptions serial;
        serial.threads = 1;
        const trace::RankSet set = trace::loadRankSet(files, serial);
        QCOMPARE(set.ranks.size(), size_t(4));
        for (size_t i = 0; i < 4; ++i) {
            QCOMPARE(set.ranks[i].rank, int64_t(i));
            QVERIFY(set.ranks[i].file.ends_with("rank-" + std::to_string(i) + ".json.gz"));
            QCOMPARE(set.ranks[i].backend, std::string("gloo"));
        }
    }

    // Files loading side by side share the cores as a limit, not as a thread count asked for: a small
    // rank file streams as it would alone (a set of one or two small files once went parallel).
    void smallRankFilesStream()
    {
        if (qEnvironmentVariableIsSet("TILESCOPE_LOAD_THREADS") || trace::loadThreads({}) < 2)
            QSKIP("needs two cores and the thread count left to the loader");
        const trace::RankSet set = trace::loadRankSet({glooFolder("slow") + "/rank-0.json.gz"});
        QCOMPARE(set.ranks.size(), size_t(1));
        QCOMPARE(set.ranks[0].trace->stats.parallelChunks, 0u);
    }

    // A run's folder also holds other JSON (meta.json, torch's key averages, a memory timeline): with
    // a folder they are passed over and named; a damaged trace is an error still.
    void filesThatAreNotTracesArePassedOver()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string run = dir.path().toStdString() + "/run";
        std::filesystem::create_directory(run);
        for (int r = 0; r < 4; ++r)
            copyFile(glooFolder("slow") + "/rank-" + std::to_string(r) + ".json.gz", run + "/rank-" + std::to_string(r) + ".json.gz");
        std::ofstream(run + "/meta.json") << R"({"workload": "slow", "ranks": 4})";
        std::ofstream(run + "/ref_key_averages.json") << R"([{"key": "aten::mm"}])";
        const auto loadFolder = [](const std::string& folder) {
            trace::RankSetLoadOptions options;
            const auto files = trace::expandRankPaths({folder}, &options.folderFiles);
            return trace::loadRankSet(files, options);
        };
        const trace::RankSet set = loadFolder(run);
        QCOMPARE(set.ranks.size(), size_t(4));
        QCOMPARE(set.skipped.size(), size_t(2));
        QVERIFY2(testutil::contains(set.skipped[0], run + "/meta.json") && testutil::contains(set.skipped[0], "no 'traceEvents' array"),
                 set.skipped[0].c_str());
        QVERIFY(testutil::contains(set.skipped[1], run + "/ref_key_averages.json"));
        QCOMPARE(analysis::computeRanks(set).skipped, set.skipped);
        // Named on its own, every file must be a trace.
        std::string error = errorOf([&] { trace::loadRankSet(trace::traceFilesInFolder(run)); });
        QVERIFY2(testutil::contains(error, run + "/meta.json"), error.c_str());
        std::set<std::string> fromFolders;
        const auto files = trace::expandRankPaths({glooFolder("slow"), run + "/meta.json"}, &fromFolders);
        QCOMPARE(files.back(), run + "/meta.json");
        QVERIFY(!fromFolders.contains(run + "/meta.json") && fromFolders.contains(glooFolder("slow") + "/rank-0.json.gz"));
        // A damaged trace is not passed over, nor is a top-level array cut inside its first event, or whose
        // first event lacks a field.
        const std::vector<std::string> damagedFiles = {"{\"traceEvents\": [ {\"ph\": \"X\", ",
                                                       "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"du",
                                                       "[{\"ph\":\"X\",\"name\":\"a\",\"dur\":2,\"pid\":1,\"tid\":1}]",
                                                       "[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{}}, {\"ph\":"};
        for (const std::string& damaged : damagedFiles) {
            std::ofstream(run + "/rank-9.json") << damaged;
            error = errorOf([&] { loadFolder(run); });
            QVERIFY2(testutil::contains(error, run + "/rank-9.json"), (damaged + " -> " + error).c_str());
            std::filesystem::remove(run + "/rank-9.json");
        }
        // A folder of one trace without a rank says to open it by itself.
        const std::string single = dir.path().toStdString() + "/single";
        std::filesystem::create_directory(single);
        std::ofstream(single + "/trace.json") << R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2, "pid": 1, "tid": 1}]})";
        std::ofstream(single + "/meta.json") << "{}";
        error = errorOf([&] { loadFolder(single); });
        QVERIFY2(testutil::contains(error, single + "/trace.json") && testutil::contains(error, "open it by itself"), error.c_str());
        // Nothing but files that are not traces: the first one's error, and that the others are none either.
        std::filesystem::remove(single + "/trace.json");
        std::ofstream(single + "/other.json") << "[1, 2]";
        error = errorOf([&] { loadFolder(single); });
        QVERIFY2(testutil::contains(error, single + "/meta.json") && testutil::contains(error, "nor is any of the other 1 file a trace"),
                 error.c_str());
    }

    void badFoldersAndFiles()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string root = dir.path().toStdString();
        // An empty folder.
        const std::string empty = root + "/empty";
        std::filesystem::create_directory(empty);
        std::string error = errorOf([&] { trace::traceFilesInFolder(empty); });
        QVERIFY2(testutil::contains(error, empty) && testutil::contains(error, "no trace files"), error.c_str());
        // A missing folder.
        error = errorOf([&] { trace::traceFilesInFolder(root + "/missing"); });
        QVERIFY2(testutil::contains(error, root + "/missing"), error.c_str());
        // The same rank twice.
        const std::string twice = root + "/twice";
        std::filesystem::create_directory(twice);
        copyFile(glooFolder("slow") + "/rank-1.json.gz", twice + "/a.json.gz");
        copyFile(glooFolder("slow") + "/rank-1.json.gz", twice + "/b.json.gz");
        error = errorOf([&] { trace::loadRankSet(trace::traceFilesInFolder(twice)); });
        QVERIFY2(testutil::contains(error, twice + "/b.json.gz") && testutil::contains(error, "rank 1 again")
                     && testutil::contains(error, twice + "/a.json.gz"),
                 error.c_str());
        // A file that is no trace, among good ones: the error names it.
        const std::string broken = root + "/broken";
        std::filesystem::create_directory(broken);
        copyFile(glooFolder("slow") + "/rank-0.json.gz", broken + "/rank-0.json.gz");
        std::ofstream(broken + "/rank-1.json") << "{\"traceEvents\": [ {\"ph\": \"X\", ";
        error = errorOf([&] { trace::loadRankSet(trace::traceFilesInFolder(broken)); });
        QVERIFY2(testutil::contains(error, broken + "/rank-1.json"), error.c_str());
        // An unreadable file.
        const std::string missing = root + "/nothing.json";
        error = errorOf([&] { trace::loadRankSet({glooFolder("slow") + "/rank-0.json.gz", missing}); });
        QVERIFY2(testutil::contains(error, missing), error.c_str());
        // No distributedInfo.
        const std::string plain = root + "/plain.json";
        std::ofstream(plain) << R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2, "pid": 1, "tid": 1}]})";
        error = errorOf([&] { trace::loadRankSet({plain}); });
        QVERIFY2(testutil::contains(error, plain) && testutil::contains(error, "distributedInfo"), error.c_str());
        // Mixed world sizes.
        const std::string other = root + "/other.json";
        std::ofstream(other) << R"({"distributedInfo": {"backend": "gloo", "rank": 3, "world_size": 8},
            "traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2, "pid": 1, "tid": 1}]})";
        error = errorOf([&] { trace::loadRankSet({glooFolder("slow") + "/rank-0.json.gz", other}); });
        QVERIFY2(testutil::contains(error, other) && testutil::contains(error, "world size 8") && testutil::contains(error, "world size 4"),
                 error.c_str());
        // A rank outside the world.
        const std::string outside = root + "/outside.json";
        std::ofstream(outside) << R"({"distributedInfo": {"rank": 4, "world_size": 4},
            "traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2, "pid": 1, "tid": 1}]})";
        error = errorOf([&] { trace::loadRankSet({outside}); });
        QVERIFY2(testutil::contains(error, outside) && testutil::contains(error, "not below the world size"), error.c_str());
    }

    void cliRanksJson()
    {
        const Run run = cli(
            {QStringLiteral("ranks"), QString::fromStdString(glooFolder("slow")), QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(run.exitCode, 0);
        const io::Json out = io::parseSmallJson(run.out.toStdString(), "ranks output");
        std::vector<std::string> keys;
        for (const auto& [k, v] : out.items())
            keys.push_back(k);
        QCOMPARE(keys, (std::vector<std::string>{"world_size", "ranks", "stragglers", "rule"}));
        QCOMPARE(out["world_size"].get<int64_t>(), int64_t(4));
        QCOMPARE(out["stragglers"], io::Json::array({2}));
        QVERIFY(testutil::contains(out["rule"].get<std::string>(), "0.6x"));
        QCOMPARE(out["ranks"].size(), size_t(4));
        const analysis::RanksReport report = ranksOf(glooFolder("slow"));
        for (size_t i = 0; i < 4; ++i) {
            const io::Json& row = out["ranks"][i];
            for (const char* key :
                 {"rank", "file", "steps", "step_us_median", "gpu_busy_us", "compute_us_per_step", "collective_wait_us_per_step"})
                QVERIFY2(row.contains(key), key);
            QCOMPARE(row["rank"].get<int64_t>(), int64_t(i));
            QVERIFY(row["file"].get<std::string>().ends_with("rank-" + std::to_string(i) + ".json.gz"));
            QCOMPARE(row["steps"].get<int64_t>(), int64_t(6));
            QCOMPARE(ns(row["collective_wait_us_per_step"]), report.ranks[i].collectiveNsPerStep);
            QCOMPARE(ns(row["step_us_median"]), report.ranks[i].stepMedianNs);
            QCOMPARE(row["straggler"].get<bool>(), i == 2);
        }
        // Files given one by one, and the table.
        const QString dir = QString::fromStdString(glooFolder("even"));
        const Run table = cli({QStringLiteral("ranks"), dir + QStringLiteral("/rank-0.json.gz"), dir + QStringLiteral("/rank-1.json.gz")});
        QCOMPARE(table.exitCode, 0);
        QVERIFY2(table.out.contains("world size 4, 2 ranks loaded") && table.out.contains("stragglers: none"), table.out.constData());
        // Bad input: exit 2, the file named.
        const Run bad = cli({QStringLiteral("ranks"), dir + QStringLiteral("/rank-0.json.gz"), dir + QStringLiteral("/rank-0.json.gz")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("rank 0 again"), bad.err.constData());
        const Run format = cli({QStringLiteral("ranks"), dir, QStringLiteral("--format"), QStringLiteral("csv")});
        QCOMPARE(format.exitCode, 2);
    }

    // The commands pass over a folder's meta.json with a note, and refuse it when it is named on its own.
    void commandsPassOverAFoldersOtherFiles()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const std::string run = tmp.path().toStdString();
        for (int r = 0; r < 4; ++r)
            copyFile(glooFolder("slow") + "/rank-" + std::to_string(r) + ".json.gz", run + "/rank-" + std::to_string(r) + ".json.gz");
        std::ofstream(run + "/meta.json") << R"({"ranks": 4})";
        const QString dir = tmp.path(), meta = dir + QStringLiteral("/meta.json");
        const QDir out(dir);
        for (const QStringList& arguments :
             {QStringList{QStringLiteral("ranks"), dir}, QStringList{QStringLiteral("steps"), dir},
              QStringList{QStringLiteral("export"), dir, QStringLiteral("--sqlite"), out.filePath(QStringLiteral("run.db"))}}) {
            const Run r = cli(arguments);
            QVERIFY2(r.exitCode == 0, r.err.constData());
            QVERIFY2(r.err.contains("note: passed over: " + meta.toUtf8()), r.err.constData());
        }
        const Run named = cli({QStringLiteral("ranks"), dir + QStringLiteral("/rank-0.json.gz"), meta});
        QCOMPARE(named.exitCode, 2);
        QVERIFY2(named.err.contains(meta.toUtf8()) && named.err.contains("traceEvents"), named.err.constData());
    }

    void otherCommandsRunPerRank()
    {
        const QString dir = QString::fromStdString(glooFolder("slow"));
        const Run json = cli({QStringLiteral("steps"), dir, QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(json.exitCode, 0);
        const io::Json out = io::parseSmallJson(json.out.toStdString(), "steps output");
        QCOMPARE(out["world_size"].get<int64_t>(), int64_t(4));
        QCOMPARE(out["ranks"].size(), size_t(4));
        for (size_t i = 0; i < 4; ++i) {
            QCOMPARE(out["ranks"][i]["rank"].get<int64_t>(), int64_t(i));
            // The same as the command on that rank's file alone.
            const Run alone = cli({QStringLiteral("steps"), QString::fromStdString(out["ranks"][i]["file"].get<std::string>()),
                                   QStringLiteral("--format"), QStringLiteral("json")});
            QCOMPARE(out["ranks"][i]["result"], io::parseSmallJson(alone.out.toStdString(), "steps output"));
        }
        const Run table = cli({QStringLiteral("overlap"), dir});
        QCOMPARE(table.exitCode, 0);
        for (int r = 0; r < 4; ++r)
            QVERIFY(table.out.contains(QByteArray("== rank ") + QByteArray::number(r) + ": "));
        const Run info = cli({QStringLiteral("info"), dir});
        QCOMPARE(info.exitCode, 0);
        QVERIFY(info.out.contains("== rank 3: "));
        // A command every rank fails (no [memory] records): each rank says so, the others still run, exit 2.
        const Run memory = cli({QStringLiteral("memory"), dir, QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(memory.exitCode, 2);
        const io::Json failed = io::parseSmallJson(memory.out.toStdString(), "memory output");
        QCOMPARE(failed["ranks"].size(), size_t(4));
        for (const io::Json& rank : failed["ranks"]) {
            QVERIFY(rank["result"].is_null());
            QVERIFY(testutil::contains(rank["error"].get<std::string>(), rank["file"].get<std::string>()));
        }
        QCOMPARE(memory.err.count("profile_memory"), 4);
    }
};

QTEST_GUILESS_MAIN(TestRanks)
#include "tst_ranks.moc"
