// SPDX-License-Identifier: MIT
// File > Compare With… (issue #13): the key-averages dock's diff rows equal `tilescope-cli diff` (run as a
// process) row for row, deltas coloured by sign, the two timelines stacked and aligned at a step (the step
// spans read from the raw files here), Close Comparison back to the normal table.
#include "testutil.h"
#include "uitestutil.h"

#include "comparedtimeline.h"
#include "io/smalljson.h"
#include "io/textfile.h"
#include "keyaveragesdiffmodel.h"
#include "keyaveragesmodel.h"
#include "keyaveragespanel.h"
#include "mainwindow.h"
#include "timelineview.h"
#include "tracedocument.h"

#include <QCheckBox>
#include <QColor>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMessageBox>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace tilescope;

namespace {

QString beforeTrace() { return QString::fromStdString(testutil::dataPath("findings/tiny_kernels.json.gz")); }
QString afterTrace() { return QString::fromStdString(testutil::dataPath("findings/dominant_kernel.json.gz")); }

int64_t ns(const io::Json& us) { return std::llround(static_cast<long double>(us.get<double>()) * 1000.0L); }

// The start (ns) of the CPU-side span ProfilerStep#N in the raw file; -1 when there is none.
int64_t rawStepStart(const QString& path, int number)
{
    const io::Json doc = io::readSmallJsonFile(path.toStdString());
    const std::string name = "ProfilerStep#" + std::to_string(number);
    for (const io::Json& e : doc["traceEvents"])
        if (e.value("ph", "") == "X" && e.value("cat", "") == "user_annotation" && e.value("name", "") == name)
            return ns(e["ts"]);
    return -1;
}

void openComparisonOf(MainWindow& w, const QString& before, const QString& after)
{
    testutil::loadAndWait(w, before);
    QSignalSpy compared(&w, &MainWindow::comparisonChanged);
    w.compareWith(after);
    QVERIFY(compared.wait(30000));
    QVERIFY(w.comparedDocument());
}

void openComparison(MainWindow& w) { openComparisonOf(w, beforeTrace(), afterTrace()); }

// The panel's title while it shows a diff ("before → after …" with the totals); null when none says so.
const QLabel* diffTitle(const KeyAveragesPanel& panel)
{
    for (const QLabel* label : panel.findChildren<QLabel*>())
        if (label->text().contains(QStringLiteral("before → after")) && !label->toolTip().isEmpty())
            return label;
    return nullptr;
}

bool near(double a, double b) { return std::abs(a - b) <= 1e-6 * std::max(1.0, std::abs(b)); }

// The model's rows, in order, against `tilescope-cli diff BEFORE AFTER --format json [extra]`; counts the
// rows only in after (added) and only in before (removed).
void checkRowsEqualCli(const KeyAveragesDiffModel* model, const QStringList& extra, int& added, int& removed)
{
    const bool byShape = extra.contains(QStringLiteral("--by-shape"));
    QStringList arguments{QStringLiteral("diff"), beforeTrace(), afterTrace(), QStringLiteral("--format"), QStringLiteral("json")};
    arguments << extra;
    const auto run = testutil::runProcess(QStringLiteral(TILESCOPE_CLI), arguments);
    QCOMPARE(run.exitCode, 0);
    const QJsonArray rows = QJsonDocument::fromJson(run.out).object().value(QStringLiteral("rows")).toArray();
    QVERIFY(rows.size() > 3);
    QCOMPARE(model->rowCount(), int(rows.size()));
    for (int r = 0; r < model->rowCount(); ++r) {
        const QJsonObject cli = rows[r].toObject();
        auto cell = [&](int column) { return model->index(r, column).data(KeyAveragesDiffModel::SortRole); };
        QCOMPARE(cell(KeyAveragesDiffModel::NameColumn).toString(), cli.value(QStringLiteral("key")).toString());
        QVERIFY(model->index(r, KeyAveragesDiffModel::DeviceColumn)
                    .data()
                    .toString()
                    .startsWith(cli.value(QStringLiteral("device_type")).toString()));
        if (byShape)
            QCOMPARE(cell(KeyAveragesDiffModel::ShapesColumn).toString(), cli.value(QStringLiteral("input_shapes")).toString());
        QCOMPARE(cell(KeyAveragesDiffModel::CountDeltaColumn).toLongLong(), cli.value(QStringLiteral("delta_count")).toInteger());
        QVERIFY(near(cell(KeyAveragesDiffModel::SelfDeviceDeltaColumn).toDouble(),
                     cli.value(QStringLiteral("delta_self_device_time_total_us")).toDouble()));
        QVERIFY(near(cell(KeyAveragesDiffModel::DeviceTotalDeltaColumn).toDouble(),
                     cli.value(QStringLiteral("delta_device_time_total_us")).toDouble()));
        QVERIFY(near(cell(KeyAveragesDiffModel::SelfCpuDeltaColumn).toDouble(),
                     cli.value(QStringLiteral("delta_self_cpu_time_total_us")).toDouble()));
        // Each side: absent (added or removed) or the `summary` row's figures.
        const struct
        {
            const char* side;
            int count, selfDevice, deviceTotal, selfCpu;
        } sides[] = {{"before", KeyAveragesDiffModel::CountBeforeColumn, KeyAveragesDiffModel::SelfDeviceBeforeColumn,
                      KeyAveragesDiffModel::DeviceTotalBeforeColumn, KeyAveragesDiffModel::SelfCpuBeforeColumn},
                     {"after", KeyAveragesDiffModel::CountAfterColumn, KeyAveragesDiffModel::SelfDeviceAfterColumn,
                      KeyAveragesDiffModel::DeviceTotalAfterColumn, KeyAveragesDiffModel::SelfCpuAfterColumn}};
        for (const auto& s : sides) {
            const QJsonValue side = cli.value(QString::fromLatin1(s.side));
            if (side.isNull()) {
                QVERIFY(!cell(s.count).isValid());
                QCOMPARE(model->index(r, s.selfDevice).data().toString(), QStringLiteral("-"));
                (std::string_view(s.side) == "before" ? added : removed) += 1;
                continue;
            }
            const QJsonObject o = side.toObject();
            QCOMPARE(cell(s.count).toLongLong(), o.value(QStringLiteral("count")).toInteger());
            QVERIFY(near(cell(s.selfDevice).toDouble(), o.value(QStringLiteral("self_device_time_total_us")).toDouble()));
            QVERIFY(near(cell(s.deviceTotal).toDouble(), o.value(QStringLiteral("device_time_total_us")).toDouble()));
            QVERIFY(near(cell(s.selfCpu).toDouble(), o.value(QStringLiteral("self_cpu_time_total_us")).toDouble()));
        }
    }
}

} // namespace

