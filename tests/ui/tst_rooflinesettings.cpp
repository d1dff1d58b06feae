// SPDX-License-Identifier: MIT
// The Roofline dock's settings as a user drives them: measured ceilings from a file, the annotation editor
// (writes the sidecar, reclassifies, and the sidecar loads with the trace next time), and Calibrate This
// GPU through a stand-in tilescope-torch (CI has no LibTorch GPU; the real tool is proven on the H200).
#include "testutil.h"
#include "uitestutil.h"

#include "annotationeditor.h"
#include "findingsmodel.h"
#include "findingspanel.h"
#include "mainwindow.h"
#include "roofline/classify.h"
#include "rooflinepanel.h"
#include "sessionjob.h"
#include "tracedocument.h"

#include <QAction>
#include <QApplication>
#include <QTimer>
#include <QStatusBar>
#include <QMenuBar>
#include <QFileDialog>
#include <QMenu>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextBrowser>

#undef QT_NO_FOREACH
#include <qcustomplot.h>
#include <QtTest>

#include <filesystem>

using namespace tilescope;

namespace {

const roofline::Classification* region(const roofline::ClassifyReport& r, const std::string& name)
{
    for (const auto& c : r.regions)
        if (c.name == name)
            return &c;
    return nullptr;
}

void writeExecutable(const QString& path, const QByteArray& text)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text);
    f.close();
    f.setPermissions(f.permissions() | QFileDevice::ExeOwner);
}

} // namespace

