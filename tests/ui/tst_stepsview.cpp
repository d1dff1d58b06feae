// SPDX-License-Identifier: MIT
// The Steps dock and the timeline's step ruler (issue #13): the model's rows against `tilescope-cli steps`
// and the raw ProfilerStep#N events (read here with nlohmann), double-click and ruler clicks zoom to a step.
#include "testutil.h"
#include "uitestutil.h"

#include "io/smalljson.h"
#include "mainwindow.h"
#include "stepsmodel.h"
#include "stepspanel.h"
#include "timelineview.h"
#include "tracedocument.h"
#include "trace/traceloader.h"

#include <QAbstractItemModelTester>
#include <QDockWidget>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QtTest>

#include <cmath>

using namespace tilescope;

namespace {

QString cleanTrace() { return QString::fromStdString(testutil::dataPath("findings/clean.json.gz")); }

std::shared_ptr<const TraceDocument> documentOf(const QString& path) { return TraceDocument::build(path, {}, {}); }

int64_t ns(const io::Json& us) { return std::llround(static_cast<long double>(us.get<double>()) * 1000.0L); }

// The CPU-side ProfilerStep#N spans of the raw file, by start: {name, start ns, end ns}.
std::vector<std::tuple<std::string, int64_t, int64_t>> rawSteps(const std::string& path)
{
    std::vector<std::tuple<std::string, int64_t, int64_t>> steps;
    const io::Json doc = io::readSmallJsonFile(path);
    for (const io::Json& e : doc["traceEvents"])
        if (e.value("ph", "") == "X" && e.value("cat", "") == "user_annotation" && e.value("name", "").starts_with("ProfilerStep#"))
            steps.emplace_back(e.value("name", ""), ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]));
    std::sort(steps.begin(), steps.end(), [](const auto& a, const auto& b) { return std::get<1>(a) < std::get<1>(b); });
    return steps;
}

// The view shows [start, end) to within a pixel at each side.
bool showsWindow(const TimelineView& t, int64_t start, int64_t end)
{
    const double slack = t.nsPerPixel() * 1.5;
    return std::abs(double(t.viewStart() - start)) <= slack && std::abs(double(t.viewEnd() - end)) <= slack;
}

} // namespace

