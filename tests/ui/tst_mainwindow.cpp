// SPDX-License-Identifier: MIT
// The app as a user drives it, under the offscreen platform: load, zoom, select, sort, filter.
#include "testutil.h"

#include "keyaveragesmodel.h"
#include "mainwindow.h"
#include "rooflinepanel.h"

#undef QT_NO_FOREACH
#include <qcustomplot.h>
#include "timelineview.h"
#include "traceloadjob.h"
#include "tracedocument.h"

#include <QApplication>
#include <QCheckBox>
#include <QHeaderView>
#include <QLineEdit>
#include <QMessageBox>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

using namespace tilescope;

namespace {

void loadAndWait(MainWindow& w, const QString& path)
{
    QSignalSpy changed(&w, &MainWindow::documentChanged);
    w.openFile(path);
    QVERIFY(changed.wait(30000));
}

uint32_t findEvent(const trace::Trace& t, std::string_view name, trace::EventKind kind)
{
    for (uint32_t i = 0; i < t.events.size(); ++i)
        if (t.events[i].kind == kind && t.name(t.events[i]) == name)
            return i;
    return trace::kNoIndex;
}

} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QCoreApplication::setOrganizationName(QStringLiteral("TileScopeTests")); }

    void loadZoomSelectSortFilter()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        loadAndWait(w, QString::fromStdString(testutil::workloadTrace("gemm_compare")));
        const TraceDocument* doc = w.document();
        QVERIFY(doc);
        TimelineView* timeline = w.timeline();
        QVERIFY(timeline->laneCount() >= 6); // overlap lanes, process headers, thread, stream
        QVERIFY(w.figuresText().contains(QStringLiteral("GPU 0 utilization")));

        // Zoom in with W around the centre, out with S.
        const double before = timeline->nsPerPixel();
        QTest::keyClick(timeline, Qt::Key_W);
        QVERIFY(timeline->nsPerPixel() < before);
        QTest::keyClick(timeline, Qt::Key_S);
        QVERIFY(std::abs(timeline->nsPerPixel() - before) < before * 1e-6);

        // Select the first torch_ref annotation by clicking it: the table follows.
        const uint32_t annotation = findEvent(*doc->trace, "custom_kernel", trace::EventKind::UserAnnotation);
        timeline->zoomToRange(doc->trace->events[annotation].start - 1000, doc->trace->events[annotation].end() + 1000);
        QTest::qWait(20);
        const QPoint at = timeline->positionOfEvent(annotation);
        QCOMPARE(timeline->eventAt(at), annotation);
        QTest::mouseClick(timeline->viewport(), Qt::LeftButton, {}, at);
        QCOMPARE(timeline->selectedEvent(), annotation);
        const QModelIndexList selected = w.table()->selectionModel()->selectedRows();
        QCOMPARE(selected.size(), 1);
        QCOMPARE(selected.first().data().toString(), QStringLiteral("custom_kernel"));
        QCOMPARE(w.table()->model()->index(selected.first().row(), KeyAveragesModel::DeviceColumn).data().toString().left(3), QStringLiteral("CPU"));

        // Box zoom with Ctrl+drag.
        const double wide = timeline->nsPerPixel();
        QTest::mousePress(timeline->viewport(), Qt::LeftButton, Qt::ControlModifier, QPoint(400, 200));
        QTest::mouseMove(timeline->viewport(), QPoint(500, 200));
        QTest::mouseRelease(timeline->viewport(), Qt::LeftButton, Qt::ControlModifier, QPoint(500, 200));
        QVERIFY(timeline->nsPerPixel() < wide / 5);
        QTest::keyClick(timeline, Qt::Key_F);
        QVERIFY(timeline->nsPerPixel() > wide / 5);

        // Sort by calls by clicking the header, then filter by name.
        QHeaderView* header = w.table()->horizontalHeader();
        const int x = header->sectionViewportPosition(KeyAveragesModel::CountColumn) + 5;
        QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, QPoint(x, header->height() / 2));
        QCOMPARE(header->sortIndicatorSection(), int(KeyAveragesModel::CountColumn));
        auto* model = w.table()->model();
        for (int r = 1; r < model->rowCount(); ++r) {
            const auto a = model->index(r - 1, KeyAveragesModel::CountColumn).data(KeyAveragesModel::SortRole).toLongLong();
            const auto b = model->index(r, KeyAveragesModel::CountColumn).data(KeyAveragesModel::SortRole).toLongLong();
            QVERIFY(header->sortIndicatorOrder() == Qt::AscendingOrder ? a <= b : a >= b);
        }
        QTest::keyClicks(w.tableFilter(), QStringLiteral("cuLaunch"));
        QCOMPARE(model->rowCount(), 1);
        QCOMPARE(model->index(0, KeyAveragesModel::CountColumn).data().toLongLong(), 40);
        w.tableFilter()->clear();
        QCOMPARE(model->rowCount(), 13);

        // Selecting a row highlights it; group by shape adds a row per shape.
        w.groupByShape()->setChecked(true);
        QCOMPARE(model->rowCount(), 13);
        QVERIFY(!w.table()->isColumnHidden(KeyAveragesModel::ShapesColumn));
    }

    void rooflineFollowsSelection()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        loadAndWait(w, QString::fromStdString(testutil::workloadTrace("gemm_compare")));
        const TraceDocument* doc = w.document();
        QVERIFY(w.roofline()->pointCount() >= 1); // the cuBLAS GEMM has work from aten::mm
        const uint32_t nvjet = findEvent(*doc->trace, "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", trace::EventKind::Kernel);
        w.timeline()->selectEvent(nvjet, true);
        QVERIFY(w.roofline()->verdictText().contains(QStringLiteral("tensor-core-bound (strong)")));
        QVERIFY(w.roofline()->verdictText().contains(QStringLiteral("at the roof")));
        // Without an annotation the Triton kernel's work is unknown, and the card says so.
        w.timeline()->selectEvent(findEvent(*doc->trace, "matmul_kernel", trace::EventKind::Kernel), true);
        QVERIFY(w.roofline()->verdictText().contains(QStringLiteral("inconclusive")));
        QVERIFY(w.roofline()->verdictText().contains(QStringLiteral("annotations")));
        // Clicking the GEMM's point selects that kernel in the timeline.
        w.timeline()->selectEvent(trace::kNoIndex, false);
        QSignalSpy clicked(w.roofline(), &RooflinePanel::kernelClicked);
        QCustomPlot* plot = w.roofline()->plot();
        QCPGraph* points = nullptr;
        for (int g = 0; g < plot->graphCount(); ++g)
            if (plot->graph(g)->property("kernelNames").toStringList().contains(QStringLiteral("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT")))
                points = plot->graph(g);
        QVERIFY(points && points->dataCount() == 1);
        plot->replot();
        const QPoint at(int(plot->xAxis->coordToPixel(points->data()->begin()->key)), int(plot->yAxis->coordToPixel(points->data()->begin()->value)));
        QTest::mouseClick(plot, Qt::LeftButton, {}, at);
        QCOMPARE(clicked.size(), 1);
        QCOMPARE(doc->trace->name(doc->trace->events[w.timeline()->selectedEvent()]), std::string_view("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"));
    }

    void rooflineCardShowsAttachedSource()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        loadAndWait(w, QString::fromStdString(testutil::workloadTrace("gemm_compare")));
        RooflinePanel* panel = w.roofline();
        QVERIFY(!panel->attachSourceButton()->isEnabled()); // nothing selected yet
        QVERIFY(!panel->attachSource(QString::fromStdString(testutil::dataPath("tilelang/hopper_wgmma_gemm.cu"))));
        w.timeline()->selectEvent(findEvent(*w.document()->trace, "matmul_kernel", trace::EventKind::Kernel), true);
        QVERIFY(panel->attachSourceButton()->isEnabled());
        QVERIFY(panel->attachSource(QString::fromStdString(testutil::dataPath("tilelang/hopper_wgmma_gemm.cu"))));
        const QString card = panel->verdictText();
        QVERIFY2(card.contains(QStringLiteral("Generated source")), qPrintable(card));
        QVERIFY(card.contains(QStringLiteral("Hopper WGMMA")));
        QVERIFY(card.contains(QStringLiteral("tl::wgmma_*")));
        // A bad file leaves the verdict as it was and says why.
        QTemporaryDir dir;
        const QString empty = dir.filePath(QStringLiteral("empty.cu"));
        QFile(empty).open(QIODevice::WriteOnly);
        QVERIFY(!panel->attachSource(empty));
        QVERIFY(panel->verdictText().contains(QStringLiteral("empty")));
    }

    void rangeSelectionAggregates()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        loadAndWait(w, QString::fromStdString(testutil::workloadTrace("launch_bound")));
        TimelineView* timeline = w.timeline();
        const int total = w.table()->model()->rowCount();
        QSignalSpy aggregated(&w, &MainWindow::rangeAggregated);
        QTest::mousePress(timeline->viewport(), Qt::LeftButton, Qt::ShiftModifier, QPoint(300, 150));
        QTest::mouseMove(timeline->viewport(), QPoint(700, 150));
        QTest::mouseRelease(timeline->viewport(), Qt::LeftButton, Qt::ShiftModifier, QPoint(700, 150));
        QVERIFY(aggregated.wait(10000));
        QVERIFY(timeline->selectedRange().has_value());
        QVERIFY(w.figuresText().startsWith(QStringLiteral("Range")));
        // The range holds fewer kernels than the whole trace.
        qint64 kernels = 0;
        auto* model = w.table()->model();
        for (int r = 0; r < model->rowCount(); ++r)
            if (model->index(r, KeyAveragesModel::NameColumn).data().toString().contains(QStringLiteral("elementwise")))
                kernels += model->index(r, KeyAveragesModel::CountColumn).data().toLongLong();
        QVERIFY(kernels > 0 && kernels < 3000);
        QVERIFY(model->rowCount() <= total);
        QTest::keyClick(timeline, Qt::Key_Escape);
        QVERIFY(!timeline->selectedRange());
    }

    void badFileKeepsCurrentTrace()
    {
        MainWindow w;
        w.show();
        loadAndWait(w, QString::fromStdString(testutil::workloadTrace("jit_cold")));
        const TraceDocument* before = w.document();
        QTemporaryDir dir;
        const QString bad = dir.filePath(QStringLiteral("broken.json"));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"traceEvents\": [");
        f.close();
        QString dialogText;
        QTimer closer; // the error dialog is modal: read and close it from a timer
        connect(&closer, &QTimer::timeout, this, [&] {
            if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
                dialogText = box->text();
                box->close();
            }
        });
        closer.start(50);
        w.openFile(bad);
        QTRY_VERIFY_WITH_TIMEOUT(!dialogText.isEmpty(), 10000);
        QVERIFY(dialogText.contains(bad));
        QVERIFY(dialogText.contains(QStringLiteral("truncated")));
        QCOMPARE(w.document(), before);
    }

    void cancelStopsLoading()
    {
        MainWindow w;
        QSignalSpy cancelled(w.loadJob(), &TraceLoadJob::cancelled);
        QSignalSpy changed(&w, &MainWindow::documentChanged);
        w.openFile(QString::fromStdString(testutil::workloadTrace("train_scheduled")));
        w.loadJob()->cancel();
        QCOMPARE(cancelled.size(), 1);
        QTest::qWait(2000);
        QCOMPARE(changed.size(), 0); // a result that arrives after cancel is dropped
        QVERIFY(!w.document());
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