class TestCompareTraces : public QObject
{
    Q_OBJECT
private slots:
    // Comparing keeps the window within a laptop's screen (the diff's long title and the two file names widened
    // it to 1718 px on a 1366 px screen, pushing the right-hand docks off it).
    void comparingFitsALaptopScreen()
    {
        MainWindow w;
        w.useShortScreenLayout();
        testutil::showExposed(w, {1366, 738});
        openComparison(w);
        QVERIFY2(w.minimumSizeHint().width() <= 1366 && w.minimumSizeHint().height() <= 738,
                 qPrintable(QStringLiteral("%1x%2").arg(w.minimumSizeHint().width()).arg(w.minimumSizeHint().height())));
        // The diff's title takes at most two lines there (it wrapped to four, leaving the table two rows).
        const QLabel* title = w.keyAverages()->scopeLabel();
        QVERIFY(title->text().contains(QStringLiteral("before")));
        QTest::qWait(100); // the layout's answer to the new text (the label's height is the old one's until it runs)
        QVERIFY2(title->height() <= 2 * title->fontMetrics().lineSpacing() + 4,
                 qPrintable(QStringLiteral("%1 px for '%2'").arg(title->height()).arg(title->text())));
    }

    // A trace of another GPU: the title warns first and its tooltip says what differs, as the CLI's diff notes;
    // two traces of one GPU get no warning.
    void otherGpuIsWarned()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const std::string gemm = testutil::workloadTrace("gemm_compare");
        io::Json doc = io::readSmallJsonFile(gemm);
        QVERIFY(doc["deviceProperties"].is_array() && !doc["deviceProperties"].empty());
        doc["deviceProperties"][0]["name"] = "NVIDIA H100 80GB HBM3";
        const QString h100 = tmp.filePath(QStringLiteral("h100.json"));
        io::writeTextFile(h100.toStdString(), io::dumpJson(doc), "the test's trace");
        MainWindow w;
        openComparisonOf(w, QString::fromStdString(gemm), h100);
        const QLabel* title = diffTitle(*w.keyAverages());
        QVERIFY(title);
        QVERIFY2(title->text().startsWith(QStringLiteral("⚠ setups differ (hover); before → after")), qPrintable(title->text()));
        QVERIFY2(title->toolTip().startsWith(QStringLiteral("Note: before ran on NVIDIA H200, after on NVIDIA H100 80GB HBM3: ")),
                 qPrintable(title->toolTip()));
        openComparisonOf(w, QString::fromStdString(gemm), QString::fromStdString(gemm));
        QVERIFY(diffTitle(*w.keyAverages()));
        QVERIFY2(diffTitle(*w.keyAverages())->text().startsWith(QStringLiteral("before → after")),
                 qPrintable(diffTitle(*w.keyAverages())->text()));
    }

    // Two runs' trace.json are told apart by their folders in the bar above the after timeline.
    void sameFileNamesShowTheirFolders()
    {
        MainWindow w;
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("launch_bound")));
        QSignalSpy compared(&w, &MainWindow::comparisonChanged);
        w.compareWith(QString::fromStdString(testutil::workloadTrace("streams_overlap")));
        QVERIFY(compared.wait(30000));
        const QString title = w.comparedTimeline()->titleText();
        QVERIFY2(title.contains(QStringLiteral("streams_overlap/trace.json")) && title.contains(QStringLiteral("launch_bound/trace.json")),
                 qPrintable(title));
        openComparisonOf(w, beforeTrace(), afterTrace());
        QVERIFY2(w.comparedTimeline()->titleText().contains(QStringLiteral("<b>after</b> dominant_kernel.json.gz")),
                 qPrintable(w.comparedTimeline()->titleText()));
        // Folders of one name too: as many as it takes.
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        for (const char* run : {"run1", "run2"}) {
            QVERIFY(QDir(tmp.path()).mkpath(QStringLiteral("%1/out").arg(QLatin1String(run))));
            QVERIFY(QFile::copy(beforeTrace(), tmp.filePath(QStringLiteral("%1/out/trace.json.gz").arg(QLatin1String(run)))));
        }
        openComparisonOf(w, tmp.filePath(QStringLiteral("run1/out/trace.json.gz")), tmp.filePath(QStringLiteral("run2/out/trace.json.gz")));
        QVERIFY2(w.comparedTimeline()->titleText().contains(
                     QStringLiteral("<b>after</b> run2/out/trace.json.gz (under <b>before</b> run1/out/trace.json.gz)")),
                 qPrintable(w.comparedTimeline()->titleText()));
    }
    void initTestCase() { QCoreApplication::setOrganizationName(QStringLiteral("TileScopeTests")); }

    void diffRowsEqualCliDiff_data()
    {
        QTest::addColumn<bool>("byShape");
        QTest::newRow("by key") << false;
        QTest::newRow("by shape") << true;
    }
    void diffRowsEqualCliDiff()
    {
        QFETCH(bool, byShape);
        MainWindow w;
        testutil::showExposed(w);
        openComparison(w);
        KeyAveragesPanel* panel = w.keyAverages();
        QVERIFY(panel->isComparing());
        QVERIFY(panel->diffTable()->isVisible());
        QVERIFY(!panel->table()->isVisible());
        QVERIFY(!panel->findChild<QSpinBox*>()->isEnabled()); // the row limit is of the rows, not the diff
        if (byShape)
            w.groupByShape()->setChecked(true);
        int added = 0, removed = 0;
        checkRowsEqualCli(panel->diffModel(), byShape ? QStringList{QStringLiteral("--by-shape")} : QStringList{}, added, removed);
        QVERIFY(!QTest::currentTestFailed());
        QVERIFY(added > 0 && removed > 0); // the pair has ops on one side only: both kinds of rows are checked
        // The totals first, as the CLI's table: its "Self CUDA time total: ... before, ... after (delta)" line.
        QStringList arguments{QStringLiteral("diff"), beforeTrace(), afterTrace()};
        if (byShape)
            arguments << QStringLiteral("--by-shape");
        const auto text = testutil::runProcess(QStringLiteral(TILESCOPE_CLI), arguments);
        QCOMPARE(text.exitCode, 0);
        const QString cuda
            = QString::fromUtf8(text.out).section(QStringLiteral("Self CUDA time total: "), 1).section(QLatin1Char('\n'), 0, 0);
        QVERIFY(cuda.contains(QStringLiteral(" after (")));
        const QLabel* title = diffTitle(*panel);
        QVERIFY(title);
        QVERIFY2(title->text().contains(QStringLiteral("self CUDA ") + cuda), qPrintable(title->text() + " / " + cuda));
        QVERIFY(title->toolTip().contains(QStringLiteral("Self CUDA time total: ") + cuda));
    }

    // "Diff this step only": the rows of `tilescope-cli diff --step N` for the aligned step, back to the whole
    // traces when unchecked or aligned at the trace starts.
    void stepDiffEqualsCliDiffStep()
    {
        MainWindow w;
        testutil::showExposed(w, {1400, 1000});
        openComparison(w);
        ComparedTimeline* stack = w.comparedTimeline();
        KeyAveragesPanel* panel = w.keyAverages();
        const int wholeRows = panel->diffModel()->rowCount();
        QSignalSpy shown(panel, &KeyAveragesPanel::diffShown);
        for (int step : {3, 4}) {
            QVERIFY(stack->alignAt(step));
            if (!stack->diffStepOnly()->isChecked())
                stack->diffStepOnly()->setChecked(true);
            // While the step's rows are aggregated, the last diff's are gone: nothing stale to copy or export.
            if (panel->isDiffing())
                QCOMPARE(panel->diffModel()->rowCount(), 0);
            QVERIFY(shown.wait(30000));
            QTRY_VERIFY(!panel->isDiffing());
            QCOMPARE(panel->comparisonStep(), std::optional<int64_t>(step));
            int added = 0, removed = 0;
            checkRowsEqualCli(panel->diffModel(), {QStringLiteral("--step"), QString::number(step)}, added, removed);
            QVERIFY(!QTest::currentTestFailed());
        }
        stack->diffStepOnly()->setChecked(false);
        QCOMPARE(panel->comparisonStep(), std::nullopt);
        QCOMPARE(panel->diffModel()->rowCount(), wholeRows);
        // Aligned at the trace starts there is no step to diff.
        stack->diffStepOnly()->setChecked(true);
        QVERIFY(stack->alignAt(std::nullopt));
        QVERIFY(!stack->diffStepOnly()->isEnabled());
        QCOMPARE(panel->comparisonStep(), std::nullopt);
    }

    void deltasColouredBySign()
    {
        MainWindow w;
        testutil::showExposed(w);
        openComparison(w);
        const KeyAveragesDiffModel* model = w.keyAverages()->diffModel();
        int faster = 0, slower = 0;
        for (int r = 0; r < model->rowCount(); ++r) {
            const QModelIndex index = model->index(r, KeyAveragesDiffModel::DeviceTotalDeltaColumn);
            const double delta = index.data(KeyAveragesDiffModel::SortRole).toDouble();
            const QVariant colour = index.data(Qt::ForegroundRole);
            if (delta < 0) {
                QCOMPARE(colour.value<QColor>(), KeyAveragesDiffModel::fasterColour());
                QVERIFY(index.data().toString().startsWith(QLatin1Char('-')));
                ++faster;
            } else if (delta > 0) {
                QCOMPARE(colour.value<QColor>(), KeyAveragesDiffModel::slowerColour());
                QVERIFY(index.data().toString().startsWith(QLatin1Char('+')));
                ++slower;
            } else {
                QVERIFY(!colour.isValid());
            }
            QVERIFY(!model->index(r, KeyAveragesDiffModel::CountAfterColumn).data(Qt::ForegroundRole).isValid());
        }
        QVERIFY(faster > 0 && slower > 0);
    }

    void stackedTimelinesAlignedAtAStep()
    {
        MainWindow w;
        testutil::showExposed(w, {1400, 1000});
        openComparison(w);
        ComparedTimeline* stack = w.comparedTimeline();
        QVERIFY(stack->isVisible());
        TimelineView* before = w.timeline();
        TimelineView* after = stack->afterTimeline();
        QCOMPARE(after->canvasWidth(), before->canvasWidth());
        // Steps 2-4 are in both traces; the first is the default.
        QCOMPARE(stack->alignCombo()->count(), 4);
        QCOMPARE(stack->alignedStep(), std::optional<int64_t>(2));
        for (int step : {2, 4, 3}) {
            QVERIFY(stack->alignAt(step));
            const int64_t offset = rawStepStart(afterTrace(), step) - rawStepStart(beforeTrace(), step);
            QCOMPARE(stack->offset(), offset);
            QCOMPARE(stack->alignCombo()->currentText(), QStringLiteral("step %1").arg(step));
            // The before timeline shows the step; the after one the same window shifted onto its step.
            QCOMPARE(before->viewStart(), rawStepStart(beforeTrace(), step));
            QCOMPARE(after->viewStart(), before->viewStart() + offset);
            // Pan and zoom either one: the other follows.
            before->panByPixels(-120);
            QCOMPARE(after->viewStart(), before->viewStart() + offset);
            QVERIFY(std::abs(after->viewEnd() - (before->viewEnd() + offset)) <= 2); // a view's end is start + width x ns/px
            after->zoomBy(1.8, after->canvasLeft() + 40);
            QCOMPARE(before->viewStart(), after->viewStart() - offset);
            QVERIFY(std::abs(before->viewEnd() - (after->viewEnd() - offset)) <= 2);
        }
        // A diff row added in after highlights its occurrences in the after timeline only; one in both, in both.
        QTableView* diff = w.keyAverages()->diffTable();
        const KeyAveragesDiffModel* model = w.keyAverages()->diffModel();
        auto selectRow = [&](auto pick) {
            for (int r = 0; r < model->rowCount(); ++r)
                if (pick(*model->row(r))) {
                    diff->selectRow(diff->model()->index(r, 0).row()); // unsorted: proxy row r is source row r
                    return true;
                }
            return false;
        };
        QVERIFY(selectRow([](const stats::KeyAverageDiffRow& r) { return !r.before && r.after; }));
        QVERIFY(after->hasHighlight());
        QVERIFY(!before->hasHighlight());
        // (not "ProfilerStep*": torch's name for all the steps is no event's name)
        QVERIFY(selectRow([](const stats::KeyAverageDiffRow& r) { return r.before && r.after && !r.key.ends_with('*'); }));
        QVERIFY(after->hasHighlight());
        QVERIFY(before->hasHighlight());
        diff->clearSelection();
        QVERIFY(!after->hasHighlight());
        QVERIFY(!stack->alignAt(7)); // only in after
        QCOMPARE(stack->alignedStep(), std::optional<int64_t>(3));
        QVERIFY(stack->alignAt(std::nullopt));
        QCOMPARE(stack->offset(), w.comparedDocument()->contentStart - w.document()->contentStart);
    }

    void closeComparisonRestoresTheTable()
    {
        MainWindow w;
        testutil::showExposed(w);
        openComparison(w);
        QSignalSpy changed(&w, &MainWindow::comparisonChanged);
        w.closeComparison();
        QCOMPARE(changed.count(), 1);
        QVERIFY(!w.comparedDocument());
        KeyAveragesPanel* panel = w.keyAverages();
        QVERIFY(!panel->isComparing());
        QVERIFY(panel->table()->isVisible());
        QVERIFY(!panel->diffTable()->isVisible());
        QCOMPARE(panel->diffModel()->rowCount(), 0);
        QVERIFY(panel->findChild<QSpinBox*>()->isEnabled());
        QVERIFY(!diffTitle(*panel)); // the totals went with the diff
        QVERIFY(!w.comparedTimeline()->isVisible());
        QCOMPARE(panel->model()->rowCount(), int(w.document()->averages.rows.size()));
        // Panning the timeline alone works again over its own trace.
        w.timeline()->fitAll();
        QCOMPARE(w.timeline()->viewStart(), w.document()->contentStart);
        // Opening another trace ends a comparison too: it was with the trace replaced.
        w.compareWith(afterTrace());
        QVERIFY(changed.wait(30000));
        QVERIFY(w.comparedDocument());
        testutil::loadAndWait(w, afterTrace());
        QVERIFY(!w.comparedDocument());
        QVERIFY(!panel->isComparing());
        QVERIFY(!w.comparedTimeline()->isVisible());
    }

    void badFileToCompareSaysWhy()
    {
        MainWindow w;
        testutil::showExposed(w);
        testutil::loadAndWait(w, beforeTrace());
        const TraceDocument* doc = w.document();
        const QString missing = QString::fromStdString(testutil::dataPath("no-such-trace.json"));
        QString dialogText;
        QTimer closer; // the dialog is modal: read and close it from a timer
        connect(&closer, &QTimer::timeout, this, [&] {
            if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
                dialogText = box->text();
                box->close();
            }
        });
        closer.start(50);
        w.compareWith(missing);
        QTRY_VERIFY_WITH_TIMEOUT(!dialogText.isEmpty(), 10000);
        QVERIFY(dialogText.contains(missing));
        QCOMPARE(w.document(), doc);
        QVERIFY(!w.comparedDocument());
        QVERIFY(!w.keyAverages()->isComparing());
    }
};

QTEST_MAIN(TestCompareTraces)
#include "tst_comparetraces.moc"