class TestStepsView : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QCoreApplication::setOrganizationName(QStringLiteral("TileScopeTests")); }

    void modelContract()
    {
        StepsModel model;
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(StepsModel::SortRole);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        model.setDocument(documentOf(cleanTrace()));
        QCOMPARE(model.rowCount(), 8);
        QCOMPARE(model.columnCount(), int(StepsModel::NUM_COLUMNS));
        proxy.sort(StepsModel::DurationColumn, Qt::DescendingOrder);
        QCOMPARE(proxy.index(0, StepsModel::NameColumn).data().toString(), QStringLiteral("ProfilerStep#9")); // 7.6 ms, the others < 0.3 ms
        QCOMPARE(model.stepWindow(-1), (std::pair<int64_t, int64_t>{0, 0}));
        QCOMPARE(model.stepWindow(8), (std::pair<int64_t, int64_t>{0, 0}));
        // A trace without steps: no rows.
        model.setDocument(documentOf(QString::fromStdString(testutil::workloadTrace("launch_bound"))));
        QCOMPARE(model.rowCount(), 0);
        model.setDocument(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    // Every cell against the CLI's JSON (the core table through its report) and the step spans against the raw file.
    void valuesEqualCliAndRawEvents_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("steps");
        QTest::newRow("clean") << cleanTrace() << 8;
        QTest::newRow("train_scheduled") << QString::fromStdString(testutil::workloadTrace("train_scheduled")) << 3;
        QTest::newRow("tiny_kernels") << QString::fromStdString(testutil::dataPath("findings/tiny_kernels.json.gz")) << 3;
    }
    void valuesEqualCliAndRawEvents()
    {
        QFETCH(QString, path);
        QFETCH(int, steps);
        StepsModel model;
        model.setDocument(documentOf(path));
        const auto run = testutil::runProcess(QStringLiteral(TILESCOPE_CLI),
                                              {QStringLiteral("steps"), path, QStringLiteral("--format"), QStringLiteral("json")});
        QCOMPARE(run.exitCode, 0);
        const QJsonArray rows = QJsonDocument::fromJson(run.out).object().value(QStringLiteral("steps")).toArray();
        const auto raw = rawSteps(path.toStdString());
        QCOMPARE(model.rowCount(), steps);
        QCOMPARE(int(rows.size()), steps);
        QCOMPARE(int(raw.size()), steps);
        bool anyGpu = false;
        for (int r = 0; r < steps; ++r) {
            const QJsonObject cli = rows[r].toObject();
            auto value = [&](int column) { return model.index(r, column).data(StepsModel::SortRole); };
            QCOMPARE(value(StepsModel::StepColumn).toLongLong(), cli.value(QStringLiteral("step")).toInteger());
            QCOMPARE(value(StepsModel::NameColumn).toString(), cli.value(QStringLiteral("name")).toString());
            QCOMPARE(value(StepsModel::NameColumn).toString().toStdString(), std::get<0>(raw[size_t(r)]));
            QCOMPARE(model.stepWindow(r), (std::pair{std::get<1>(raw[size_t(r)]), std::get<2>(raw[size_t(r)])}));
            QCOMPARE(value(StepsModel::DurationColumn).toLongLong(), std::get<2>(raw[size_t(r)]) - std::get<1>(raw[size_t(r)]));
            QCOMPARE(value(StepsModel::DurationColumn).toLongLong(),
                     std::llround(cli.value(QStringLiteral("duration_us")).toDouble() * 1000));
            QCOMPARE(value(StepsModel::GpuBusyColumn).toLongLong(),
                     std::llround(cli.value(QStringLiteral("gpu_busy_us")).toDouble() * 1000));
            QCOMPARE(value(StepsModel::CpuBusyColumn).toLongLong(),
                     std::llround(cli.value(QStringLiteral("cpu_busy_us")).toDouble() * 1000));
            QCOMPARE(value(StepsModel::KernelsColumn).toULongLong(), qulonglong(cli.value(QStringLiteral("kernels")).toInteger()));
            QVERIFY(std::abs(value(StepsModel::UtilizationColumn).toDouble() - cli.value(QStringLiteral("gpu_utilization")).toDouble())
                    < 1e-9);
            // The shown text says the same as the number.
            QCOMPARE(model.index(r, StepsModel::UtilizationColumn).data().toString(),
                     QString::number(100 * cli.value(QStringLiteral("gpu_utilization")).toDouble(), 'f', 1) + QLatin1Char('%'));
            anyGpu = anyGpu || value(StepsModel::KernelsColumn).toULongLong() > 0;
        }
        QVERIFY(anyGpu); // the fixtures' steps launch kernels: the comparisons above are not all zeros
    }

    void dockDoubleClickZoomsToTheStep()
    {
        MainWindow w;
        testutil::showExposed(w);
        testutil::loadAndWait(w, cleanTrace());
        auto* dock = w.findChild<QDockWidget*>(QStringLiteral("steps"));
        QVERIFY(dock);
        dock->show();
        dock->raise();
        QTableView* table = w.steps()->table();
        QVERIFY(QTest::qWaitFor([table] { return table->isVisible(); }));
        QCOMPARE(table->model()->rowCount(), 8);
        QVERIFY(w.steps()->title().contains(QStringLiteral("ProfilerStep#N")));
        const auto raw = rawSteps(cleanTrace().toStdString());
        const int row = 3; // ProfilerStep#5, in trace order
        const QRect cell = table->visualRect(table->model()->index(row, StepsModel::NameColumn));
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center()); // a view's double-click follows a press
        QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, cell.center());
        TimelineView* timeline = w.timeline();
        QVERIFY2(showsWindow(*timeline, std::get<1>(raw[size_t(row)]), std::get<2>(raw[size_t(row)])),
                 qPrintable(QStringLiteral("view %1-%2").arg(timeline->viewStart()).arg(timeline->viewEnd())));
        // Sorted by duration, the first row is the longest step (ProfilerStep#9).
        table->sortByColumn(StepsModel::DurationColumn, Qt::DescendingOrder);
        const QPoint first = table->visualRect(table->model()->index(0, 0)).center();
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, first);
        QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, first);
        QVERIFY(showsWindow(*timeline, std::get<1>(raw.back()), std::get<2>(raw.back())));
    }

    void rulerShowsStepsAndClickZooms()
    {
        MainWindow w;
        testutil::showExposed(w);
        testutil::loadAndWait(w, cleanTrace());
        TimelineView* timeline = w.timeline();
        const QRect ruler = timeline->stepRulerRect();
        QVERIFY(!ruler.isEmpty());
        QVERIFY(ruler.bottom() < timeline->axisHeight()); // lanes start under it
        QVERIFY(timeline->lanes().front().y >= timeline->axisHeight());
        const auto raw = rawSteps(cleanTrace().toStdString());
        // ProfilerStep#9 is long enough to be found in the fitted view; click its middle.
        const auto& [name, start, end] = raw.back();
        const int x = int((double(start + end) / 2 - double(timeline->viewStart())) / timeline->nsPerPixel()) + timeline->canvasLeft();
        const QPoint at(x, ruler.center().y());
        QCOMPARE(timeline->stepAt(at), int(raw.size()) - 1);
        QCOMPARE(timeline->stepAt(QPoint(x, timeline->axisHeight() + 5)), -1); // under the ruler: a lane
        QTest::mouseClick(timeline->viewport(), Qt::LeftButton, {}, at);
        QVERIFY(showsWindow(*timeline, start, end));
        // Zoomed to the step, the ruler is that step from edge to edge.
        QCOMPARE(timeline->stepAt(QPoint(timeline->canvasLeft() + 5, ruler.center().y())), int(raw.size()) - 1);
        QCOMPARE(timeline->stepAt(QPoint(timeline->canvasLeft() + timeline->canvasWidth() - 5, ruler.center().y())), int(raw.size()) - 1);
        // A trace without steps has no ruler, and its lanes start right under the time axis.
        testutil::loadAndWait(w, QString::fromStdString(testutil::workloadTrace("launch_bound")));
        QVERIFY(timeline->stepRulerRect().isEmpty());
        QVERIFY(timeline->axisHeight() < ruler.bottom());
        QVERIFY(w.steps()->title().startsWith(QStringLiteral("no steps")));
    }
};

QTEST_MAIN(TestStepsView)
#include "tst_stepsview.moc"
