// SPDX-License-Identifier: MIT
// The Launches dock: its models pass QAbstractItemModelTester, show computeLaunchStats' and
// findKernelSequences' figures (each row against the core result), and a double-click on an outlier or a
// sequence selects and centres its kernel in the timeline of the main window.
#include "testutil.h"
#include "uitestutil.h"

#include "analysis/kernelsequences.h"
#include "analysis/launchstats.h"
#include "launchesmodel.h"
#include "launchespanel.h"
#include "mainwindow.h"
#include "tracedocument.h"
#include "sequencesmodel.h"
#include "stats/timetext.h"
#include "timelineview.h"
#include "trace/traceloader.h"

#include <QAbstractItemModelTester>
#include <QTableView>
#include <QDockWidget>
#include <QHeaderView>
#include <QScrollBar>
#include <QtTest>

using namespace tilescope;

class TestLaunchesModel : public QObject
{
    Q_OBJECT

private slots:
    void modelsFollowCoreResult()
    {
        trace::LoadOptions options;
        options.keepRawArgs = false;
        std::shared_ptr<const trace::Trace> t = trace::loadTrace(testutil::workloadTrace("train_scheduled"), options);
        auto stats = std::make_shared<const analysis::LaunchStats>(analysis::computeLaunchStats(*t));
        QVERIFY(!stats->shortKernels.empty());

        LaunchesModel distributions(LaunchesModel::View::Distributions);
        LaunchesModel outliers(LaunchesModel::View::Outliers);
        QAbstractItemModelTester tester1(&distributions, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester tester2(&outliers, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(distributions.rowCount(), 0);
        distributions.setStats(t, stats);
        outliers.setStats(t, stats);

        const int streams = int(stats->streams.size());
        QCOMPARE(distributions.rowCount(), 3 * (streams + (streams > 1 ? 1 : 0)));
        for (int s = 0; s < streams; ++s) {
            const analysis::StreamLaunchStats& st = stats->streams[size_t(s)];
            QCOMPARE(distributions.index(3 * s, 2).data().toString(), QString::number(st.cpu.count));
            QCOMPARE(distributions.index(3 * s, 4).data().toString(), QString::fromStdString(stats::formatDuration(st.cpu.p50)));
            QCOMPARE(distributions.index(3 * s + 1, 6).data(LaunchesModel::SortRole).toLongLong(), st.gpu.p99);
            QCOMPARE(distributions.index(3 * s + 2, 7).data(LaunchesModel::SortRole).toLongLong(), st.delay.max);
        }

        QCOMPARE(size_t(outliers.rowCount()),
                 std::min(stats->shortKernels.size(), LaunchesModel::kMaxOutliers)
                     + std::min(stats->longDelays.size(), LaunchesModel::kMaxOutliers));
        const analysis::LaunchRecord& first = stats->launches[stats->shortKernels.front()];
        QCOMPARE(outliers.index(0, 0).data(LaunchesModel::EventRole).value<uint32_t>(), first.activity);
        QCOMPARE(outliers.index(0, 3).data(LaunchesModel::SortRole).toLongLong(), first.cpuNs);
        // When: from the trace's start, as the timeline says it; the file's ts in the tooltip.
        const int64_t launchStart = t->events[first.launch].start;
        QCOMPARE(outliers.index(0, 2).data().toString(), QString::fromStdString(stats::formatMicroseconds(launchStart - t->originTime())));
        QVERIFY(launchStart - t->originTime() < int64_t(1e9)); // not the absolute ts
        QVERIFY(
            outliers.index(0, 2).data(Qt::ToolTipRole).toString().contains(QString::fromStdString(stats::formatMicroseconds(launchStart))));
        QCOMPARE(outliers.index(0, 7).data().toString(), QString::fromStdString(std::string(t->name(t->events[first.activity]))));

        distributions.setStats(nullptr, nullptr);
        QCOMPARE(distributions.rowCount(), 0);
    }

    void sequencesModelFollowsCoreResult()
    {
        trace::LoadOptions options;
        options.keepRawArgs = false;
        std::shared_ptr<const trace::Trace> t = trace::loadTrace(testutil::workloadTrace("train_scheduled"), options);
        auto report = std::make_shared<const analysis::KernelSequenceReport>(analysis::findKernelSequences(*t));
        QVERIFY(!report->sequences.empty());
        SequencesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setReport(t, report);
        QCOMPARE(size_t(model.rowCount()), report->sequences.size());
        for (int row = 0; row < model.rowCount(); ++row) {
            const analysis::KernelSequence& q = report->sequences[size_t(row)];
            QCOMPARE(model.index(row, SequencesModel::LengthColumn).data().toInt(), int(q.steps.size()));
            QCOMPARE(model.index(row, SequencesModel::OccurrencesColumn).data().toULongLong(), qulonglong(q.occurrences.size()));
            QCOMPARE(model.index(row, SequencesModel::GpuTimeColumn).data(SequencesModel::SortRole).toLongLong(), q.gpuNs);
            QCOMPARE(model.index(row, 0).data(SequencesModel::EventRole).value<uint32_t>(), q.occurrences.front());
            QCOMPARE(model.index(row, SequencesModel::FusionColumn).data().toString().isEmpty(), !q.elementwise);
        }
        model.setReport(nullptr, nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    // The figures table as tall as its rows (three a stream), the outliers under it the rest, also when the dock's
    // tab is shown after the trace came in.
    void figuresFitTheirRows()
    {
        MainWindow w;
        testutil::showExposed(w);
        auto* panel = w.findChild<LaunchesPanel*>();
        QVERIFY(panel);
        QDockWidget* dock = nullptr;
        for (QWidget* up = panel->parentWidget(); up && !dock; up = up->parentWidget())
            dock = qobject_cast<QDockWidget*>(up);
        QVERIFY(dock);
        QDockWidget* table = w.findChild<QDockWidget*>(QStringLiteral("keyAverages"));
        table->raise();
        QTRY_VERIFY(panel->visibleRegion().isEmpty()); // behind the table's tab
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("train_scheduled")));
        dock->raise();
        QTRY_VERIFY(!panel->visibleRegion().isEmpty());
        const QTableView* figures = panel->distributionTable();
        QCOMPARE(figures->model()->rowCount(), 3);
        const int rows = figures->horizontalHeader()->height() + 3 * figures->verticalHeader()->defaultSectionSize()
            + 2 * figures->frameWidth() + (figures->horizontalScrollBar()->isVisible() ? figures->horizontalScrollBar()->height() : 0);
        // Every row in view without scrolling, and no more than a few pixels spare.
        QTRY_COMPARE(figures->verticalScrollBar()->maximum(), 0);
        QVERIFY2(figures->height() >= rows && figures->height() <= rows + 4,
                 qPrintable(QStringLiteral("%1 for %2").arg(figures->height()).arg(rows)));
        QVERIFY(panel->outlierTable()->height() >= panel->outlierTable()->minimumHeight());
    }

    // Where every launch is a short kernel (a launch-bound run), the header says "all", not that they are outliers.
    void everyLaunchShortSaysAll()
    {
        MainWindow w;
        testutil::showExposed(w);
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("launch_bound")));
        auto* panel = w.findChild<LaunchesPanel*>();
        QVERIFY(panel);
        const auto& stats = *w.document()->launchStats;
        QCOMPARE(stats.shortKernels.size(), stats.launches.size());
        QVERIFY2(panel->headerText().contains(QStringLiteral("short kernels: all %1,").arg(stats.launches.size())),
                 qPrintable(panel->headerText()));
        QVERIFY(!panel->headerText().contains(QStringLiteral("outliers")));
    }

