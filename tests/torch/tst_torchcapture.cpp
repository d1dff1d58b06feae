// SPDX-License-Identifier: MIT
// tilescope-torch as the session API runs it: a CPU capture of the TorchScript fixture read back with
// TileScope's own loader, the progress lines of docs/sessions.md, failures, and a quick CPU calibration.
#include "roofline/ceilings.h"
#include "trace/trace.h"
#include "trace/traceloader.h"
#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <map>

namespace {

struct Run
{
    int exitCode = -1;
    QList<QJsonObject> events; // the @tilescope lines, in order
    QByteArray out, err;
};

Run torchTool(const QStringList& arguments)
{
    const testutil::ProcessRun p = testutil::runProcess(QStringLiteral(TILESCOPE_TORCH), arguments, 300000);
    Run r;
    r.exitCode = p.exitCode;
    r.out = p.out;
    r.err = p.err;
    for (const QByteArray& line : r.out.split('\n')) {
        if (!line.startsWith("@tilescope "))
            continue;
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(line.mid(11), &error);
        if (error.error != QJsonParseError::NoError || !doc.isObject())
            qFatal("progress line is not a JSON object: %s", line.constData());
        r.events.append(doc.object());
    }
    return r;
}

QString fixture() { return QStringLiteral(TILESCOPE_TEST_DATA "/torchscript/mlp.pt"); }

// The phases of docs/sessions.md in their order; a session may skip any.
int phaseRank(const QString& phase)
{
    static const QStringList order{"setup", "build", "check", "warmup", "profile", "export", "calibrate", "done"};
    return order.indexOf(phase);
}

void verifyPhaseOrder(const Run& r)
{
    int rank = -1;
    for (const QJsonObject& e : r.events) {
        if (e.value("event").toString() != "phase")
            continue;
        const int next = phaseRank(e.value("phase").toString());
        QVERIFY2(next >= 0, qPrintable("unknown phase " + e.value("phase").toString()));
        QVERIFY2(next >= rank, qPrintable("phase out of order: " + e.value("phase").toString()));
        QVERIFY(e.value("message").isString());
        rank = next;
    }
}

// The steps of a counted phase, e.g. warmup 1/2, 2/2.
QList<int> steps(const Run& r, const QString& phase, int of)
{
    QList<int> list;
    for (const QJsonObject& e : r.events)
        if (e.value("event").toString() == "phase" && e.value("phase").toString() == phase) {
            if (e.value("of").toInt() != of)
                return {-1};
            list.append(e.value("step").toInt());
        }
    return list;
}

const QJsonObject* lastError(const Run& r)
{
    for (auto it = r.events.rbegin(); it != r.events.rend(); ++it)
        if (it->value("event").toString() == "error")
            return &*it;
    return nullptr;
}

} // namespace

