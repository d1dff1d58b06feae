// SPDX-License-Identifier: MIT
#include "testutil.h"

#include "keyaveragesmodel.h"
#include "keyaveragespanel.h"
#include "tracedocument.h"
#include "stats/keyaverages.h"
#include "trace/traceloader.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QHeaderView>
#include <QTableView>
#include <QTemporaryDir>
#include <QSortFilterProxyModel>
#include <QLineEdit>
#include <QtTest>

using namespace tilescope;

class TestKeyAveragesModel : public QObject
{
    Q_OBJECT
private slots:
    void modelContract()
    {
        KeyAveragesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto t = trace::loadTrace(testutil::workloadTrace("gemm_compare"));
        model.setAverages(std::make_shared<const stats::KeyAverages>(stats::computeKeyAverages(*t)));
        QCOMPARE(model.rowCount(), 13);
        QCOMPARE(model.columnCount(), int(KeyAveragesModel::NUM_COLUMNS));
        model.setAverages(
            std::make_shared<const stats::KeyAverages>(stats::computeKeyAverages(*t, stats::KeyAveragesOptions::byInputShape(true))));
        model.setAverages(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void torchNumbersAndSorting()
    {
        KeyAveragesModel model;
        QSortFilterProxyModel proxy;
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&model);
        proxy.setSortRole(KeyAveragesModel::SortRole);
        const auto t = trace::loadTrace(testutil::workloadTrace("gemm_compare"));
        const auto shared = std::make_shared<const stats::KeyAverages>(stats::computeKeyAverages(*t));
        const stats::KeyAverages& averages = *shared;
        model.setAverages(shared);
        proxy.sort(KeyAveragesModel::SelfDeviceColumn, Qt::DescendingOrder);
        // The order of torch's table sorted by self_cuda_time_total (ties keep group order).
        const auto order = stats::sortedRowOrder(averages, stats::SortKey::SelfDeviceTimeTotal);
        for (int r = 0; r < proxy.rowCount(); ++r)
            QCOMPARE(proxy.mapToSource(proxy.index(r, 0)).row(), int(order[size_t(r)]));
        QCOMPARE(proxy.index(0, KeyAveragesModel::NameColumn).data().toString(), QStringLiteral("matmul_kernel"));
        QCOMPARE(proxy.index(0, KeyAveragesModel::SelfDeviceColumn).data().toString(), QStringLiteral("4.140ms"));
        QVERIFY(std::abs(proxy.index(0, KeyAveragesModel::SelfDeviceColumn).data(KeyAveragesModel::SortRole).toDouble() - 4139.76) < 1);
        // torch's percentages, as summary's table prints them on each row (its line holds the same cells).
        const testutil::ProcessRun table = testutil::runProcess(
            QStringLiteral(TILESCOPE_CLI), {QStringLiteral("summary"), QString::fromStdString(testutil::workloadTrace("gemm_compare"))});
        QCOMPARE(table.exitCode, 0);
        QCOMPARE(proxy.index(0, KeyAveragesModel::SelfDevicePercentColumn).data().toString(), QStringLiteral("54.53%"));
        int checked = 0;
        for (int r = 0; r < proxy.rowCount(); ++r) {
            const QString name = proxy.index(r, KeyAveragesModel::NameColumn).data().toString();
            QStringList lines; // a name that is both an op and an annotation has two rows the table tells apart only by order
            for (const QByteArray& l : table.out.split('\n'))
                if (QString::fromUtf8(l).trimmed().startsWith(name + u' '))
                    lines << QString::fromUtf8(l);
            QVERIFY2(!lines.isEmpty(), qPrintable(name));
            if (lines.size() > 1)
                continue;
            const QString line = lines.front();
            ++checked;
            const QStringList cells = line.mid(line.indexOf(name) + name.size()).split(u' ', Qt::SkipEmptyParts);
            QCOMPARE(cells.value(0), proxy.index(r, KeyAveragesModel::SelfCpuPercentColumn).data().toString());
            QCOMPARE(cells.value(2), proxy.index(r, KeyAveragesModel::CpuTotalPercentColumn).data().toString());
            QCOMPARE(cells.value(6), proxy.index(r, KeyAveragesModel::SelfDevicePercentColumn).data().toString());
        }
        QVERIFY(checked >= 8);
        proxy.setFilterKeyColumn(KeyAveragesModel::NameColumn);
        proxy.setFilterFixedString(QStringLiteral("aten::"));
        QCOMPARE(proxy.rowCount(), 2);
        const int mm = model.findRow("aten::mm", stats::DeviceType::CPU);
        QVERIFY(mm >= 0);
        QCOMPARE(model.index(mm, KeyAveragesModel::FlopsColumn).data(KeyAveragesModel::SortRole).toDouble(), 20.0 * 137438953472.0);
        // Shown in torch's unit, as summary's table: "Total TFLOPs", 2.749.
        QCOMPARE(model.headerData(KeyAveragesModel::FlopsColumn, Qt::Horizontal, Qt::DisplayRole).toString(),
                 QStringLiteral("Total TFLOPs"));
        QCOMPARE(model.index(mm, KeyAveragesModel::FlopsColumn).data().toString(), QStringLiteral("2.749"));
        const QString csv = model.toCsv({mm});
        QVERIFY(csv.startsWith(QStringLiteral("key,input_shapes,device_type,")));
        QVERIFY(csv.contains(QStringLiteral("\naten::mm,,CPU,false,")));
    }

    // A new trace is sorted as torch's table sorts it (Self CUDA, or Self CPU without device time), and the sort
    // column is in view without scrolling in a dock as narrow as a 1366 px laptop's.
    void sortColumnInViewInNarrowDock_data()
    {
        QTest::addColumn<QString>("trace");
        QTest::addColumn<int>("sortColumn");
        QTest::newRow("GPU trace") << QString::fromStdString(testutil::workloadTrace("gemm_compare"))
                                   << int(KeyAveragesModel::SelfDeviceColumn);
        QTest::newRow("CPU-only trace") << QString::fromStdString(testutil::dataPath("legacy/cpu_mlp/trace.json"))
                                        << int(KeyAveragesModel::SelfCpuColumn);
    }
    void sortColumnInViewInNarrowDock()
    {
        QFETCH(QString, trace);
        QFETCH(int, sortColumn);
        KeyAveragesPanel panel;
        panel.resize(800, 300);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        // Opened after a trace sorted otherwise: a new trace starts in torch's order.
        panel.table()->sortByColumn(KeyAveragesModel::CountColumn, Qt::AscendingOrder);
        panel.setDocument(TraceDocument::build(trace, {}, {}));
        const QHeaderView* header = panel.table()->horizontalHeader();
        QCOMPARE(header->sortIndicatorSection(), sortColumn);
        QCOMPARE(header->sortIndicatorOrder(), Qt::DescendingOrder);
        QVERIFY(!panel.table()->isColumnHidden(sortColumn));
        const int viewport = panel.table()->viewport()->width();
        QVERIFY2(header->sectionViewportPosition(sortColumn) >= 0
                     && header->sectionViewportPosition(sortColumn) + header->sectionSize(sortColumn) <= viewport,
                 qPrintable(QStringLiteral("sort column at %1+%2 of %3 px")
                                .arg(header->sectionViewportPosition(sortColumn))
                                .arg(header->sectionSize(sortColumn))
                                .arg(viewport)));
        // Names keep 160 px, or all they need when less.
        const int nameNeeds = std::max(
            static_cast<const QAbstractItemView*>(panel.table())->sizeHintForColumn(KeyAveragesModel::NameColumn),
            header->sectionSizeHint(KeyAveragesModel::NameColumn));
        QVERIFY(header->sectionSize(KeyAveragesModel::NameColumn) >= std::min(160, nameNeeds));
        // The rows are in that column's order, largest first.
        const QSortFilterProxyModel* proxy = panel.proxy();
        QVERIFY(proxy->rowCount() > 3);
        for (int r = 1; r < proxy->rowCount(); ++r)
            QVERIFY(proxy->index(r - 1, sortColumn).data(KeyAveragesModel::SortRole).toDouble()
                    >= proxy->index(r, sortColumn).data(KeyAveragesModel::SortRole).toDouble());
        // A range or a by-shape view keeps the user's sort.
        panel.table()->sortByColumn(KeyAveragesModel::CountColumn, Qt::DescendingOrder);
        panel.groupByShape()->setChecked(true);
        QCOMPARE(header->sortIndicatorSection(), int(KeyAveragesModel::CountColumn));
        // By shape, the shapes come right after the name, and torch's sort column is still in view.
        panel.table()->sortByColumn(sortColumn, Qt::DescendingOrder);
        QCOMPARE(header->visualIndex(KeyAveragesModel::ShapesColumn), 1);
        QVERIFY(!panel.table()->isColumnHidden(KeyAveragesModel::ShapesColumn));
        QVERIFY(header->sectionSize(KeyAveragesModel::ShapesColumn) <= std::clamp(viewport / 5, 80, 240));
        QVERIFY2(header->sectionViewportPosition(sortColumn) + header->sectionSize(sortColumn) <= viewport,
                 qPrintable(QStringLiteral("by shape: sort column at %1+%2 of %3 px")
                                .arg(header->sectionViewportPosition(sortColumn))
                                .arg(header->sectionSize(sortColumn))
                                .arg(viewport)));
        // A width the user set by hand stays as the table is fitted again.
        panel.table()->setColumnWidth(KeyAveragesModel::ShapesColumn, 123);
        panel.resize(900, 300);
        QCoreApplication::processEvents();
        QCOMPARE(header->sectionSize(KeyAveragesModel::ShapesColumn), 123);
    }

    // The same trace comes again as its analyses land: the user's sort and filter stay; a new trace starts in
    // torch's order, unfiltered. A sort whose column a range hides falls back to torch's order for that range
    // (Self CUDA where it has device time) and comes back with the column.
    void userSortAcrossAnalysesAndRanges()
    {
        const QString path = QString::fromStdString(testutil::workloadTrace("gemm_compare"));
        const auto document = TraceDocument::build(path, {}, {});
        KeyAveragesPanel panel;
        panel.setDocument(document);
        QHeaderView* header = panel.table()->horizontalHeader();
        QVERIFY(!panel.table()->isColumnHidden(KeyAveragesModel::FlopsColumn));
        panel.table()->sortByColumn(KeyAveragesModel::FlopsColumn, Qt::DescendingOrder); // as a header click does
        panel.filter()->setText(QStringLiteral("aten"));
        auto again = std::make_shared<TraceDocument>(*document); // the same trace, a newer document
        panel.setDocument(again);
        QCOMPARE(header->sortIndicatorSection(), int(KeyAveragesModel::FlopsColumn));
        QCOMPARE(panel.filter()->text(), QStringLiteral("aten"));
        panel.filter()->clear();

        // A range holding one kernel's start alone: CUDA time, no FLOPs.
        const trace::Trace& t = *document->trace;
        const auto kernel = std::find_if(t.events.begin(), t.events.end(),
                                         [](const trace::Event& e) { return e.kind == trace::EventKind::Kernel; });
        QVERIFY(kernel != t.events.end());
        QSignalSpy aggregated(&panel, &KeyAveragesPanel::rangeAggregated);
        panel.setRange(std::pair{kernel->start, kernel->start + 1});
        QVERIFY(aggregated.wait(5000));
        QVERIFY(panel.table()->isColumnHidden(KeyAveragesModel::FlopsColumn));
        QCOMPARE(header->sortIndicatorSection(), int(KeyAveragesModel::SelfDeviceColumn));
        panel.setRange(std::nullopt);
        QCOMPARE(header->sortIndicatorSection(), int(KeyAveragesModel::FlopsColumn));

        panel.setDocument(TraceDocument::build(QString::fromStdString(testutil::dataPath("legacy/cpu_mlp/trace.json")), {}, {}));
        QCOMPARE(header->sortIndicatorSection(), int(KeyAveragesModel::SelfCpuColumn));
        panel.setDocument(document);
        QCOMPARE(header->sortIndicatorSection(), int(KeyAveragesModel::SelfDeviceColumn));
    }

    // Rows that arrive before the dock has its width are fitted again when it gets it; a width the user gave
    // the names stays.
    void namesFittedWhenTheDockGetsItsWidth()
    {
        KeyAveragesPanel panel;
        panel.setDocument(TraceDocument::build(QString::fromStdString(testutil::workloadTrace("gemm_compare")), {}, {}));
        const QHeaderView* header = panel.table()->horizontalHeader();
        panel.resize(1400, 300);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        const int viewport = panel.table()->viewport()->width();
        const int nameNeeds = std::max(
            static_cast<const QAbstractItemView*>(panel.table())->sizeHintForColumn(KeyAveragesModel::NameColumn),
            header->sectionSizeHint(KeyAveragesModel::NameColumn));
        QVERIFY2(nameNeeds > 300, qPrintable(QString::number(nameNeeds))); // kernel names: more than a narrow dock gives
        QTRY_COMPARE(header->sectionSize(KeyAveragesModel::NameColumn), std::min(nameNeeds, viewport / 2));
        panel.table()->setColumnWidth(KeyAveragesModel::NameColumn, 250); // the user's
        panel.resize(1200, 300);
        QTest::qWait(20);
        QCOMPARE(header->sectionSize(KeyAveragesModel::NameColumn), 250);
    }

    // The dock's Export CSV and `tilescope-cli summary --format csv` write the same file for the same rows.
    void exportEqualsTheCliCsv_data()
    {
        QTest::addColumn<bool>("byShape");
        QTest::newRow("by name") << false;
        QTest::newRow("by input shape") << true;
    }
    void exportEqualsTheCliCsv()
    {
        QFETCH(bool, byShape);
        const std::string path = testutil::workloadTrace("gemm_compare");
        KeyAveragesPanel panel;
        panel.groupByShape()->setChecked(byShape);
        panel.setDocument(TraceDocument::build(QString::fromStdString(path), {}, {}));
        panel.table()->sortByColumn(KeyAveragesModel::SelfDeviceColumn, Qt::DescendingOrder);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString exported = dir.filePath(QStringLiteral("key_averages.csv"));
        QVERIFY(panel.exportCsv(exported));
        QStringList arguments = {QString::fromStdString(path), QStringLiteral("--format"), QStringLiteral("csv"), QStringLiteral("--sort"),
                                 QStringLiteral("self_cuda_time_total")};
        if (byShape)
            arguments << QStringLiteral("--group-by-input-shape");
        const testutil::ProcessRun cli = testutil::runProcess(QStringLiteral(TILESCOPE_CLI),
                                                              QStringList{QStringLiteral("summary")} + arguments);
        QCOMPARE(cli.exitCode, 0);
        QFile file(exported);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray dock = file.readAll();
        QVERIFY(dock.count('\n') > 10);
        QCOMPARE(dock, cli.out);
    }

    // In compare mode Copy and Export CSV write the comparison, as `tilescope-cli diff --format csv` does.
    void compareExportEqualsTheCliCsv()
    {
        const std::string before = testutil::dataPath("findings/tiny_kernels.json.gz");
        const std::string after = testutil::dataPath("findings/dominant_kernel.json.gz");
        KeyAveragesPanel panel;
        panel.setDocument(TraceDocument::build(QString::fromStdString(before), {}, {}));
        panel.setComparison(TraceDocument::build(QString::fromStdString(after), {}, {}));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString exported = dir.filePath(QStringLiteral("diff.csv"));
        QVERIFY(panel.exportCsv(exported));
        const testutil::ProcessRun cli = testutil::runProcess(QStringLiteral(TILESCOPE_CLI),
                                                              {QStringLiteral("diff"), QString::fromStdString(before),
                                                               QString::fromStdString(after), QStringLiteral("--format"),
                                                               QStringLiteral("csv")});
        QCOMPARE(cli.exitCode, 0);
        QFile file(exported);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray dock = file.readAll();
        QVERIFY(dock.count('\n') > 3);
        QCOMPARE(dock, cli.out);
        // A filter narrows it to the rows shown.
        panel.filter()->setText(QStringLiteral("aten::"));
        QVERIFY(panel.exportCsv(exported));
        QFile filtered(exported); // written anew (atomically: another file)
        QVERIFY(filtered.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = filtered.readAll().trimmed().split('\n');
        QVERIFY(lines.size() > 1 && lines.size() < dock.count('\n'));
        for (qsizetype i = 1; i < lines.size(); ++i)
            QVERIFY2(lines[i].contains("aten::"), lines[i].constData());
    }
};

QTEST_MAIN(TestKeyAveragesModel)
#include "tst_keyaveragesmodel.moc"