class TestRooflineSettings : public QObject
{
    Q_OBJECT
    QTemporaryDir m_tmp;
    QString m_trace; // a copy of gemm_compare, so the sidecar lands in a temporary folder

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("TileScopeTests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_rooflinesettings"));
        QSettings().clear();
        QVERIFY(m_tmp.isValid());
        m_trace = m_tmp.filePath(QStringLiteral("gemm_compare.json"));
        std::filesystem::copy_file(testutil::workloadTrace("gemm_compare"), m_trace.toStdString());
    }

    void measuredCeilingsReplaceTheDatasheetAndPersist()
    {
        MainWindow w;
        testutil::loadAndWait(w, m_trace);
        RooflinePanel* panel = w.roofline();
        QVERIFY(!panel->report().measured);
        QVERIFY2(panel->ceilingsText().contains(QStringLiteral("datasheet")), qPrintable(panel->ceilingsText()));
        const double datasheetBf16 = panel->report().ceilings.bf16;
        // The Ceilings menu checks the roofs that hold.
        const QList<QAction*> roofs = panel->ceilingsMenu()->actions();
        QVERIFY(roofs[0]->isChecked() && !roofs[1]->isChecked());
        QCOMPARE(roofs[1]->text(), QStringLiteral("Measured, from File..."));
        const QString calibration = QString::fromStdString(testutil::dataPath("h200/calibration/calibration.json"));
        QSignalSpy reclassified(panel, &RooflinePanel::reclassified);
        QVERIFY(panel->setCeilingsFile(calibration));
        // The GUI thread is not held: the rerun happens on a worker and the old report stays until it lands.
        QVERIFY(panel->isReclassifying());
        QVERIFY(!panel->report().measured);
        QVERIFY(panel->ceilingsText().contains(QStringLiteral("measured")));
        QVERIFY(reclassified.wait(30000));
        QCOMPARE(reclassified.count(), 1);
        QVERIFY(panel->report().measured);
        QCOMPARE(panel->report().ceilings.bf16, 775142456986898.8);
        QVERIFY(panel->report().ceilings.bf16 < datasheetBf16);
        QCOMPARE(panel->ceilingsText(), QStringLiteral("measured: calibration.json (NVIDIA H200)"));
        QVERIFY(!roofs[0]->isChecked() && roofs[1]->isChecked());
        QCOMPARE(roofs[1]->text(), QStringLiteral("Measured: calibration.json (Another File...)"));
        // An unusable file is refused and the measured set stays.
        const QString bad = m_tmp.filePath(QStringLiteral("bad.json"));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"gpu\": \"x\"}");
        f.close();
        // From the datasheet, as a click checks the Measured item before its file is read: an unusable file leaves
        // Datasheet checked.
        QVERIFY(panel->setCeilingsFile(QString()));
        QVERIFY(reclassified.wait(30000));
        roofs[1]->setChecked(true);
        QVERIFY(!panel->setCeilingsFile(bad));
        QVERIFY(roofs[0]->isChecked() && !roofs[1]->isChecked());
        QVERIFY(panel->setCeilingsFile(calibration));
        QVERIFY(reclassified.wait(30000));
        QVERIFY(!panel->setCeilingsFile(bad));
        QVERIFY(panel->verdictText().contains(QStringLiteral("Cannot use these ceilings")));
        QCOMPARE(panel->ceilingsFile(), calibration);
        QVERIFY(!roofs[0]->isChecked() && roofs[1]->isChecked());
        // The next window starts with the measured ceilings; Datasheet clears the setting.
        MainWindow again;
        testutil::loadAndWait(again, m_trace);
        testutil::waitReclassified(again.roofline());
        QVERIFY(again.roofline()->report().measured);
        // Kept for the next trace, but not used for one of another GPU (an A100 here): the label says so.
        testutil::loadAndWait(again,
                              QString::fromStdString(testutil::dataPath(
                                  "external/hta/critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz")));
        testutil::waitReclassified(again.roofline());
        QVERIFY(!again.roofline()->report().measured);
        QCOMPARE(again.roofline()->ceilingsText(), QStringLiteral("datasheet: A100 SXM4 40GB (calibration.json is for NVIDIA H200)"));
        testutil::loadAndWait(again, m_trace);
        testutil::waitReclassified(again.roofline());
        QVERIFY(again.roofline()->report().measured);
        QVERIFY(again.roofline()->setCeilingsFile(QString()));
        testutil::waitReclassified(again.roofline());
        QVERIFY(!again.roofline()->report().measured);
        QVERIFY(QSettings().value(QStringLiteral("roofline/ceilings")).toString().isEmpty());
    }

    // A trace without deviceProperties has no roofs until its GPU is chosen under Ceilings > GPU; a trace that names
    // its GPU offers none, and the choice goes with the trace it was made for.
    void gpuChosenForATraceWithoutDevice()
    {
        const QString unnamed = m_tmp.filePath(QStringLiteral("unnamed.json"));
        QVERIFY(testutil::writeWithoutDeviceProperties(m_trace, unnamed));

        MainWindow w;
        RooflinePanel* panel = w.roofline();
        // Before any trace: the trace's own holds, the rows wait for a trace.
        const QList<QAction*> gpus = panel->gpuMenu()->actions();
        QVERIFY(gpus.first()->isChecked() && gpus.first()->data().toString().isEmpty());
        QCOMPARE(gpus.first()->text(), QStringLiteral("The Trace's Own"));
        QVERIFY(!gpus.last()->isEnabled());
        gpus.last()->trigger();
        QVERIFY(panel->gpu().isEmpty() && gpus.first()->isChecked() && !gpus.last()->isChecked());
        QCOMPARE(panel->gpuMenu()->menuAction()->toolTip(), QStringLiteral("Open a trace first"));
        testutil::loadAndWait(w, unnamed);
        QVERIFY(panel->canChooseGpu());
        QCOMPARE(panel->report().ceilings.bf16, 0.0);
        QCOMPARE(panel->ceilingsText(), QStringLiteral("no GPU named in the trace: choose one under Ceilings > GPU"));
        QCOMPARE(gpus.first()->text(), QStringLiteral("None (the trace names no GPU)"));
        QAction* h200 = nullptr;
        for (QAction* a : panel->gpuMenu()->actions())
            if (a->text() == QLatin1String("H200 SXM"))
                h200 = a;
        QVERIFY(h200 && h200->isEnabled() && !h200->isChecked());
        QSignalSpy reclassified(panel, &RooflinePanel::reclassified);
        h200->trigger(); // as a user picks it from the menu
        QVERIFY(reclassified.wait(30000));
        QVERIFY(h200->isChecked());
        QCOMPARE(panel->report().deviceRow, std::string("H200 SXM"));
        QCOMPARE(panel->report().ceilings.bf16, 989.4e12);
        QCOMPARE(panel->ceilingsText(), QStringLiteral("datasheet: H200 SXM (chosen)"));
        QVERIFY(panel->pointCount() > 0);

        // File > Export Report says what the dock shows: graded against the chosen GPU.
        QAction* exportAction = testutil::menuAction(w, QStringLiteral("Export &Report…"));
        QVERIFY(exportAction);
        QTimer::singleShot(200, [] {
            if (auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget()))
                QMetaObject::invokeMethod(dialog, "accept"); // the offered TRACE.report.html beside the trace
        });
        exportAction->trigger();
        QVERIFY(QTest::qWaitFor([&] { return w.statusBar()->currentMessage().startsWith(QStringLiteral("Wrote ")); }, 60000));
        const QString reportPath = w.statusBar()->currentMessage().mid(6);
        QVERIFY2(testutil::contains(testutil::readFile(reportPath.toStdString()), "the GPU chosen for it: the H200 SXM datasheet row"),
                 qPrintable(reportPath));

        // Ceilings measured on another GPU than the chosen one are not used, and the label says so.
        const QString calibration = QString::fromStdString(testutil::dataPath("h200/calibration/calibration.json"));
        QSignalSpy again(panel, &RooflinePanel::reclassified);
        panel->setGpu(QStringLiteral("A100 SXM4 40GB"));
        QVERIFY(again.wait(30000));
        QVERIFY(panel->setCeilingsFile(calibration));
        QVERIFY(again.wait(30000));
        QVERIFY(!panel->report().measured);
        QCOMPARE(panel->ceilingsText(), QStringLiteral("datasheet: A100 SXM4 40GB (chosen) (calibration.json is for NVIDIA H200)"));
        panel->setGpu(QStringLiteral("H200 SXM"));
        QVERIFY(again.wait(30000));
        QVERIFY(panel->report().measured);
        QCOMPARE(panel->ceilingsText(), QStringLiteral("measured: calibration.json (NVIDIA H200)"));
        QVERIFY(panel->setCeilingsFile(QString()));
        QVERIFY(again.wait(30000));

        // The next trace that names no GPU either (another rank of the run) keeps the choice.
        const QString otherRank = m_tmp.filePath(QStringLiteral("unnamed_rank1.json"));
        QVERIFY(QFile::copy(unnamed, otherRank));
        QSignalSpy regraded(panel, &RooflinePanel::reclassified);
        testutil::loadAndWait(w, otherRank);
        QVERIFY(regraded.count() > 0 || regraded.wait(30000));
        QCOMPARE(panel->gpu(), QStringLiteral("H200 SXM"));
        QCOMPARE(panel->report().deviceRow, std::string("H200 SXM"));
        QCOMPARE(panel->ceilingsText(), QStringLiteral("datasheet: H200 SXM (chosen)"));

        // The trace that names its GPU: the rows are offered disabled, the choice is dropped.
        testutil::loadAndWait(w, m_trace);
        QVERIFY(!panel->canChooseGpu());
        QVERIFY(panel->gpu().isEmpty());
        QVERIFY(!h200->isEnabled() && !h200->isChecked());
        QVERIFY(gpus.first()->isChecked());
        QCOMPARE(gpus.first()->text(), QStringLiteral("The Trace's Own: H200 SXM"));
        panel->setGpu(QStringLiteral("A100 SXM4 40GB"));
        QVERIFY(!panel->isReclassifying());
        QCOMPARE(panel->report().deviceRow, std::string("H200 SXM"));
    }

    // The Findings dock rests on the roofline's classification: choosing the GPU of launch_bound without its
    // deviceProperties turns its dominant kernel from unknown to latency-bound there too.
    void findingsFollowTheChosenGpu()
    {
        const QString unnamed = m_tmp.filePath(QStringLiteral("launch_bound_unnamed.json"));
        QVERIFY(testutil::writeWithoutDeviceProperties(QString::fromStdString(testutil::workloadTrace("launch_bound")), unnamed));
        MainWindow w;
        testutil::loadAndWait(w, unnamed);
        FindingsPanel* findings = w.findings();
        auto dominant = [&]() -> QString {
            for (int row = 0; row < findings->model()->rowCount(); ++row) {
                findings->selectRow(row);
                if (findings->selectedFinding()->id == "dominant-kernel")
                    return findings->detailsText();
            }
            return {};
        };
        QVERIFY2(dominant().contains(QStringLiteral("Roofline: inconclusive")), qPrintable(dominant()));
        QSignalSpy reclassified(w.roofline(), &RooflinePanel::reclassified);
        w.roofline()->setGpu(QStringLiteral("H200 SXM"));
        QVERIFY(reclassified.wait(30000));
        QVERIFY(QTest::qWaitFor([&] { return !findings->isComputing(); }, 30000));
        QVERIFY2(dominant().contains(QStringLiteral("Roofline: latency-bound")), qPrintable(dominant()));
        // A range's findings use it too.
        const auto& t = *w.document()->trace;
        findings->setRange(std::pair{t.events.front().start, w.document()->contentEnd});
        QVERIFY(QTest::qWaitFor([&] { return !findings->isComputing() && findings->shownRange(); }, 30000));
        QVERIFY2(dominant().contains(QStringLiteral("Roofline: latency-bound")), qPrintable(dominant()));
    }

    void editorWritesTheSidecarAndReclassifies()
    {
        MainWindow w;
        testutil::loadAndWait(w, m_trace);
        RooflinePanel* panel = w.roofline();
        const auto* before = region(panel->report(), "custom_kernel");
        QVERIFY(before);
        QVERIFY(!before->flops);
        const QString sidecar = m_trace + QStringLiteral(".annotations.json");
        AnnotationEditor editor({}, sidecar);
        editor.addTarget("custom_kernel", true);
        QTableWidget* table = editor.table();
        table->item(0, 2)->setText(QStringLiteral("abc"));
        QVERIFY(!editor.save());
        QVERIFY2(editor.problems().contains(QStringLiteral("row 1: FLOPs must be a number")), qPrintable(editor.problems()));
        QVERIFY(!QFile::exists(sidecar));
        // meta.json of gemm_compare: 2*4096^3 FLOPs and 3*4096^2*2 bytes per call.
        table->item(0, 2)->setText(QStringLiteral("137438953472"));
        table->item(0, 3)->setText(QStringLiteral("100663296"));
        QVERIFY2(editor.save(), qPrintable(editor.problems()));
        QVERIFY(QFile::exists(sidecar));
        const auto saved = roofline::loadAnnotations(sidecar.toStdString());
        QCOMPARE(saved.size(), size_t(1));
        QCOMPARE(saved[0].region, std::string("custom_kernel"));
        QCOMPARE(*saved[0].bytes, 100663296.0);
        // Two edits back to back: the first rerun is dropped, only the newest lands.
        QSignalSpy reclassified(panel, &RooflinePanel::reclassified);
        panel->setAnnotations({});
        panel->setAnnotations(editor.result());
        testutil::waitReclassified(panel);
        QCOMPARE(reclassified.count(), 1);
        const auto* after = region(panel->report(), "custom_kernel");
        QVERIFY(after);
        QCOMPARE(*after->flops, 137438953472.0 * after->calls);
        QCOMPARE(after->cls, roofline::RooflineClass::TensorCoreBound); // meta.json: "triton_matmul": "tensor-core bound"
        // The region is a point now; hovering it and selecting it show its numbers and its kernels.
        panel->showKernel("custom_kernel");
        QVERIFY(panel->verdictText().contains(QStringLiteral("Kernels in this region")));
        QVERIFY(panel->verdictText().contains(QStringLiteral("matmul_kernel")));
        const double x = *after->flops / *after->bytes, y = after->achievedFlopsPerS;
        panel->plot()->replot();
        const QPointF at(panel->plot()->xAxis->coordToPixel(x), panel->plot()->yAxis->coordToPixel(y));
        const QString hover = panel->hoverText(at);
        QVERIFY2(hover.startsWith(QStringLiteral("region custom_kernel")), qPrintable(hover));
        QCOMPARE(panel->pointNameAt(at), QStringLiteral("custom_kernel")); // what a click there selects
        QVERIFY2(hover.contains(QString::number(y / 1e12, 'f', 2) + QStringLiteral(" TFLOP/s")), qPrintable(hover));
        QVERIFY(panel->hoverText(at + QPointF(200, 200)).isEmpty()
                || !panel->hoverText(at + QPointF(200, 200)).startsWith(QStringLiteral("region custom_kernel")));
        // Reopened, the trace brings its sidecar.
        MainWindow again;
        testutil::loadAndWait(again, m_trace);
        QCOMPARE(region(again.document()->classification, "custom_kernel")->cls, roofline::RooflineClass::TensorCoreBound);
        QFile::remove(sidecar);
    }

    void calibrateUsesWhatTheToolMeasured()
    {
        // A stand-in for tilescope-torch calibrate: progress lines, then the calibration.json the real one writes.
        const QString tool = m_tmp.filePath(QStringLiteral("fake-tilescope-torch"));
        writeExecutable(
            tool,
            "#!/bin/sh\n"
            "while [ $# -gt 0 ]; do [ \"$1\" = --out ] && out=$2; shift; done\n"
            "echo '@tilescope {\"event\": \"phase\", \"phase\": \"calibrate\", \"step\": 1, \"of\": 2}'\n"
            "printf '{\"copy_bytes_per_s\": 1.5e12, \"fp32_notf32_mm_flops_per_s\": 2e13, \"gpu\": \"NVIDIA H200\"}' > \"$out\"\n");
        qputenv("TILESCOPE_TORCH", tool.toLocal8Bit());
        MainWindow w;
        testutil::loadAndWait(w, m_trace);
        RooflinePanel* panel = w.roofline();
        QSignalSpy done(panel, &RooflinePanel::calibrationFinished);
        panel->calibrate(QStringLiteral("cpu"));
        QVERIFY(done.wait(30000));
        QVERIFY2(done.at(0).at(0).toBool(), qPrintable(done.at(0).at(1).toString()));
        testutil::waitReclassified(panel);
        QVERIFY(panel->ceilingsFile().endsWith(QStringLiteral("calibration.json")));
        QCOMPARE(panel->report().ceilings.memoryBytesPerS, 1.5e12);
        QCOMPARE(panel->ceilingsText(), QStringLiteral("measured: calibration.json (NVIDIA H200)")); // the trace's GPU

        // A failing tool: the card says why, the ceilings stay.
        writeExecutable(tool, "#!/bin/sh\necho 'no CUDA device' >&2\nexit 3\n");
        QSignalSpy failed(panel, &RooflinePanel::calibrationFinished);
        panel->calibrate(QStringLiteral("cuda"));
        QVERIFY(failed.wait(30000));
        QVERIFY(!failed.at(0).at(0).toBool());
        QVERIFY2(failed.at(0).at(1).toString().contains(QStringLiteral("exited with code 3")), qPrintable(failed.at(0).at(1).toString()));
        QVERIFY(panel->verdictText().contains(QStringLiteral("no CUDA device")));
        QCOMPARE(panel->report().ceilings.memoryBytesPerS, 1.5e12);
        qunsetenv("TILESCOPE_TORCH");
        panel->setCeilingsFile(QString());
    }
};

QTEST_MAIN(TestRooflineSettings)
#include "tst_rooflinesettings.moc"