class TestTorchCapture : public QObject
{
    Q_OBJECT
private slots:
    void cpuCapture()
    {
        QTemporaryDir tmp;
        const QString out = tmp.filePath("session");
        const Run r = torchTool({"capture", "--torchscript", fixture(), "--inputs", "float32:8x32", "--out", out, "--device", "cpu",
                                 "--warmup", "2", "--iters", "4", "--record-shapes"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        verifyPhaseOrder(r);
        QCOMPARE(steps(r, "warmup", 2), (QList<int>{1, 2}));
        QCOMPARE(steps(r, "profile", 4), (QList<int>{1, 2, 3, 4}));

        // The artifacts, then the result naming the manifest, last.
        QStringList kinds;
        for (const QJsonObject& e : r.events)
            if (e.value("event").toString() == "artifact")
                kinds << e.value("kind").toString();
        QCOMPARE(kinds, (QStringList{"trace", "manifest"}));
        const QString trace = QDir(out).absoluteFilePath("trace.pt.trace.json");
        const QString manifestPath = QDir(out).absoluteFilePath("tilescope-session.json");
        QCOMPARE(r.events.last().value("event").toString(), QStringLiteral("result"));
        QCOMPARE(r.events.last().value("manifest").toString(), manifestPath);
        QCOMPARE(r.events[r.events.size() - 2].value("phase").toString(), QStringLiteral("done"));

        const QJsonObject manifest = testutil::readJsonObject(manifestPath.toStdString());
        QCOMPARE(manifest.value("version").toInt(), 1);
        QCOMPARE(manifest.value("mode").toString(), QStringLiteral("torchscript"));
        QCOMPARE(manifest.value("status").toString(), QStringLiteral("ok"));
        QCOMPARE(manifest.value("trace").toString(), QStringLiteral("trace.pt.trace.json"));
        QVERIFY(QStringList({"kineto", "legacy"}).contains(manifest.value("profiler").toString()));
        QVERIFY(!manifest.value("torch").toString().isEmpty());
        QCOMPARE(manifest.value("device").toObject().value("type").toString(), QStringLiteral("cpu"));
        QCOMPARE(manifest.value("capture").toObject().value("iters").toInt(), 4);

        // TileScope's own loader reads the trace: 4 labelled calls, 3 linear layers each, and nothing from
        // the warm-up (which ran outside the profiler).
        const auto loaded = tilescope::trace::loadTrace(trace.toStdString());
        std::map<std::string, int> counts;
        uint32_t forwards = 0;
        for (const auto& e : loaded->events)
            ++counts[std::string(loaded->name(e))];
        QCOMPARE(counts["torchscript_forward"], 4);
        QCOMPARE(counts["aten::linear"], 12);
        QCOMPARE(counts["aten::addmm"], 12);
        QCOMPARE(counts["aten::relu"], 8);
        // Every linear runs inside a torchscript_forward scope.
        for (const auto& e : loaded->events) {
            if (loaded->name(e) != "aten::linear")
                continue;
            bool inside = false;
            for (uint32_t p = e.parent; p != tilescope::trace::kNoIndex; p = loaded->events[p].parent)
                inside = inside || loaded->name(loaded->events[p]) == "torchscript_forward";
            QVERIFY(inside);
            ++forwards;
        }
        QCOMPARE(forwards, 12u);
        if (manifest.value("profiler").toString() == "legacy")
            QCOMPARE(loaded->meta.format, tilescope::trace::TraceFormat::LegacyAutograd);
        else
            QCOMPARE(loaded->meta.format, tilescope::trace::TraceFormat::Kineto);
    }

    void failures_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        QTest::addColumn<bool>("manifest"); // a failed manifest is expected in OUT
        const QString notThere = QStringLiteral(TILESCOPE_TEST_DATA "/torchscript/missing.pt");
        const QString notTorchScript = QStringLiteral(TILESCOPE_TEST_DATA "/h200/calibration/calibration.json");
        QTest::newRow("missing model") << QStringList{"--torchscript", notThere, "--inputs", "f32:8x32"} << 1
                                       << "TorchScript model not found: " + notThere << true;
        QTest::newRow("unloadable model") << QStringList{"--torchscript", notTorchScript, "--inputs", "f32:8x32"} << 1
                                          << "cannot load TorchScript model " + notTorchScript + ": " << true;
        QTest::newRow("bad spec") << QStringList{"--torchscript", fixture(), "--inputs", "f32:8xx32"} << 2
                                  << "input spec: tensor 1 'f32:8xx32': dimension 2 is empty" << true;
        QTest::newRow("no such GPU") << QStringList{"--torchscript", fixture(), "--inputs", "f32:8x32", "--device", "cuda:99"} << 1
                                     << "CUDA requested (cuda:99) but" << true;
        QTest::newRow("bad device") << QStringList{"--torchscript", fixture(), "--device", "gpu"} << 2
                                    << "bad --device 'gpu': expected cpu, cuda or cuda:N" << true;
        QTest::newRow("wrong input count") << QStringList{"--torchscript", fixture(), "--inputs", "f32:8x32,f32:2"} << 1
                                           << "torch error: " << true;
        QTest::newRow("unknown option") << QStringList{"--torchscript", fixture(), "--iterations", "3"} << 2
                                        << "unknown option '--iterations'" << false;
    }

    void failures()
    {
        QFETCH(QStringList, arguments);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        QFETCH(bool, manifest);
        QTemporaryDir tmp;
        const QString out = tmp.filePath("session");
        const Run r = torchTool(QStringList{"capture", "--out", out} + arguments);
        QCOMPARE(r.exitCode, exitCode);
        const QJsonObject* error = lastError(r);
        QVERIFY2(error, r.out.constData());
        QVERIFY2(error->value("message").toString().contains(message), qPrintable(error->value("message").toString()));
        // One stderr line for the user, naming the same problem.
        const QList<QByteArray> lines = r.err.trimmed().split('\n');
        QVERIFY2(lines.first().startsWith("tilescope-torch: "), r.err.constData());
        QVERIFY2(QString::fromUtf8(lines.first()).contains(message), r.err.constData());
        const QJsonObject written = testutil::readJsonObject(QDir(out).filePath("tilescope-session.json").toStdString());
        QCOMPARE(!written.isEmpty(), manifest);
        if (manifest) {
            QCOMPARE(written.value("status").toString(), QStringLiteral("failed"));
            QVERIFY(written.value("error").toString().contains(message));
        }
    }

    void outputNotWritable()
    {
        // A folder below a plain file cannot exist, whoever runs the test (root ignores permissions).
        QTemporaryDir tmp;
        QFile file(tmp.filePath("plain"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.close();
        const QString out = tmp.filePath("plain/session");
        const Run r = torchTool({"capture", "--torchscript", fixture(), "--inputs", "f32:8x32", "--out", out});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(lastError(r));
        QVERIFY2(lastError(r)->value("message").toString().startsWith("output folder " + out + " is not writable"),
                 qPrintable(lastError(r)->value("message").toString()));
    }

    void cpuCalibration()
    {
        QTemporaryDir tmp;
        const QString file = tmp.filePath("cpu.json");
        const Run r = torchTool({"calibrate", "--device", "cpu", "--out", file, "--quick"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        verifyPhaseOrder(r);
        QCOMPARE(steps(r, "calibrate", 2), (QList<int>{1, 2}));
        QCOMPARE(r.events.last().value("event").toString(), QStringLiteral("result"));
        QCOMPARE(r.events.last().value("calibration").toString(), file);

        const tilescope::roofline::MeasuredCeilings m = tilescope::roofline::loadMeasuredCeilings(file.toStdString());
        QVERIFY(m.memoryBytesPerS && *m.memoryBytesPerS > 1e8 && *m.memoryBytesPerS < 1e13);
        QVERIFY(m.fp32 && *m.fp32 > 1e7 && *m.fp32 < 1e14);
        QVERIFY(!m.bf16 && !m.tf32); // the CPU measures copy and fp32 only
        const QJsonObject json = testutil::readJsonObject(file.toStdString());
        QVERIFY(!json.value("cpu").toString().isEmpty());
        QVERIFY(json.value("threads").toInt() >= 1);
        QVERIFY(!json.value("torch").toString().isEmpty());
        QCOMPARE(json.value("timing").toString(), QStringLiteral("steady_clock"));
    }

    void calibrationIntoFolder()
    {
        QTemporaryDir tmp;
        const QString dir = tmp.filePath("calib") + "/";
        const Run r = torchTool({"calibrate", "--out", dir, "--quick", "--runs", "1"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject manifest = testutil::readJsonObject((dir + "tilescope-session.json").toStdString());
        QCOMPARE(manifest.value("mode").toString(), QStringLiteral("calibrate"));
        QCOMPARE(manifest.value("status").toString(), QStringLiteral("ok"));
        QCOMPARE(manifest.value("calibration").toString(), QStringLiteral("calibration.json"));
        QCOMPARE(r.events.last().value("manifest").toString(), QDir(dir).absoluteFilePath("tilescope-session.json"));
        tilescope::roofline::loadMeasuredCeilings((dir + "calibration.json").toStdString());
    }
};

QTEST_GUILESS_MAIN(TestTorchCapture)
#include "tst_torchcapture.moc"
