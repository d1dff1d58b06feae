// SPDX-License-Identifier: MIT
// The Roofline panel as a user reads it: a verdict card in plain words with its own Annotations... link, an
// empty plot that says why instead of drawing empty axes, a legend beside the points rather than on them, a
// selection ring that is not clipped and that goes away when the selection is cleared.
#include "testutil.h"

#include "annotationeditor.h"
#include "roofline/classify.h"
#include "rooflinepanel.h"
#include "stats/torchtable.h"
#include "tracedocument.h"

#include <QApplication>
#include <QPushButton>
#include <QDialog>
#include <QTimer>
#include <QTableWidget>
#include <QLabel>
#include <QTemporaryDir>
#include <QSignalSpy>

#undef QT_NO_FOREACH
#include <qcustomplot.h>
#include <QtTest>

using namespace tilescope;

namespace {

std::shared_ptr<const TraceDocument> document(const std::string& path)
{
    return TraceDocument::build(QString::fromStdString(path), {}, {});
}

std::string fullName(const roofline::ClassifyReport& r, std::string_view prefix)
{
    for (const auto& k : r.kernels)
        if (std::string_view(k.name).starts_with(prefix))
            return k.name;
    return {};
}

int selectionRings(QCustomPlot* plot, bool* clipped = nullptr)
{
    int rings = 0;
    for (int i = 0; i < plot->itemCount(); ++i)
        if (plot->item(i)->objectName() == QLatin1String("selection ring")) {
            ++rings;
            if (clipped)
                *clipped = plot->item(i)->clipToAxisRect();
        }
    return rings;
}

} // namespace

class TestRooflinePanel : public QObject
{
    Q_OBJECT
private slots:
    void cardSpeaksToUsers()
    {
        RooflinePanel panel;
        panel.resize(420, 560);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.setDocument(document(testutil::workloadTrace("gemm_compare")));
        // The Triton kernel has no op and no annotation: no estimate, and the card says what to do about it.
        const std::string triton = fullName(panel.report(), "matmul_kernel");
        QVERIFY(!triton.empty());
        panel.showKernel(triton);
        const QString card = panel.verdictText();
        QVERIFY2(card.contains(QStringLiteral("no FLOP/byte estimate")), qPrintable(card));
        QVERIFY2(card.contains(QStringLiteral("Annotations...")), qPrintable(card));
        for (const char* banned : {"\u00a7", "roofline.md", "level D", "work level"})
            QVERIFY2(!card.contains(QString::fromUtf8(banned)), banned);
        const auto offersAnnotations = [&panel] { return panel.card()->toHtml().contains(QLatin1String(RooflinePanel::kAnnotateLink)); };
        QVERIFY(offersAnnotations());
        // The card's link opens the annotation editor, seeded with the selected kernel; the plot keeps its
        // height (a button that came and went with the selection moved it).
        panel.layout()->activate();
        const int plotHeight = panel.plot()->height();
        QString seeded;
        QTimer::singleShot(0, [&] {
            auto* editor = qobject_cast<AnnotationEditor*>(QApplication::activeModalWidget());
            if (editor) {
                seeded = editor->table()->rowCount() > 0 && editor->table()->item(0, 1) ? editor->table()->item(0, 1)->text()
                                                                                        : QStringLiteral("?");
                editor->reject();
            }
        });
        emit panel.card()->anchorClicked(QUrl(QString::fromLatin1(RooflinePanel::kAnnotateLink)));
        QCOMPARE(seeded, QString::fromStdString(triton));
        // A kernel with an estimate needs no such link.
        panel.showKernel(fullName(panel.report(), "nvjet_sm90"));
        QVERIFY(!offersAnnotations());
        panel.layout()->activate();
        QCOMPARE(panel.plot()->height(), plotHeight);
        QVERIFY(!panel.verdictText().contains(QStringLiteral("work level")));
        QVERIFY(panel.verdictText().contains(QStringLiteral("work estimated from the trace")));
    }