    void doubleClickSelectsKernel()
    {
        MainWindow w;
        testutil::showExposed(w);
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("train_scheduled")));
        auto* panel = w.findChild<LaunchesPanel*>();
        QVERIFY(panel);
        QVERIFY(panel->outliers()->rowCount() > 0);
        QVERIFY(panel->headerText().contains(QStringLiteral("launches")));
        const auto& stats = *w.document()->launchStats;
        QVERIFY(stats.shortKernels.size() < stats.launches.size());
        QVERIFY2(panel->headerText().contains(QStringLiteral("short kernels: %1,").arg(stats.shortKernels.size())),
                 qPrintable(panel->headerText()));
        QTableView* table = panel->outlierTable();
        const QModelIndex index = table->model()->index(0, 1);
        const uint32_t event = index.data(LaunchesModel::EventRole).value<uint32_t>();
        QVERIFY(event != trace::kNoIndex);
        emit table->doubleClicked(index);
        QCOMPARE(w.timeline()->selectedEvent(), event);

        QTableView* sequences = panel->sequenceTable();
        QVERIFY(sequences->model()->rowCount() > 0);
        const QModelIndex first = sequences->model()->index(0, 1);
        const uint32_t kernel = first.data(SequencesModel::EventRole).value<uint32_t>();
        emit sequences->doubleClicked(first);
        QCOMPARE(w.timeline()->selectedEvent(), kernel);
    }
};

QTEST_MAIN(TestLaunchesModel)
#include "tst_launchesmodel.moc"
