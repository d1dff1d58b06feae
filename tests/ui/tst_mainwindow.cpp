// SPDX-License-Identifier: MIT
// The app as a user drives it, under the offscreen platform: load, zoom, select, sort, filter.
#include "testutil.h"
#include "uitestutil.h"

#include "detailspanel.h"
#include "keyaveragesmodel.h"
#include "keyaveragespanel.h"
#include "mainwindow.h"
#include "trace/eventsearch.h"
#include "screenfit.h"
#include "sortarrowstyle.h"
#include "namedelegate.h"
#include "stats/timetext.h"
#include "stats/torchtable.h"
#include "version.h"
#include "rooflinepanel.h"

#undef QT_NO_FOREACH
#include <qcustomplot.h>
#include "timelineview.h"
#include "traceloadjob.h"
#include "tracedocument.h"

#include <QLabel>
#include <QTextBrowser>
#include <QApplication>
#include <QCheckBox>
#include <QHeaderView>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QStyleFactory>
#include <QStyleOptionHeader>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolTip>
#include <QDockWidget>
#include <QtTest>

#include <cmath>

using namespace tilescope;

namespace {

// The header lane a track's lane is filed under.
QString headerOf(const TimelineView& timeline, uint32_t track)
{
    QString header;
    for (const auto& lane : timeline.lanes()) {
        if (lane.kind == TimelineView::Lane::Kind::Header)
            header = lane.label;
        else if (lane.kind == TimelineView::Lane::Kind::Track && lane.id == track)
            return header;
    }
    return {};
}

int countLanes(const TimelineView& timeline, TimelineView::Lane::Kind kind)
{
    return int(std::count_if(timeline.lanes().begin(), timeline.lanes().end(), [&](const auto& lane) { return lane.kind == kind; }));
}

void showActive(MainWindow& w)
{
    w.resize(1400, 900);
    w.show();
    QApplication::setActiveWindow(&w);
    QVERIFY(QTest::qWaitForWindowActive(&w));
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
        testutil::showExposed(w);
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("gemm_compare")));
        const TraceDocument* doc = w.document();
        QVERIFY(doc);
        TimelineView* timeline = w.timeline();
        QVERIFY(timeline->laneCount() >= 6); // overlap lanes, process headers, thread, stream
        QVERIFY(w.figuresText().contains(QStringLiteral("GPU 0 utilization")));
        QVERIFY(!w.figuresText().contains(QStringLiteral("the trace spans"))); // recorded from end to end

        // Zoom in with W around the centre, out with S.
        const double before = timeline->nsPerPixel();
        QTest::keyClick(timeline, Qt::Key_W);
        QVERIFY(timeline->nsPerPixel() < before);
        QTest::keyClick(timeline, Qt::Key_S);
        QVERIFY(std::abs(timeline->nsPerPixel() - before) < before * 1e-6);

        // Select the first torch_ref annotation by clicking it: the table follows.
        const uint32_t annotation = testutil::findEvent(*doc->trace, "custom_kernel", trace::EventKind::UserAnnotation);
        timeline->zoomToRange(doc->trace->events[annotation].start - 1000, doc->trace->events[annotation].end() + 1000);
        QTest::qWait(20);
        const QPoint at = timeline->positionOfEvent(annotation);
        QCOMPARE(timeline->eventAt(at), annotation);
        QTest::mouseClick(timeline->viewport(), Qt::LeftButton, {}, at);
        QCOMPARE(timeline->selectedEvent(), annotation);
        const QModelIndexList selected = w.table()->selectionModel()->selectedRows();
        QCOMPARE(selected.size(), 1);
        QCOMPARE(selected.first().data().toString(), QStringLiteral("custom_kernel"));
        QCOMPARE(w.table()->model()->index(selected.first().row(), KeyAveragesModel::DeviceColumn).data().toString().left(3),
                 QStringLiteral("CPU"));

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
        // The shapes right after the name, in view, at most 240 px of it (torch's table has them last).
        QCOMPARE(w.table()->horizontalHeader()->visualIndex(KeyAveragesModel::ShapesColumn), 1);
        QVERIFY(w.table()->columnWidth(KeyAveragesModel::ShapesColumn) > 40
                && w.table()->columnWidth(KeyAveragesModel::ShapesColumn) <= 240);
        QVERIFY(w.table()->columnViewportPosition(KeyAveragesModel::ShapesColumn) + 40 < w.table()->viewport()->width());
        // torch's columns for this trace: FLOPs (with_flops), no memory (recorded without profile_memory).
        QVERIFY(!w.table()->isColumnHidden(KeyAveragesModel::FlopsColumn));
        QVERIFY(w.table()->isColumnHidden(KeyAveragesModel::CpuMemColumn));
        QVERIFY(w.table()->isColumnHidden(KeyAveragesModel::SelfDeviceMemColumn));
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("memory_churn")));
        QVERIFY(!w.table()->isColumnHidden(KeyAveragesModel::CpuMemColumn));
        QVERIFY(!w.table()->isColumnHidden(KeyAveragesModel::SelfDeviceMemColumn));
        QCOMPARE(w.table()->isColumnHidden(KeyAveragesModel::FlopsColumn), !w.document()->averages.withFlops);
    }

    void rooflineFollowsSelection()
    {
        MainWindow w;
        testutil::showExposed(w, {1600, 1000});
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("gemm_compare")));
        const TraceDocument* doc = w.document();
        QVERIFY(w.roofline()->pointCount() >= 1); // the cuBLAS GEMM has work from aten::mm
        const uint32_t nvjet = testutil::findEvent(*doc->trace, "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", trace::EventKind::Kernel);
        w.timeline()->selectEvent(nvjet, true);
        QVERIFY(w.roofline()->verdictText().contains(QStringLiteral("tensor-core-bound (strong)")));
        QVERIFY(w.roofline()->verdictText().contains(QStringLiteral("at the roof")));
        // Without an annotation the Triton kernel's work is unknown, and the card says so.
        w.timeline()->selectEvent(testutil::findEvent(*doc->trace, "matmul_kernel", trace::EventKind::Kernel), true);
        QVERIFY(w.roofline()->verdictText().contains(QStringLiteral("inconclusive")));
        QVERIFY(w.roofline()->verdictText().contains(QStringLiteral("annotations")));
        // Clicking the GEMM's point selects that kernel in the timeline.
        w.timeline()->selectEvent(trace::kNoIndex, false);
        QSignalSpy clicked(w.roofline(), &RooflinePanel::kernelClicked);
        QCustomPlot* plot = w.roofline()->plot();
        const roofline::Classification* gemm = nullptr;
        for (const auto& k : w.roofline()->report().kernels)
            if (k.name == "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT")
                gemm = &k;
        QVERIFY(gemm && gemm->flops && gemm->bytes);
        plot->replot();
        const QPoint at(int(plot->xAxis->coordToPixel(*gemm->flops / *gemm->bytes)),
                        int(plot->yAxis->coordToPixel(gemm->achievedFlopsPerS)));
        const int rebuilds = w.roofline()->rebuildCount();
        QTest::mouseClick(plot, Qt::LeftButton, {}, at);
        QCOMPARE(clicked.size(), 1);
        // The click goes through the main window once: one plot rebuild for the new selection.
        QCOMPARE(w.roofline()->rebuildCount(), rebuilds + 1);
        QCOMPARE(doc->trace->name(doc->trace->events[w.timeline()->selectedEvent()]),
                 std::string_view("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"));
    }

    // Hover and click mean the same point, the nearest drawn one, also where points overlap (train_scheduled's
    // GEMMs sit close); a kernel wins over a region on the same spot.
    void rooflineHoverAndClickPickTheSamePoint()
    {
        MainWindow w;
        testutil::showExposed(w, {1600, 1000});
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("train_scheduled")));
        testutil::waitReclassified(w.roofline());
        RooflinePanel* panel = w.roofline();
        QCustomPlot* plot = panel->plot();
        // Laid out until it holds: the ticks, the legend's columns and whether it fits settle in queued replots.
        for (int i = 0; i < 3; ++i) {
            plot->replot();
            QCoreApplication::processEvents();
        }
        const bool legend = panel->legendShown();
        const QRect axes = plot->axisRect()->rect();
        plot->replot();
        QCoreApplication::processEvents();
        QCOMPARE(panel->legendShown(), legend);
        QCOMPARE(plot->axisRect()->rect(), axes);
        struct Drawn
        {
            std::string name;
            QPointF at;
            bool region;
        };
        std::vector<Drawn> drawn;
        for (const auto* list : {&panel->report().kernels, &panel->report().regions})
            for (const auto& k : *list)
                if (k.flops && k.bytes && *k.flops > 0 && *k.bytes > 0)
                    drawn.push_back({k.name,
                                     {plot->xAxis->coordToPixel(*k.flops / *k.bytes), plot->yAxis->coordToPixel(k.achievedFlopsPerS)},
                                     list == &panel->report().regions});
        const auto nearest = [&](QPointF pixel) {
            const Drawn* best = nullptr;
            double bestDistance = 1e9;
            for (const Drawn& d : drawn) {
                const double distance = std::hypot(d.at.x() - pixel.x(), d.at.y() - pixel.y());
                if (distance < bestDistance - 1e-9 || (best && std::abs(distance - bestDistance) <= 1e-9 && best->region && !d.region)) {
                    bestDistance = distance;
                    best = &d;
                }
            }
            return QString::fromStdString(best->name);
        };
        QSignalSpy clicked(panel, &RooflinePanel::kernelClicked);
        int checked = 0;
        for (const Drawn& d : drawn)
            for (const QPoint offset : {QPoint(0, 0), QPoint(4, -3), QPoint(-5, 5)}) {
                const QPoint at = d.at.toPoint() + offset;
                const QString expected = nearest(at);
                // Hover: the tooltip the mouse move shows names it.
                QMouseEvent move(QEvent::MouseMove, at, plot->mapToGlobal(at), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
                QApplication::sendEvent(plot, &move);
                QVERIFY2(QToolTip::text().contains(expected), qPrintable(expected + QStringLiteral(" | ") + QToolTip::text()));
                // Click: it is the one selected.
                clicked.clear();
                QTest::mouseClick(plot, Qt::LeftButton, {}, at);
                QCOMPARE(clicked.size(), 1);
                QCOMPARE(clicked.at(0).at(0).toString(), expected);
                plot->replot(); // the click's selection rebuilt the plot
                ++checked;
            }
        QVERIFY(checked >= 6);
    }

    // A demangled kernel signature: Details heads with the name shortened as the table does and gives it whole
    // below the figures.
    void detailsShortenLongNames()
    {
        MainWindow w;
        testutil::showExposed(w, {1600, 1000});
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("train_scheduled")));
        const trace::Trace& t = *w.document()->trace;
        uint32_t kernel = trace::kNoIndex;
        for (uint32_t i = 0; i < t.events.size() && kernel == trace::kNoIndex; ++i)
            if (t.events[i].kind == trace::EventKind::Kernel && t.name(t.events[i]).size() > 150)
                kernel = i;
        QVERIFY(kernel != trace::kNoIndex);
        w.timeline()->selectEvent(kernel, true);
        auto* details = w.findChild<DetailsPanel*>();
        QVERIFY(details);
        const QString text = details->toPlainText();
        const QString full = QString::fromUtf8(t.name(t.events[kernel]).data(), qsizetype(t.name(t.events[kernel]).size()));
        const QString heading = text.section(u'\n', 0, 0);
        QVERIFY2(heading.size() <= 80 && !heading.isEmpty(), qPrintable(heading));
        QVERIFY2(text.contains(QStringLiteral("full name")) && text.contains(full), qPrintable(text));
        // Times in exact µs, from a millisecond up also as the tables write them.
        const int64_t after = t.events[kernel].start - t.originTime();
        QVERIFY(after >= 1'000'000);
        QVERIFY2(text.contains(QString::fromStdString(stats::formatMicroseconds(after)) + QStringLiteral(" µs (")
                               + QString::fromStdString(stats::formatDuration(after)) + QStringLiteral(") after the trace start")),
                 qPrintable(text));
        if (t.events[kernel].duration < 1'000'000)
            QVERIFY(
                text.contains(QStringLiteral("duration"))
                && text.contains(QString::fromStdString(stats::formatMicroseconds(t.events[kernel].duration)) + QStringLiteral(" µs"))
                && !text.contains(QString::fromStdString(stats::formatMicroseconds(t.events[kernel].duration)) + QStringLiteral(" µs (")));
    }

    void rooflineCardShowsAttachedSource()
    {
        MainWindow w;
        testutil::showExposed(w, {1600, 1000});
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("gemm_compare")));
        RooflinePanel* panel = w.roofline();
        QVERIFY(!panel->attachSourceButton()->isEnabled()); // nothing selected yet
        QVERIFY(!panel->attachSource(QString::fromStdString(testutil::dataPath("tilelang/hopper_wgmma_gemm.cu"))));
        w.timeline()->selectEvent(testutil::findEvent(*w.document()->trace, "matmul_kernel", trace::EventKind::Kernel), true);
        QVERIFY(panel->attachSourceButton()->isEnabled());
        QVERIFY(panel->attachSource(QString::fromStdString(testutil::dataPath("tilelang/hopper_wgmma_gemm.cu"))));
        testutil::waitReclassified(panel);
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
        testutil::showExposed(w);
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("launch_bound")));
        TimelineView* timeline = w.timeline();
        const int total = w.table()->model()->rowCount();
        QSignalSpy aggregated(&w, &MainWindow::rangeAggregated);
        QTest::mousePress(timeline->viewport(), Qt::LeftButton, Qt::ShiftModifier, QPoint(300, 150));
        QTest::mouseMove(timeline->viewport(), QPoint(700, 150));
        QTest::mouseRelease(timeline->viewport(), Qt::LeftButton, Qt::ShiftModifier, QPoint(700, 150));
        QVERIFY(aggregated.wait(10000));
        QVERIFY(timeline->selectedRange().has_value());
        QVERIFY(w.figuresText().startsWith(QStringLiteral("Range")));
        // The table says its rows are the events that start in the range (whole), as the figures line clips.
        QCOMPARE(w.keyAverages()->scopeLabel()->text(), QStringLiteral("started in the range"));
        QVERIFY(w.keyAverages()->scopeLabel()->toolTip().contains(QStringLiteral("whole duration")));
        // The range holds fewer kernels than the whole trace.
        qint64 kernels = 0;
        auto* model = w.table()->model();
        for (int r = 0; r < model->rowCount(); ++r)
            if (model->index(r, KeyAveragesModel::NameColumn).data().toString().contains(QStringLiteral("elementwise")))
                kernels += model->index(r, KeyAveragesModel::CountColumn).data().toLongLong();
        QVERIFY(kernels > 0 && kernels < 3000);
        QVERIFY(model->rowCount() <= total);
        // The roofline's card is of the whole trace: with a range on, it says so (its calls are not the table's).
        const std::string kernel = w.roofline()->report().kernels.front().name;
        w.roofline()->showKernel(kernel);
        QVERIFY(w.roofline()->card()->toPlainText().startsWith(
            QStringLiteral("These figures are the whole trace's; the key-averages table has the range's.")));
        QTest::keyClick(timeline, Qt::Key_Escape);
        QVERIFY(!timeline->selectedRange());
        QCOMPARE(w.keyAverages()->scopeLabel()->text(), QStringLiteral("whole trace"));
        w.roofline()->showKernel(kernel);
        QVERIFY(!w.roofline()->card()->toPlainText().contains(QStringLiteral("whole trace's")));
        QVERIFY(w.roofline()->card()->toPlainText().contains(QStringLiteral(" calls, ")));
        // A range dropped with its trace (another one opened) takes the card's note with it.
        QTest::mousePress(timeline->viewport(), Qt::LeftButton, Qt::ShiftModifier, QPoint(300, 150));
        QTest::mouseMove(timeline->viewport(), QPoint(700, 150));
        QTest::mouseRelease(timeline->viewport(), Qt::LeftButton, Qt::ShiftModifier, QPoint(700, 150));
        QVERIFY(aggregated.wait(10000));
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("gemm_compare")));
        QVERIFY(!timeline->selectedRange());
        w.roofline()->showKernel(w.roofline()->report().kernels.front().name);
        QVERIFY2(!w.roofline()->card()->toPlainText().contains(QStringLiteral("whole trace's")),
                 qPrintable(w.roofline()->card()->toPlainText()));
    }

    // What a user sees on opening the sample: every kernel's lane without scrolling, the whole trace.
    void sampleOpensOnKernelsAndWholeTrace()
    {
        MainWindow w;
        showActive(w);
        QSignalSpy changed(&w, &MainWindow::documentChanged);
        w.openBundledSample();
        QVERIFY(changed.wait(30000));
        const TraceDocument* doc = w.document();
        TimelineView* timeline = w.timeline();
        QCOMPARE(timeline->verticalScrollBar()->value(), 0);
        bool kernelLaneVisible = false;
        for (const auto& lane : timeline->lanes()) {
            if (lane.kind != TimelineView::Lane::Kind::Track || doc->trace->tracks[lane.id].type != trace::Track::Type::GpuStream)
                continue;
            const auto& events = doc->trace->tracks[lane.id].events;
            const bool hasKernel = std::any_of(events.begin(), events.end(),
                                               [&](uint32_t e) { return doc->trace->events[e].kind == trace::EventKind::Kernel; });
            kernelLaneVisible = kernelLaneVisible || (hasKernel && lane.y + lane.height <= timeline->viewport()->height());
        }
        QVERIFY2(kernelLaneVisible, "no GPU kernel lane within the viewport");
        // The initial view is the whole content, after the window's layout settled.
        QCOMPARE(timeline->viewStart(), doc->contentStart);
        QVERIFY(std::abs(timeline->viewEnd() - doc->contentEnd) <= int64_t(timeline->nsPerPixel()) + 1);
        QVERIFY(w.figuresText().contains(QStringLiteral("GPU 0 utilization")));

        // The main thread's 25-frame Python stack is folded; a click on its label shows every row.
        const uint32_t mainThread
            = doc->trace->events[testutil::findEvent(*doc->trace, "ProfilerStep#2", trace::EventKind::UserAnnotation)].track;
        const auto laneOf = [&](uint32_t track) {
            for (const auto& lane : timeline->lanes())
                if (lane.kind == TimelineView::Lane::Kind::Track && lane.id == track)
                    return lane;
            return TimelineView::Lane{};
        };
        const int folded = laneOf(mainThread).height;
        QVERIFY(folded <= TimelineView::kCollapsedRows * 16 + 4);
        QVERIFY(laneOf(mainThread).label.startsWith(QStringLiteral("▸")));
        QTest::mouseClick(timeline->viewport(), Qt::LeftButton, {},
                          QPoint(20, laneOf(mainThread).y + 4 - timeline->verticalScrollBar()->value()));
        QVERIFY(timeline->laneExpanded(mainThread));
        QCOMPARE(laneOf(mainThread).height, int(doc->index->depthCount(mainThread)) * 16 + 4);
        timeline->toggleLaneRows(mainThread);
        QCOMPARE(laneOf(mainThread).height, folded);

        // A search hit (selectEvent(e, true)) is centred and drawn: early, late, and deep in a folded stack.
        std::vector<uint32_t> kernels;
        uint32_t deepest = trace::kNoIndex;
        for (uint32_t i = 0; i < doc->trace->events.size(); ++i) {
            const auto& e = doc->trace->events[i];
            if (e.kind == trace::EventKind::Kernel)
                kernels.push_back(i);
            if (e.track == mainThread && e.duration > 0 && (deepest == trace::kNoIndex || e.depth > doc->trace->events[deepest].depth))
                deepest = i;
        }
        std::sort(kernels.begin(), kernels.end(),
                  [&](uint32_t a, uint32_t b) { return doc->trace->events[a].start < doc->trace->events[b].start; });
        QVERIFY(doc->index->compactDepth(deepest) == timeline::TimelineIndex::kHidden
                || doc->index->compactDepth(deepest) >= TimelineView::kCollapsedRows);
        for (const uint32_t e : {kernels.front(), kernels.back(), deepest}) {
            const auto& event = doc->trace->events[e];
            timeline->selectEvent(e, true);
            QVERIFY(timeline->viewStart() >= doc->trace->firstTime());
            QVERIFY(timeline->viewEnd() <= doc->trace->lastTime() + int64_t(timeline->nsPerPixel()) + 1);
            QVERIFY(timeline->viewStart() <= event.start && event.end() <= timeline->viewEnd());
            QVERIFY(double(event.duration) / timeline->nsPerPixel() >= 3); // drawn as itself, not folded
            const QPoint at = timeline->positionOfEvent(e);
            QVERIFY(at.y() > timeline->axisHeight() && at.y() < timeline->viewport()->height());
            QCOMPARE(timeline->eventAt(at), e);
        }

        // F/W/A/S/D work while the table has focus, not while a text field has.
        w.table()->setFocus();
        QTest::keyClick(w.table(), Qt::Key_F);
        QCOMPARE(timeline->viewStart(), doc->contentStart);
        const double fitted = timeline->nsPerPixel();
        QTest::keyClick(w.table(), Qt::Key_W);
        QVERIFY(timeline->nsPerPixel() < fitted);
        const int64_t zoomedStart = timeline->viewStart();
        QTest::keyClick(w.table(), Qt::Key_D);
        QVERIFY(timeline->viewStart() > zoomedStart);
        QTest::keyClick(w.table(), Qt::Key_A);
        QCOMPARE(timeline->viewStart(), zoomedStart);
        QTest::keyClick(w.table(), Qt::Key_S);
        QVERIFY(std::abs(timeline->nsPerPixel() - fitted) < fitted * 1e-6);
        w.tableFilter()->setFocus();
        QTest::keyClick(w.tableFilter(), Qt::Key_W);
        QVERIFY(std::abs(timeline->nsPerPixel() - fitted) < fitted * 1e-6);
        QCOMPARE(w.tableFilter()->text(), QStringLiteral("w"));
        w.tableFilter()->clear();

        // Highlighting a name dims the rest; clearing it (and the selection) restores the picture.
        timeline->selectEvent(trace::kNoIndex, false);
        timeline->verticalScrollBar()->setValue(0);
        const QImage plain = timeline->viewport()->grab().toImage();
        timeline->highlightName(std::make_pair(doc->trace->events[kernels.front()].name, false));
        QVERIFY(timeline->viewport()->grab().toImage() != plain);
        timeline->highlightName(std::nullopt);
        QCOMPARE(timeline->viewport()->grab().toImage(), plain);
        timeline->selectEvent(testutil::findEvent(*doc->trace, "ProfilerStep#2", trace::EventKind::UserAnnotation), false);
        QVERIFY(timeline->viewport()->grab().toImage() != plain);
        timeline->selectEvent(trace::kNoIndex, false);
        QCOMPARE(timeline->viewport()->grab().toImage(), plain);
    }

    // Two threads with long names stay apart when their labels are elided.
    void elidedLabelsKeepThreadIds()
    {
        TimelineView timeline;
        const QFontMetrics metrics(timeline.font());
        const QString a = TimelineView::elideLabel(QStringLiteral("thread 3553 (pt_main_thread_with_a_long_name)"), metrics, 160);
        const QString b = TimelineView::elideLabel(QStringLiteral("thread 3554 (pt_main_thread_with_a_long_name)"), metrics, 160);
        QVERIFY(a != b);
        QVERIFY(a.startsWith(QStringLiteral("thread 3553 (")));
        QVERIFY2(a.endsWith(QStringLiteral("name)")), qPrintable(a));
        QVERIFY(metrics.horizontalAdvance(a) <= 160);
        QCOMPARE(TimelineView::elideLabel(QStringLiteral("stream 7"), metrics, 120), QStringLiteral("stream 7"));
        QVERIFY(!TimelineView::legendHtml().isEmpty());
    }

    // A CPU-only trace: no overlap lane that is all "GPU idle", threads filed under their process.
    // A trace mostly without events (jit_cold: 365 ms, 1.45 ms of it ops and kernels) says so beside the fitted
    // view's figures, as `tilescope-cli overlap` does.
    void mostlyUnrecordedTraceSaysSo()
    {
        MainWindow w;
        testutil::showExposed(w);
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("jit_cold")));
        QVERIFY2(w.figuresText().contains(QStringLiteral("View, first to last activity")), qPrintable(w.figuresText()));
        QVERIFY2(w.figuresText().contains(QStringLiteral("the trace spans 365.303ms, most of it with no op, CUDA call or kernel recorded")),
                 qPrintable(w.figuresText()));
        // A view over the empty start that ends inside the activity: cut at one end only, the note still there.
        const analysis::Interval activity = w.document()->overlap.window;
        w.timeline()->zoomToRange(w.document()->trace->firstTime(), (activity.start + activity.end) / 2);
        QTRY_VERIFY2(w.figuresText().contains(QStringLiteral("View from the first activity")), qPrintable(w.figuresText()));
        QVERIFY2(w.figuresText().contains(QStringLiteral("the trace spans 365.303ms")), qPrintable(w.figuresText()));
    }

    // The figures above the timeline wrap to two or three lines as the view changes: the tracks stay where
    // they are while zooming (they moved 14 px under the mouse).
    void zoomingKeepsTheTracksInPlace()
    {
        MainWindow w;
        testutil::showExposed(w, {1366, 738});
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("train_scheduled")));
        TimelineView* timeline = w.timeline();
        const int top = timeline->mapTo(&w, QPoint()).y();
        QSet<qsizetype> lengths;
        for (int i = 0; i < 12; ++i) {
            QTest::keyClick(timeline, i < 8 ? Qt::Key_W : Qt::Key_S);
            QTest::qWait(150); // the figures follow the view on a timer
            lengths.insert(w.figuresText().size());
            QCOMPARE(timeline->mapTo(&w, QPoint()).y(), top);
        }
        QVERIFY2(lengths.size() > 3, qPrintable(QString::number(lengths.size()))); // the text did change
    }

    // A CUPTI range profiler's trace has kernels, but as counter records at placeholder times: the figures line says
    // why it has no timed GPU activity rather than that none ran.
    void profilerRangeTraceSaysWhatItsKernelsAre()
    {
        MainWindow w;
        showActive(w);
        testutil::loadAndWait(
            w, QString::fromStdString(testutil::dataPath("external/hta/cupti_profiler_benchmark_result_924719_1679055439_trace.json.gz")));
        QVERIFY2(w.figuresText().contains(QStringLiteral("no timed GPU activity in this trace, as its 77 kernels are CUPTI "
                                                         "range-profiler records (cuda_profiler_range)")),
                 qPrintable(w.figuresText()));
        // Details says such a record's time is the profiler's placeholder.
        const trace::Trace& t = *w.document()->trace;
        uint32_t record = trace::kNoIndex;
        for (uint32_t i = 0; i < t.events.size() && record == trace::kNoIndex; ++i)
            if (t.strings.view(t.events[i].category) == "cuda_profiler_range")
                record = i;
        QVERIFY(record != trace::kNoIndex);
        w.timeline()->selectEvent(record, true);
        auto* details = w.findChild<DetailsPanel*>();
        QVERIFY(details);
        QVERIFY2(details->toPlainText().contains(QStringLiteral("a placeholder: CUPTI range-profiler records are not timed")),
                 qPrintable(details->toPlainText()));
    }

    void cpuOnlyTraces()
    {
        MainWindow w;
        showActive(w);
        testutil::loadAndWait(
            w, QString::fromStdString(testutil::dataPath("external/hta/cpu_only_rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz")));
        TimelineView* timeline = w.timeline();
        QCOMPARE(countLanes(*timeline, TimelineView::Lane::Kind::Overlap), 0);
        QCOMPARE(countLanes(*timeline, TimelineView::Lane::Kind::DeviceBusy), 0);
        // The figures line does not report GPU idle time for a trace without a GPU.
        QVERIFY2(w.figuresText().contains(QStringLiteral("no GPU activity")), qPrintable(w.figuresText()));
        QVERIFY(!w.figuresText().contains(QStringLiteral("GPU idle while CPU works")));
        QVERIFY(!w.figuresText().contains(QStringLiteral("CUPTI")));
        // Nor CUDA columns in the table, as torch's table for a run without GPU time.
        QVERIFY(w.table()->isColumnHidden(KeyAveragesModel::SelfDevicePercentColumn));
        QVERIFY(w.table()->isColumnHidden(KeyAveragesModel::DeviceTotalColumn));
        QVERIFY(!w.table()->isColumnHidden(KeyAveragesModel::SelfCpuPercentColumn));
        // Its two pt_main_thread threads keep their ids in the labels as drawn.
        QStringList drawn;
        for (const auto& lane : timeline->lanes())
            if (lane.kind == TimelineView::Lane::Kind::Track)
                drawn << TimelineView::elideLabel(lane.label, timeline->fontMetrics(), timeline->labelWidth() - 12);
        QVERIFY(drawn.contains(QStringLiteral("thread 3553 (pt_main_thread)"))
                || drawn.filter(QStringLiteral("thread 3553 (")).size() == 1);
        QCOMPARE(drawn.filter(QStringLiteral("thread 3554 (")).size(), 1);
        for (const auto& lane : timeline->lanes()) {
            QVERIFY2(!lane.label.contains(QStringLiteral("()")), qPrintable(lane.label));
            QVERIFY(!timeline->laneToolTip(lane).isEmpty());
        }
        const trace::Trace& t = *w.document()->trace;
        for (uint32_t track = 0; track < t.tracks.size(); ++track)
            if (t.tracks[track].type == trace::Track::Type::HostThread)
                QVERIFY(headerOf(*timeline, track).contains(QStringLiteral("pyper:trainer:8:2 (pid 1074)")));

        // torch 1.13's legacy profiler: one process "CPU functions" with no name.
        testutil::loadAndWait(w, QString::fromStdString(testutil::dataPath("legacy/cpu_newapi/trace.json")));
        QCOMPARE(countLanes(*timeline, TimelineView::Lane::Kind::Overlap), 0);
        const trace::Trace& legacy = *w.document()->trace;
        int threads = 0;
        for (uint32_t track = 0; track < legacy.tracks.size(); ++track)
            if (legacy.tracks[track].type == trace::Track::Type::HostThread) {
                ++threads;
                QCOMPARE(headerOf(*timeline, track), QStringLiteral("▾ process CPU functions"));
            }
        QVERIFY(threads >= 1);
    }

    // GPUs without activity get no busy lane unless asked for.
    void idleDevicesHidden()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("two_gpus.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"deviceProperties": [{"id": 0, "name": "H200"}, {"id": 1, "name": "H200"}], "traceEvents": [
            {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 10, "tid": 10, "ts": 0, "dur": 50},
            {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 20, "dur": 40, "args": {"device": 0, "stream": 7}}]})");
        f.close();
        MainWindow w;
        showActive(w);
        testutil::loadAndWait(w, path);
        TimelineView* timeline = w.timeline();
        QCOMPARE(w.document()->overlap.devices.size(), size_t(2));
        QCOMPARE(countLanes(*timeline, TimelineView::Lane::Kind::DeviceBusy), 1);
        QCOMPARE(countLanes(*timeline, TimelineView::Lane::Kind::Overlap), 1);
        timeline->setShowIdleDevices(true);
        QCOMPARE(countLanes(*timeline, TimelineView::Lane::Kind::DeviceBusy), 2);
        timeline->setShowIdleDevices(false);
        QCOMPARE(countLanes(*timeline, TimelineView::Lane::Kind::DeviceBusy), 1);
    }

    void badFileKeepsCurrentTrace()
    {
        MainWindow w;
        w.show();
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("jit_cold")));
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
        QCOMPARE(dialogText.count(bad), 1); // the heading names it; the loader's message, which starts with it, does not again
        QVERIFY(dialogText.contains(QStringLiteral("truncated")));
        QCOMPARE(w.document(), before);
    }

    // An allocator snapshot opened as a trace: the dialog offers the app's way in, and does not send the user
    // to the CLI as the loader's own message does.
    void memorySnapshotOpenedAsATraceOffersTheSnapshotView()
    {
        MainWindow w;
        w.show();
        QString dialogText;
        QStringList buttons;
        QTimer closer;
        connect(&closer, &QTimer::timeout, this, [&] {
            if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
                dialogText = box->text();
                for (QAbstractButton* b : box->buttons())
                    buttons << b->text();
                box->close();
            }
        });
        closer.start(50);
        const QString snapshot = QString::fromStdString(testutil::dataPath("memory/memory_snapshot.pickle"));
        w.openFile(snapshot);
        QTRY_VERIFY_WITH_TIMEOUT(!dialogText.isEmpty(), 10000);
        QVERIFY2(dialogText.contains(QStringLiteral("allocator snapshot")), qPrintable(dialogText));
        QVERIFY2(!dialogText.contains(QStringLiteral("tilescope-cli")), qPrintable(dialogText));
        QVERIFY2(buttons.contains(QStringLiteral("Open as Memory Snapshot")), qPrintable(buttons.join(u',')));
        // The CLI's message keeps its hint.
        const auto cli = testutil::runProcess(QStringLiteral(TILESCOPE_CLI), {QStringLiteral("info"), snapshot});
        QVERIFY2(cli.err.contains("tilescope-cli memory"), cli.err.constData());
    }

    void truncatedTraceOffersItsReadablePart()
    {
        MainWindow w;
        w.show();
        QTemporaryDir dir;
        const QString cut = dir.filePath(QStringLiteral("crashed.pt.trace.json.gz"));
        const std::string whole = testutil::readFile(testutil::workloadTrace("launch_bound"));
        QFile f(cut);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(whole.data(), qint64(whole.size() * 6 / 10)); // a run that died while writing its trace
        f.close();
        QSettings().setValue(QStringLiteral("recentFiles"), QStringList{cut});
        QString dialogText;
        bool offered = false;
        QTimer clicker;
        connect(&clicker, &QTimer::timeout, this, [&] {
            auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            if (!box)
                return;
            dialogText = box->text() + box->informativeText();
            for (QAbstractButton* b : box->buttons())
                if (b->text() == QStringLiteral("Open Readable Part")) {
                    offered = true;
                    b->click();
                    return;
                }
            box->close();
        });
        clicker.start(50);
        QSignalSpy changed(&w, &MainWindow::documentChanged);
        w.openFile(cut);
        QVERIFY(changed.wait(20000));
        QVERIFY2(offered, qPrintable(dialogText));
        QVERIFY(dialogText.contains(QStringLiteral("complete event")));
        QVERIFY(w.document()->trace->stats.partial);
        QVERIFY(w.document()->trace->events.size() > 100);
        // Said where the eye goes first, not in the status bar alone: the title and the figures line.
        QVERIFY2(w.windowTitle().contains(QStringLiteral("(partial")), qPrintable(w.windowTitle()));
        QVERIFY2(w.figuresText().contains(QStringLiteral("Partial load: only the events before the damage")), qPrintable(w.figuresText()));
        // The file did open (partly): it stays in Open Recent.
        QVERIFY(QSettings().value(QStringLiteral("recentFiles")).toStringList().contains(cut));
    }

    void failedFilesLeaveRecentAndReopenLast()
    {
        MainWindow w;
        w.show();
        const QString good = QString::fromStdString(testutil::workloadTrace("gemm_compare"));
        QTemporaryDir dir;
        const QString missing = dir.filePath(QStringLiteral("gone.json"));
        QSettings().setValue(QStringLiteral("recentFiles"), QStringList{missing, good});
        QSettings().setValue(QStringLiteral("lastFile"), missing);
        QTimer closer;
        connect(&closer, &QTimer::timeout, this, [] {
            if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget()))
                box->close();
        });
        closer.start(50);
        QSignalSpy failed(w.loadJob(), &TraceLoadJob::failed);
        w.reopenLast();
        QVERIFY(failed.wait(10000));
        QTest::qWait(200);
        QCOMPARE(QSettings().value(QStringLiteral("recentFiles")).toStringList(), QStringList{good});
        QCOMPARE(QSettings().value(QStringLiteral("lastFile")).toString(), good);
    }

    // View > Reset Layout brings closed docks back and floating ones home.
    void resetLayoutRestoresTheDocks()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTest::qWait(50); // the first layout is taken once the docks have their heights
        auto* roofline = w.findChild<QDockWidget*>(QStringLiteral("roofline"));
        auto* details = w.findChild<QDockWidget*>(QStringLiteral("details"));
        QVERIFY(roofline && details && details->isVisible() && !roofline->isFloating());
        const int detailsHeight = details->height();
        roofline->setFloating(true);
        details->close();
        QVERIFY(!details->isVisible() && roofline->isFloating());
        QAction* reset = testutil::menuAction(w, QStringLiteral("&Reset Layout"));
        QVERIFY(reset);
        reset->trigger();
        QVERIFY(QTest::qWaitFor([&] { return details->isVisible() && !roofline->isFloating(); }, 5000));
        QTRY_VERIFY2_WITH_TIMEOUT(std::abs(details->height() - detailsHeight) <= 2,
                                  qPrintable(QStringLiteral("%1 against %2").arg(details->height()).arg(detailsHeight)), 3000);
    }

    // Enter in Search selects the next match and says which of how many it is.
    void searchSaysWhichMatch()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("gemm_compare")));
        const trace::EventSearch expected(*w.document()->trace, "nvjet");
        const size_t count = expected.positionOf(trace::kNoIndex).count;
        QVERIFY(count > 2);
        // Ctrl+F from the timeline: the search box, what it holds selected to be typed over.
        w.searchField()->setText(QStringLiteral("old"));
        w.activateWindow();
        w.timeline()->setFocus();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QTest::keyClick(w.timeline(), Qt::Key_F, Qt::ControlModifier);
        QTRY_COMPARE(QApplication::focusWidget(), static_cast<QWidget*>(w.searchField()));
        QCOMPARE(w.searchField()->selectedText(), QStringLiteral("old"));
        QTest::keyClicks(w.searchField(), QStringLiteral("nvjet"));
        QCOMPARE(w.searchField()->text(), QStringLiteral("nvjet"));
        QTest::keyClick(w.searchField(), Qt::Key_Return);
        QCOMPARE(w.statusBar()->currentMessage(), QStringLiteral("Match 1 of %1 for 'nvjet'").arg(count));
        QTest::keyClick(w.searchField(), Qt::Key_Return);
        QCOMPARE(w.statusBar()->currentMessage(), QStringLiteral("Match 2 of %1 for 'nvjet'").arg(count));
        // The GPU's lanes are at the top and in view: a hit there does not scroll them under the ruler.
        QCOMPARE(w.timeline()->verticalScrollBar()->value(), 0);
        w.searchField()->setText(QStringLiteral("no such name"));
        QTest::keyClick(w.searchField(), Qt::Key_Return);
        QCOMPARE(w.statusBar()->currentMessage(), QStringLiteral("No event matches 'no such name'"));
    }

    // A hit out of view scrolls its row to the middle of the lanes' part of the view, below the ruler; one in view
    // stays where it is.
    void selectedRowScrollsIntoViewBelowTheRuler()
    {
        MainWindow w;
        w.resize(1400, 500);
        w.show();
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("train_scheduled")));
        TimelineView* timeline = w.timeline();
        const trace::Trace& t = *w.document()->trace;
        for (const uint32_t track : w.document()->laneOrder) // every CPU lane's rows: taller than the view
            if (t.tracks[track].type == trace::Track::Type::HostThread)
                timeline->toggleLaneRows(track);
        // The last CPU op of the last host thread's lane: far below the view.
        uint32_t deep = trace::kNoIndex;
        for (const TimelineView::Lane& lane : timeline->lanes())
            if (lane.kind == TimelineView::Lane::Kind::Track && t.tracks[lane.id].type == trace::Track::Type::HostThread
                && !t.tracks[lane.id].events.empty())
                deep = t.tracks[lane.id].events.back();
        QVERIFY(deep != trace::kNoIndex);
        timeline->selectEvent(deep, true);
        const int value = timeline->verticalScrollBar()->value();
        QVERIFY(value > 0);
        const int rowMiddle = timeline->positionOfEvent(deep).y(); // the event's row, on screen
        QVERIFY2(rowMiddle - timeline->rowHeight() / 2 >= timeline->axisHeight() && rowMiddle < timeline->viewport()->height(),
                 qPrintable(QString::number(rowMiddle)));
        timeline->selectEvent(deep, true); // in view now: no scroll
        QCOMPARE(timeline->verticalScrollBar()->value(), value);
        // From the top, a row in view below the middle: centring it scrolled the top lanes under the ruler.
        timeline->verticalScrollBar()->setValue(0);
        const int height = timeline->viewport()->height();
        uint32_t inView = trace::kNoIndex;
        for (const TimelineView::Lane& lane : timeline->lanes())
            if (lane.kind == TimelineView::Lane::Kind::Track)
                for (const uint32_t e : t.tracks[lane.id].events)
                    if (const int y = timeline->positionOfEvent(e).y(); inView == trace::kNoIndex && y > height / 2 + 12 && y < height - 12)
                        inView = e;
        QVERIFY(inView != trace::kNoIndex);
        timeline->selectEvent(inView, true);
        QCOMPARE(timeline->verticalScrollBar()->value(), 0);
    }

    // A trace opens at its top lanes (the GPU's), not where the last one was scrolled to.
    void aNewTraceStartsAtTheTop()
    {
        MainWindow w;
        w.resize(1400, 500);
        w.show();
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("train_scheduled")));
        for (const uint32_t track : w.document()->laneOrder) // every CPU lane's rows: taller than the view
            if (w.document()->trace->tracks[track].type == trace::Track::Type::HostThread)
                w.timeline()->toggleLaneRows(track);
        QScrollBar* lanes = w.timeline()->verticalScrollBar();
        QVERIFY(lanes->maximum() > 0);
        lanes->setValue(lanes->maximum());
        const int scrolled = lanes->value();
        // Another trace with lanes enough to stay scrolled: train_scheduled again, its CPU lanes folded.
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("train_scheduled")));
        QVERIFY(lanes->maximum() > 0);
        QVERIFY(scrolled > 0);
        QCOMPARE(lanes->value(), 0);
    }

    void nothingTypedCarriesOverToTheNextTrace()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("gemm_compare")));
        QTest::keyClicks(w.tableFilter(), QStringLiteral("aten"));
        QTest::keyClicks(w.searchField(), QStringLiteral("nvjet"));
        QVERIFY(w.table()->model()->rowCount() < 13);
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("launch_bound")));
        QVERIFY(w.tableFilter()->text().isEmpty());
        QVERIFY(w.searchField()->text().isEmpty());
        const auto* shown = w.keyAverages()->model()->averages().get();
        QCOMPARE(w.table()->model()->rowCount(), int(shown->rows.size()));
    }

    void sortAndFilterScrollToTheTop()
    {
        MainWindow w;
        testutil::showExposed(w);
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("train_scheduled")));
        QTableView* table = w.table();
        QVERIFY(table->model()->rowCount() > 40);
        table->scrollToBottom();
        QVERIFY(table->verticalScrollBar()->value() > 0);
        table->sortByColumn(KeyAveragesModel::CountColumn, Qt::DescendingOrder);
        QCOMPARE(table->verticalScrollBar()->value(), 0);
        table->scrollToBottom();
        QTest::keyClicks(w.tableFilter(), QStringLiteral("a"));
        QCOMPARE(table->verticalScrollBar()->value(), 0);
    }

    void deselectingClearsTheHighlightAndTheTableRow()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("gemm_compare")));
        // Select a table row (the timeline highlights its occurrences), then click empty timeline space.
        QTableView* table = w.table();
        table->selectRow(0);
        QVERIFY(w.timeline()->hasHighlight());
        w.timeline()->selectEvent(trace::kNoIndex, false);
        QVERIFY(!w.timeline()->hasHighlight());
        QVERIFY(table->selectionModel()->selectedRows().isEmpty());
        // Selecting an event replaces a row's highlight rather than keeping the timeline dimmed.
        table->selectRow(0);
        QVERIFY(w.timeline()->hasHighlight());
        w.timeline()->selectEvent(testutil::findEvent(*w.document()->trace, "matmul_kernel", trace::EventKind::Kernel), true);
        QVERIFY(!w.timeline()->hasHighlight());
        QCOMPARE(table->selectionModel()->selectedRows().size(), 1);
    }

    void similarKernelNamesReadApartInTheTable()
    {
        // Six multi_tensor_apply kernels of the sample: at the Name column's width, each reads differently.
        MainWindow w;
        testutil::showExposed(w);
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("train_scheduled")));
        QTableView* table = w.table();
        const int width = table->columnWidth(KeyAveragesModel::NameColumn) - 8;
        QSet<QString> shown;
        int similar = 0;
        for (int r = 0; r < table->model()->rowCount(); ++r) {
            const QString name = table->model()->index(r, KeyAveragesModel::NameColumn).data().toString();
            if (!name.contains(QStringLiteral("multi_tensor_apply_kernel")))
                continue;
            ++similar;
            QCOMPARE(table->model()->index(r, KeyAveragesModel::NameColumn).data(Qt::ToolTipRole).toString(), name);
            shown.insert(NameDelegate::fit(name, table->fontMetrics(), width));
        }
        QVERIFY(similar >= 6);
        QCOMPARE(shown.size(), similar);
        // Narrower than their template arguments, they still read apart in the table.
        QStringList narrow;
        for (int r = 0; r < table->model()->rowCount(); ++r) {
            const QString name = table->model()->index(r, KeyAveragesModel::NameColumn).data().toString();
            if (name.contains(QStringLiteral("multi_tensor_apply_kernel")))
                narrow.append(name);
        }
        const QStringList narrowShown = NameDelegate::fitApart(narrow, table->fontMetrics(), 300);
        QCOMPARE(QSet<QString>(narrowShown.cbegin(), narrowShown.cend()).size(), similar);
        // The Device column is wide enough for "CUDA (annotation)".
        const int device = table->columnWidth(KeyAveragesModel::DeviceColumn);
        QVERIFY(device >= table->fontMetrics().horizontalAdvance(QStringLiteral("CPU (annotation)")));
    }

    // Kernels that differ only in a template argument the short forms drop (tb_plugin's ResNet-50: four
    // implicit_convolve_sgemm, several vectorized_elementwise_kernel) read the same when fitted alone; fitted
    // as the rows of one column they read apart, as the start of a longer form. A name on two rows (a CPU op
    // and its CUDA annotation) is one name and reads the same on both.
    void differentKernelsNeverReadTheSame()
    {
        const QStringList names = {
            QStringLiteral("void implicit_convolve_sgemm<float, float, 1024, 6, 7, 3, 3, 5, 1, false, true, true>(int, int, int, float "
                           "const*, int, float*, float const*, kernel_conv_params, unsigned long long, int, float, float, int, float "
                           "const*, float const*, bool, int, int)"),
            QStringLiteral("void implicit_convolve_sgemm<float, float, 128, 6, 7, 3, 3, 5, 1, false, true, true>(int, int, int, float "
                           "const*, int, float*, float const*, kernel_conv_params, unsigned long long, int, float, float, int, float "
                           "const*, float const*, bool, int, int)"),
            QStringLiteral("void implicit_convolve_sgemm<float, float, 512, 6, 8, 3, 3, 5, 1, false, true, true>(int, int, int, float "
                           "const*, int, float*, float const*, kernel_conv_params, unsigned long long, int, float, float, int, float "
                           "const*, float const*, bool, int, int)"),
            QStringLiteral("void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>, at::detail::Array<char*, 3> "
                           ">(int, at::native::AddFunctor<float>, at::detail::Array<char*, 3>)"),
            QStringLiteral("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> "
                           ">(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)"),
            QStringLiteral("void at::native::vectorized_elementwise_kernel<4, at::native::MulScalarFunctor<float, float>, "
                           "at::detail::Array<char*, 2> >(int, at::native::MulScalarFunctor<float, float>, at::detail::Array<char*, 2>)"),
            QStringLiteral("aten::add"),
            QStringLiteral("aten::add"),
        };
        const QFontMetrics metrics(QApplication::font());
        for (const int width : {260, 320, 400}) {
            QSet<QString> alone;
            for (const QString& name : names)
                alone.insert(NameDelegate::fit(name, metrics, width));
            QVERIFY2(alone.size() < 7, qPrintable(QString::number(width))); // the case this is about
            const QStringList shown = NameDelegate::fitApart(names, metrics, width);
            QCOMPARE(shown.size(), names.size());
            QCOMPARE(QSet<QString>(shown.cbegin(), shown.cend()).size(), 7);
            QCOMPARE(shown[6], shown[7]);
            for (const QString& text : shown)
                QVERIFY2(metrics.horizontalAdvance(text) <= width, qPrintable(text));
        }
    }

    void fileDialogsStartBesideTheTrace()
    {
        MainWindow w;
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("gemm_compare")));
        QCOMPARE(w.dialogFolder(), QFileInfo(QString::fromStdString(testutil::workloadTrace("gemm_compare"))).absolutePath());
    }

    // A fitted view gives `tilescope-cli overlap`'s figures: its margins past the first and last activity are cut.
    void fittedViewGivesTheOverlapFigures()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("train_scheduled")));
        w.timeline()->fitAll();
        const analysis::OverlapReport& whole = w.document()->overlap;
        QVERIFY(w.timeline()->viewEnd() - w.timeline()->viewStart() > whole.window.end - whole.window.start);
        const QString window = QString::fromStdString(stats::formatDuration(whole.window.end - whole.window.start));
        QTRY_VERIFY2(w.figuresText().startsWith(QStringLiteral("View, first to last activity %1: ").arg(window)),
                     qPrintable(w.figuresText()));
        QVERIFY2(w.figuresText().contains(QStringLiteral("GPU 0 utilization %1%").arg(100 * whole.devices[0].utilization, 0, 'f', 1)),
                 qPrintable(w.figuresText()));
        // Zoomed inside the activity, the view is the window.
        QTest::keyClick(w.timeline(), Qt::Key_W);
        QTest::keyClick(w.timeline(), Qt::Key_W);
        QTRY_VERIFY2(w.figuresText().startsWith(QStringLiteral("View ")), qPrintable(w.figuresText()));
    }

    void launchBoundFlagAgreesWithItsNumbers()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("launch_bound")));
        w.timeline()->fitAll();
        QTRY_VERIFY(w.figuresText().contains(QStringLiteral("launches cost at least 80% of their kernel")));
        const auto r = w.document()->overlapIndex->figures({w.timeline()->viewStart(), w.timeline()->viewEnd()});
        QVERIFY(r.launchBound());
        // "N of M kernel launches": the flag states the count it rests on.
        const QString expected = QStringLiteral("%1 of %2 kernel launches")
                                     .arg(QString::fromStdString(stats::formatCount(r.launches.costlyLaunches)),
                                          QString::fromStdString(stats::formatCount(r.launches.count)));
        QVERIFY2(w.figuresText().contains(expected), qPrintable(w.figuresText()));
        QVERIFY(w.figuresText().contains(QStringLiteral("launch-bound")));
    }

    void helpMenuShortcutsAndAbout()
    {
        QVERIFY(TimelineView::legendHtml().contains(QStringLiteral("red")));
        MainWindow w;
        QStringList menus;
        for (QAction* a : w.menuBar()->actions())
            menus << a->text().remove(u'&');
        QVERIFY(menus.contains(QStringLiteral("Help")));
        QVERIFY(MainWindow::shortcutsHtml().contains(QStringLiteral("Shift+drag")));
        QVERIFY(MainWindow::shortcutsHtml().contains(QKeySequence(QKeySequence::Find).toString(QKeySequence::NativeText)));
        QVERIFY(MainWindow::aboutHtml().contains(QString::fromLatin1(tilescope::kVersion)));
        QVERIFY(MainWindow::aboutHtml().contains(QString::fromLatin1(tilescope::kCommit)));
    }

    // Every dock shown, the window still fits a 1920x1080 screen (with room for a panel and the title bar).
    void fitsAFullHdScreen()
    {
        MainWindow w;
        testutil::showExposed(w);
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("memory_churn")));
        const QSize minimum = w.minimumSizeHint();
        QString docks;
        for (QDockWidget* d : w.findChildren<QDockWidget*>())
            docks += d->windowTitle() + QStringLiteral(" %1x%2; ").arg(d->minimumSizeHint().width()).arg(d->minimumSizeHint().height());
        QVERIFY2(minimum.height() <= 950 && minimum.width() <= 1800,
                 qPrintable(QStringLiteral("minimum %1x%2: ").arg(minimum.width()).arg(minimum.height()) + docks));
    }

    // A short screen (a 1366x768 laptop's, or an older 1024x768 one): the right-hand docks take the whole height,
    // so the window fits under a title bar with room left for the timeline and the table.
    void fitsALaptopScreen_data()
    {
        QTest::addColumn<QSize>("room");
        QTest::newRow("1366x768") << QSize(1366, 738);
        QTest::newRow("1024x768") << QSize(1024, 738);
    }
    void fitsALaptopScreen()
    {
        QFETCH(QSize, room);
        MainWindow w;
        w.useShortScreenLayout();
        testutil::showExposed(w, room);
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("train_scheduled")));
        const QSize minimum = w.minimumSizeHint();
        QString docks;
        for (QDockWidget* d : w.findChildren<QDockWidget*>())
            if (d->isVisible())
                docks += d->windowTitle() + QStringLiteral(" %1x%2; ").arg(d->minimumSizeHint().width()).arg(d->minimumSizeHint().height());
        QVERIFY2(minimum.height() <= room.height() && minimum.width() <= room.width(),
                 qPrintable(QStringLiteral("minimum %1x%2: ").arg(minimum.width()).arg(minimum.height()) + docks));
        QTest::qWait(50); // the docks' first heights
        QVERIFY2(w.timeline()->height() >= 200, qPrintable(QString::number(w.timeline()->height())));
        QVERIFY2(w.keyAverages()->height() >= 120, qPrintable(QString::number(w.keyAverages()->height())));
    }

    // How the window opens on a screen (app/gui/main.cpp): at the default size where it fits with its frame,
    // else maximized, and under 1000 px high in the short screen's layout.
    // A header sorted largest first shows a down arrow, smallest first an up one (Qt's headers ask for the
    // opposite). What the header asks is recorded under SortArrowStyle, which turns it the right way.
    void sortArrowPointsTheWayValuesGo()
    {
        struct RecordingStyle : QProxyStyle
        {
            using QProxyStyle::QProxyStyle;
            mutable QList<QStyleOptionHeader::SortIndicator> arrows;
            void drawPrimitive(PrimitiveElement element, const QStyleOption* option, QPainter* painter,
                               const QWidget* widget) const override
            {
                if (const auto* header = qstyleoption_cast<const QStyleOptionHeader*>(option); header && element == PE_IndicatorHeaderArrow)
                    arrows.append(header->sortIndicator);
                QProxyStyle::drawPrimitive(element, option, painter, widget);
            }
        };
        auto* recording = new RecordingStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        SortArrowStyle style(recording); // owns it
        QStandardItemModel model(3, 1);
        QTableView table;
        table.horizontalHeader()->setStyle(&style); // a widget's style is not its children's
        table.setModel(&model);
        table.setSortingEnabled(true);
        table.resize(200, 150);
        for (const auto& [order, arrow] :
             {std::pair{Qt::DescendingOrder, QStyleOptionHeader::SortDown}, std::pair{Qt::AscendingOrder, QStyleOptionHeader::SortUp}}) {
            table.sortByColumn(0, order);
            recording->arrows.clear();
            table.grab();
            QVERIFY(!recording->arrows.isEmpty());
            QCOMPARE(recording->arrows.back(), arrow);
        }
    }

    void placementOnScreens_data()
    {
        QTest::addColumn<QSize>("room");
        QTest::addColumn<QSize>("size");
        QTest::addColumn<bool>("maximized");
        QTest::addColumn<bool>("shortLayout");
        const QSize wanted = MainWindow::kDefaultSize;
        QTest::newRow("1920x1080, a panel") << QSize(1920, 1040) << wanted << false << false;
        QTest::newRow("exactly room for the frame") << wanted + QSize(16, 48) << wanted << false << false;
        QTest::newRow("one pixel short") << wanted + QSize(16, 47) << QSize(1500, 949) << true << true;
        QTest::newRow("one pixel narrow, 1080 high") << QSize(1515, 1080) << QSize(1499, 950) << true << false;
        QTest::newRow("1366x768 laptop") << QSize(1366, 738) << QSize(1350, 690) << true << true;
        QTest::newRow("1280x1024") << QSize(1280, 1024) << QSize(1264, 950) << true << false;
        QTest::newRow("1600x999: fits, under 1000 px") << QSize(1600, 999) << wanted << false << false;
    }
    void placementOnScreens()
    {
        QFETCH(QSize, room);
        QFETCH(QSize, size);
        QFETCH(bool, maximized);
        QFETCH(bool, shortLayout);
        const WindowPlacement place = placeWindow(room, MainWindow::kDefaultSize);
        QCOMPARE(place.size, size);
        QCOMPARE(place.maximized, maximized);
        QCOMPARE(place.shortScreenLayout, shortLayout);
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