    // Save writes the sidecar beside the trace and says so (it closed without a word); the dialog names the file.
    void savedAnnotationsAreAnnounced()
    {
        QTemporaryDir dir;
        const QString trace = dir.filePath(QStringLiteral("trace.json"));
        QVERIFY(QFile::copy(QString::fromStdString(testutil::workloadTrace("gemm_compare")), trace));
        RooflinePanel panel;
        panel.setDocument(TraceDocument::build(trace, {}, {}));
        panel.showKernel(fullName(panel.report(), "matmul_kernel"));
        QSignalSpy messages(&panel, &RooflinePanel::statusMessage);
        bool namesTheFile = false;
        QTimer::singleShot(0, [&] {
            auto* editor = qobject_cast<AnnotationEditor*>(QApplication::activeModalWidget());
            if (!editor)
                return;
            for (const QLabel* label : editor->findChildren<QLabel*>())
                namesTheFile = namesTheFile || label->text().contains(trace + QStringLiteral(".annotations.json"));
            editor->table()->setItem(0, 2, new QTableWidgetItem(QStringLiteral("1e9")));
            if (!editor->save())
                editor->reject();
        });
        QTimer guard; // a failure, not a hang, if the editor is not the modal widget; gone with this test
        guard.setSingleShot(true);
        connect(&guard, &QTimer::timeout, [] {
            if (auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget()))
                dialog->reject();
        });
        guard.start(5000);
        emit panel.card()->anchorClicked(QUrl(QString::fromLatin1(RooflinePanel::kAnnotateLink)));
        QVERIFY(namesTheFile);
        QVERIFY(QFile::exists(trace + QStringLiteral(".annotations.json")));
        QCOMPARE(messages.size(), 1);
        const QString message = messages.front().front().toString();
        QVERIFY2(message.startsWith(QStringLiteral("Saved 1 annotation to ") + trace + QStringLiteral(".annotations.json")),
                 qPrintable(message));
    }

    // Two kernels with the same work and time sit on one spot, where one hides the other: hovering names both.
    void pointsOnOneSpotAreNamed()
    {
        QTemporaryDir dir;
        // Two aten::mm of 4096x4096 bf16, each launching its own kernel; the second runs `secondUs`.
        auto twins = [&](int secondUs) {
            const QString path = dir.filePath(QStringLiteral("twins%1.json").arg(secondUs));
            std::string events;
            for (int i = 0; i < 2; ++i) {
                const std::string id = std::to_string(10 + i), ts = std::to_string(100 + 1000 * i);
                events += std::string(i ? "," : "") + "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":"
                    + ts + ",\"dur\":50,\"args\":{\"External id\":" + id
                    + ",\"Input Dims\":[[4096,4096],[4096,4096]],\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\"]}},"
                      "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":"
                    + std::to_string(110 + 1000 * i) + ",\"dur\":5,\"args\":{\"External id\":" + id + ",\"correlation\":" + id
                    + "}},{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" + (i == 0 ? "gemm_first" : "gemm_second")
                    + "\",\"pid\":0,\"tid\":7,\"ts\":" + std::to_string(130 + 1000 * i)
                    + ",\"dur\":" + std::to_string(i == 0 ? 200 : secondUs) + ",\"args\":{\"External id\":" + id + ",\"correlation\":" + id
                    + ",\"device\":0,\"stream\":7}}";
            }
            QFile f(path);
            f.open(QIODevice::WriteOnly);
            f.write(QByteArray::fromStdString("{\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA H200\",\"totalGlobalMem\":150109880320,"
                                              "\"computeMajor\":9,\"computeMinor\":0,\"numSms\":132}],\"traceEvents\":["
                                              + events + "]}"));
            return path.toStdString();
        };
        RooflinePanel panel;
        panel.resize(420, 560);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        auto hoverOnFirst = [&](const std::string& path) {
            panel.setDocument(document(path));
            panel.plot()->replot();
            const auto& k = *std::find_if(panel.report().kernels.begin(), panel.report().kernels.end(),
                                          [](const auto& c) { return c.name == "gemm_first"; });
            return panel.hoverText(
                QPointF(panel.plot()->xAxis->coordToPixel(*k.flops / *k.bytes), panel.plot()->yAxis->coordToPixel(k.achievedFlopsPerS)));
        };
        const QString same = hoverOnFirst(twins(200));
        QCOMPARE(panel.pointCount(), 2);
        QVERIFY2(same.contains(QStringLiteral("1 more on this spot")), qPrintable(same));
        QVERIFY2(same.contains(QStringLiteral("gemm_first")) && same.contains(QStringLiteral("gemm_second")), qPrintable(same));
        // Ten times slower, the second kernel sits apart: the first's hover is its own.
        const QString apart = hoverOnFirst(twins(2000));
        QVERIFY2(apart.startsWith(QStringLiteral("gemm_first")) && !apart.contains(QStringLiteral("on this spot")), qPrintable(apart));
    }

    void emptyPlotSaysWhy_data()
    {
        QTest::addColumn<QString>("trace");
        QTest::addColumn<QString>("message");
        QTest::newRow("CPU only") << "external/hta/cpu_only_rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"
                                  << "no GPU activity";
        QTest::newRow("CUPTI range profiler") << "external/hta/cupti_profiler_benchmark_result_924719_1679055439_trace.json.gz"
                                              << "its 77 kernels are CUPTI range-profiler records";
        QTest::newRow("kernels without work") << "external/hta/triton_example_triton_example.json.gz"
                                              << "no GPU kernels with known work";
        QTest::newRow("NCCL only") << "nccl/nccl_sendrecv_no_size.json"
                                   << "NCCL communication";
        QTest::newRow("no events") << "odd/no_events.json"
                                   << "holds no events";
    }
    // A region's hover gives its spans' time, which is not its kernels' (Kernel vs Reference's "GPU time total"); a
    // kernel's gives its total.
    void regionHoverSaysItsTimeIsItsSpan()
    {
        RooflinePanel panel;
        panel.resize(420, 560);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.setDocument(document(testutil::workloadTrace("gemm_compare")));
        panel.plot()->replot();
        const auto at = [&](const roofline::Classification& c) {
            return panel.hoverText(
                QPointF(panel.plot()->xAxis->coordToPixel(*c.flops / *c.bytes), panel.plot()->yAxis->coordToPixel(c.achievedFlopsPerS)));
        };
        const auto region = std::find_if(panel.report().regions.begin(), panel.report().regions.end(),
                                         [](const auto& c) { return c.name == "torch_ref" && c.flops && c.bytes; });
        QVERIFY(region != panel.report().regions.end());
        const QString regionText = at(*region);
        QVERIFY2(regionText.contains(QStringLiteral("%1 calls spanning %2 in all")
                                         .arg(region->calls)
                                         .arg(QString::fromStdString(stats::formatTorchTime(region->totalUs)))),
                 qPrintable(regionText));
        const auto kernel = std::find_if(panel.report().kernels.begin(), panel.report().kernels.end(),
                                         [](const auto& c) { return c.flops && c.bytes && c.achievedFlopsPerS > 0; });
        QVERIFY(kernel != panel.report().kernels.end());
        const QString kernelText = at(*kernel);
        QVERIFY2(kernelText.contains(QStringLiteral(" total")) && !kernelText.contains(QStringLiteral("spanning")), qPrintable(kernelText));
    }

    void emptyPlotSaysWhy()
    {
        QFETCH(QString, trace);
        QFETCH(QString, message);
        RooflinePanel panel;
        panel.setDocument(document(testutil::dataPath(trace.toStdString())));
        QCOMPARE(panel.pointCount(), 0);
        QVERIFY2(panel.emptyMessage().contains(message), qPrintable(panel.emptyMessage()));
        QVERIFY(!panel.plotVisible()); // the message instead of empty axes
        panel.setDocument(document(testutil::workloadTrace("gemm_compare")));
        QVERIFY(panel.pointCount() > 0);
        QVERIFY(panel.emptyMessage().isEmpty());
        QVERIFY(panel.plotVisible());
    }

    // Kernels without known work in a trace recorded with shapes: the message does not ask for them again.
    void emptyPlotWithShapesRecorded()
    {
        RooflinePanel panel;
        panel.setDocument(document(testutil::workloadTrace("memory_churn")));
        QCOMPARE(panel.pointCount(), 0);
        QVERIFY2(panel.emptyMessage().contains(QStringLiteral("though the trace has their shapes (record_shapes=True)")),
                 qPrintable(panel.emptyMessage()));
        QVERIFY(!panel.emptyMessage().contains(QStringLiteral("or record the trace")));
    }

    void legendBesideThePointsAndTheRing()
    {
        RooflinePanel panel;
        panel.resize(700, 700);
        panel.setDocument(document(testutil::workloadTrace("gemm_compare")));
        QCustomPlot* plot = panel.plot();
        plot->replot();
        QVERIFY(plot->legend->visible());
        QVERIFY(plot->legend->itemCount() > 0);
        QVERIFY(!plot->legend->outerRect().intersects(plot->axisRect()->rect()));
        // The selection ring is drawn whole even at the plot's edge, and it goes with the selection.
        const std::string cublas = fullName(panel.report(), "nvjet_sm90");
        panel.showKernel(cublas);
        bool clipped = true;
        QCOMPARE(selectionRings(plot, &clipped), 1);
        QVERIFY(!clipped);
        QVERIFY(panel.verdictText().contains(QStringLiteral("tensor-core-bound")));
        QVERIFY(panel.attachSourceButton()->isEnabled());
        panel.clearSelection();
        QCOMPARE(selectionRings(plot), 0);
        QVERIFY(!panel.verdictText().contains(QStringLiteral("tensor-core-bound")));
        QVERIFY(!panel.attachSourceButton()->isEnabled());
        panel.showKernel(cublas);
        panel.showKernel({}); // an empty name clears too
        QCOMPARE(selectionRings(plot), 0);
    }

    // The legend takes as many columns as the dock's width holds (four at most), so a narrow dock (a 1024 px
    // screen's) is not held wide by it, and its items never run past the plot.
    // A plot too short for its axes and its legend keeps the axes: the legend goes, and comes back with the height.
    void shortPlotHidesItsLegend()
    {
        RooflinePanel panel;
        panel.resize(300, 640);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.setDocument(document(testutil::workloadTrace("train_scheduled")));
        auto settle = [&] {
            for (int i = 0; i < 3; ++i) {
                panel.plot()->replot();
                QCoreApplication::processEvents();
            }
        };
        settle();
        QVERIFY(panel.legendShown());
        const int tallAxes = panel.plot()->axisRect()->height();
        panel.resize(300, 260); // the card and the buttons keep theirs: the plot gets its least height
        settle();
        QVERIFY2(!panel.legendShown(), qPrintable(QString::number(panel.plot()->height())));
        QVERIFY(panel.plot()->axisRect()->height() >= 100);
        panel.resize(300, 640);
        settle();
        QVERIFY(panel.legendShown());
        QVERIFY(std::abs(panel.plot()->axisRect()->height() - tallAxes) <= 2);
    }

    void legendColumnsFollowTheWidth()
    {
        RooflinePanel panel;
        panel.setDocument(document(testutil::workloadTrace("train_scheduled")));
        QCustomPlot* plot = panel.plot();
        QVERIFY(plot->legend->itemCount() >= 6);
        QVERIFY(panel.minimumSizeHint().width() < 360); // not four columns wide
        int previous = 0;
        for (const int width : {900, 420, 260}) {
            panel.resize(width, 600);
            panel.show();
            QVERIFY(QTest::qWaitForWindowExposed(&panel));
            plot->replot(); // the columns are set after a layout, for the next one
            plot->replot();
            const int columns = plot->legend->wrap();
            QVERIFY2(columns >= 1 && columns <= 4, qPrintable(QString::number(columns)));
            if (previous > 0)
                QVERIFY2(columns <= previous, qPrintable(QStringLiteral("%1 then %2").arg(previous).arg(columns)));
            previous = columns;
            QVERIFY2(
                plot->legend->outerRect().right() <= plot->width(),
                qPrintable(
                    QStringLiteral("%1 px: legend to %2, plot %3").arg(width).arg(plot->legend->outerRect().right()).arg(plot->width())));
            if (width == 900)
                QCOMPARE(columns, 4);
        }
        QVERIFY(previous < 4);
    }

    void communicationCard()
    {
        RooflinePanel panel;
        panel.setDocument(document(testutil::dataPath("nccl/nccl_allreduce_broadcast.json")));
        panel.showKernel(fullName(panel.report(), "ncclKernel_AllReduce"));
        const QString card = panel.verdictText();
        QVERIFY2(card.startsWith(QStringLiteral("communication")), qPrintable(card));
        QVERIFY(card.contains(QStringLiteral("bus bandwidth")));
        QVERIFY(!panel.card()->toHtml().contains(QLatin1String(RooflinePanel::kAnnotateLink)));
    }
};

QTEST_MAIN(TestRooflinePanel)
#include "tst_rooflinepanel.moc"
