// SPDX-License-Identifier: MIT
// The Ranks dock (issue #13): the model over core's per-rank figures (QAbstractItemModelTester), the
// straggler marked, and File > Open Folder's path: a folder of rank traces fills the dock and opens the
// straggler's timeline; activating a rank opens its own.
#include "testutil.h"
#include "uitestutil.h"

#include "analysis/ranks.h"
#include "mainwindow.h"
#include "ranksmodel.h"
#include "rankspanel.h"
#include "rankstimelines.h"
#include "timelineview.h"
#include "stats/timetext.h"
#include "trace/rankset.h"
#include "tracedocument.h"

#include <QAbstractItemModelTester>
#include <QItemSelectionModel>
#include <QFile>
#include <QTemporaryDir>
#include <QFont>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTableView>
#include <QDockWidget>
#include <QtTest>

using namespace tilescope;

namespace {
std::shared_ptr<const analysis::RanksReport> reportOf(const char* run)
{
    const std::string folder = testutil::dataPath(std::string("ranks/gloo/") + run);
    return std::make_shared<const analysis::RanksReport>(analysis::computeRanks(trace::loadRankSet(trace::traceFilesInFolder(folder))));
}
} // namespace

class TestRanksModel : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // Open Recent's settings apart from the user's
        QCoreApplication::setOrganizationName(QStringLiteral("TileScopeTests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_ranksmodel"));
        QSettings().clear();
    }

    // Before a folder is opened the table is empty: its headers still read whole.
    void emptyTableHeadersWhole()
    {
        RanksPanel panel;
        const QHeaderView* header = panel.table()->horizontalHeader();
        for (int column = 0; column + 1 < header->count(); ++column) // the last one stretches
            QVERIFY2(header->sectionSize(column) >= header->sectionSizeHint(column),
                     qPrintable(panel.table()->model()->headerData(column, Qt::Horizontal).toString()));
    }

    void theStragglerIsMarked()
    {
        RanksModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        const auto report = reportOf("slow");
        model.setReport(report);
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(model.columnCount(), int(RanksModel::NUM_COLUMNS));
        for (int row = 0; row < 4; ++row) {
            const bool straggler = row == 2;
            QCOMPARE(model.index(row, RanksModel::RankColumn).data().toString(), QString::number(row));
            QCOMPARE(model.index(row, RanksModel::StragglerColumn).data().toString().isEmpty(), !straggler);
            QCOMPARE(model.index(row, RanksModel::CollectivesColumn).data(Qt::FontRole).value<QFont>().bold(), straggler);
            QCOMPARE(model.index(row, RanksModel::RankColumn).data(Qt::BackgroundRole).isValid(), straggler);
            QVERIFY(model.index(row, 0).data(RanksModel::FileRole).toString().endsWith(QStringLiteral("rank-%1.json.gz").arg(row)));
            // The figures are core's, in its duration text.
            QCOMPARE(model.index(row, RanksModel::CollectivesColumn).data().toString(),
                     QString::fromStdString(stats::formatDuration(report->ranks[size_t(row)].collectiveNsPerStep)));
        }
        QVERIFY(model.verdictText().contains(QStringLiteral("Straggler: rank 2")));
        model.setReport(reportOf("even"));
        for (int row = 0; row < 4; ++row)
            QVERIFY(model.index(row, RanksModel::StragglerColumn).data().toString().isEmpty());
        QVERIFY(model.verdictText().contains(QStringLiteral("No straggler")));
        model.setReport(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    // The run's folder also holds a meta.json: passed over, and the status bar says so.
    void aFoldersOtherFilesArePassedOver()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        for (int r = 0; r < 4; ++r)
            QVERIFY(QFile::copy(QString::fromStdString(testutil::dataPath("ranks/gloo/slow/rank-%1.json.gz")).arg(r),
                                tmp.filePath(QStringLiteral("rank-%1.json.gz").arg(r))));
        QFile meta(tmp.filePath(QStringLiteral("meta.json")));
        QVERIFY(meta.open(QIODevice::WriteOnly));
        meta.write("{\"ranks\": 4}");
        meta.close();
        MainWindow w;
        testutil::showExposed(w);
        QSignalSpy changed(&w, &MainWindow::documentChanged);
        w.openFile(tmp.path());
        QVERIFY(changed.wait(30000));
        QCOMPARE(w.ranks()->model()->rowCount(), 4);
        QCOMPARE(w.ranks()->model()->report()->skipped.size(), size_t(1));
        const QString verdict = w.ranks()->verdict()->text();
        QVERIFY2(verdict.contains(QStringLiteral("Passed over, not traces: ")) && verdict.contains(meta.fileName()), qPrintable(verdict));
        QSettings().remove(QStringLiteral("recentFiles")); // the next test starts with none
        QSettings().remove(QStringLiteral("lastFile"));
    }

    void openingAFolderShowsTheRanks()
    {
        MainWindow w;
        testutil::showExposed(w);
        QSignalSpy changed(&w, &MainWindow::documentChanged);
        w.openFile(QString::fromStdString(testutil::dataPath("ranks/gloo/slow")) + u'/'); // as a shell completes it
        QVERIFY(changed.wait(30000));
        QCOMPARE(w.ranks()->model()->rowCount(), 4);
        QVERIFY(w.ranks()->verdict()->text().contains(QStringLiteral("rank 2")));
        QVERIFY(w.document()->path.endsWith(QStringLiteral("rank-2.json.gz"))); // the straggler's timeline first
        QVERIFY(w.windowTitle().endsWith(QStringLiteral(" - rank 2 of 4")));
        QCOMPARE(w.ranks()->table()->selectionModel()->selectedRows().value(0).row(), 2);
        // Open Recent and Reopen Last keep the folder, as a clean absolute path (no trailing '/'), not the rank shown.
        const QString folder = QFileInfo(QString::fromStdString(testutil::dataPath("ranks/gloo/slow"))).absoluteFilePath();
        QCOMPARE(QSettings().value(QStringLiteral("recentFiles")).toStringList().value(0), folder);
        QCOMPARE(QSettings().value(QStringLiteral("lastFile")).toString(), folder);
        // Activating rank 0 opens its timeline.
        QTableView* table = w.ranks()->table();
        table->setCurrentIndex(w.ranks()->model()->index(0, 0));
        emit table->activated(table->currentIndex());
        QVERIFY(changed.wait(30000));
        QVERIFY(w.document()->path.endsWith(QStringLiteral("rank-0.json.gz")));
        QVERIFY(w.windowTitle().endsWith(QStringLiteral(" - rank 0 of 4")));
        QCOMPARE(QSettings().value(QStringLiteral("recentFiles")).toStringList(), QStringList{folder});
        // All ranks' timelines: one timeline, every rank's lanes under its header, the straggler's marked
        // (tst_rankstimeline checks the lanes themselves).
        QVERIFY(w.ranks()->allTimelinesButton()->isEnabled());
        w.ranks()->allTimelinesButton()->click();
        RanksTimelines* all = w.ranks()->timelinesWindow();
        QVERIFY(all);
        QSignalSpy loaded(all, &RanksTimelines::loaded);
        QVERIFY(loaded.wait(30000));
        QCOMPARE(all->timeline()->groupCount(), 4);
        int headers = 0;
        for (const TimelineView::Lane& lane : all->timeline()->lanes())
            if (lane.kind == TimelineView::Lane::Kind::Group) {
                QVERIFY(all->timeline()->documentOf(lane.group)->path.endsWith(QStringLiteral("rank-%1.json.gz").arg(headers)));
                QCOMPARE(lane.label.contains(QStringLiteral("straggler")), headers == 2);
                // Its header carries the figure the verdict rests on, the table's.
                const QString collectives = w.ranks()->model()->index(headers, RanksModel::CollectivesColumn).data().toString();
                const QString ratio = w.ranks()->model()->index(headers, RanksModel::VersusOthersColumn).data().toString();
                QVERIFY2(lane.label.endsWith(QStringLiteral("in collectives %1/step, %2 the others'").arg(collectives, ratio)),
                         qPrintable(lane.label));
                ++headers;
            }
        QCOMPARE(headers, 4);
        all->close();
        // The window of every rank's timeline opens within the screen.
        const QSize room = all->screen()->availableGeometry().size();
        QVERIFY2(all->width() <= room.width() && all->height() <= room.height(),
                 qPrintable(QStringLiteral("%1x%2").arg(all->width()).arg(all->height())));
        // A trace of none of the ranks: no rank named, and the folder's ranks leave the dock (activating one of
        // them swapped the trace back to the old folder's); its empty tab gives way to the table's.
        QDockWidget* ranksDock = w.findChild<QDockWidget*>(QStringLiteral("ranks"));
        QDockWidget* tableDock = w.findChild<QDockWidget*>(QStringLiteral("keyAverages"));
        // The tab in front: Qt calls a tab behind another visible too, but gives it no visible region.
        const auto inFront = [](QDockWidget* dock) { return !dock->visibleRegion().isEmpty(); };
        QVERIFY(inFront(ranksDock) && !inFront(tableDock)); // the folder raised the Ranks tab
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("launch_bound")));
        QTRY_VERIFY(inFront(tableDock) && !inFront(ranksDock));
        QVERIFY(!w.windowTitle().contains(QStringLiteral(" - rank ")));
        QVERIFY(w.ranks()->table()->selectionModel()->selectedRows().isEmpty());
        QCOMPARE(w.ranks()->model()->rowCount(), 0);
        QCOMPARE(w.ranks()->verdict()->text(), RanksPanel::introText());
        QVERIFY(!w.ranks()->allTimelinesButton()->isEnabled());
    }
};

QTEST_MAIN(TestRanksModel)
#include "tst_ranksmodel.moc"
