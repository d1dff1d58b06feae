// SPDX-License-Identifier: MIT
// Range aggregations started back to back while the table repaints: the rows a model shows must stay
// alive until the model lets go of them (issue #9's crash in KeyAveragesModel::data). Run under ASan in CI.
#include "testutil.h"

#include "keyaveragesmodel.h"
#include "keyaveragespanel.h"
#include "mainwindow.h"
#include "timelineview.h"
#include "tracedocument.h"

#include <QCheckBox>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QtTest>

using namespace tilescope;

namespace {

// What a repaint and a scroll do: read every cell the view can show.
qint64 readAllCells(QAbstractItemModel* model)
{
    qint64 characters = 0;
    for (int r = 0; r < model->rowCount(); ++r)
        for (int c = 0; c < model->columnCount(); ++c) {
            characters += model->index(r, c).data().toString().size();
            characters += model->index(r, c).data(KeyAveragesModel::SortRole).toString().size();
        }
    return characters;
}

} // namespace

class TestRangeStress : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QCoreApplication::setOrganizationName(QStringLiteral("TileScopeTests")); }

    void rangesBackToBackWhileTheTableIsRead()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy changed(&w, &MainWindow::documentChanged);
        w.openFile(QString::fromStdString(testutil::workloadTrace("train_scheduled")));
        QVERIFY(changed.wait(60000));
        const TraceDocument* doc = w.document();
        const int64_t start = doc->contentStart, span = doc->contentEnd - doc->contentStart;
        QTableView* table = w.table();
        std::pair<int64_t, int64_t> last{};
        for (int i = 0; i < 60; ++i) {
            // Shift+drag a range, a second one, tick "By input shape", scroll: as a user does.
            last = {start + span * (i % 7) / 20, start + span * (10 + i % 9) / 20};
            emit w.timeline()->rangeSelected(last);
            readAllCells(table->model());
            table->scrollToBottom();
            table->viewport()->repaint();
            if (i % 5 == 0)
                w.groupByShape()->toggle();
            readAllCells(table->model());
            table->scrollToTop();
            table->viewport()->repaint();
            QCoreApplication::processEvents(); // let some results in, so old rows are replaced while shown
        }
        // The newest request wins: the table ends with the last range's rows, equal to a direct aggregation.
        QTRY_VERIFY_WITH_TIMEOUT(!w.keyAverages()->isAggregating(), 30000);
        auto options = stats::KeyAveragesOptions::byInputShape(w.groupByShape()->isChecked());
        options.window = last;
        const auto expected = stats::computeKeyAverages(*doc->trace, options);
        const auto* shown = w.keyAverages()->model()->averages().get();
        QVERIFY(shown);
        QCOMPARE(shown->rows.size(), expected.rows.size());
        for (size_t r = 0; r < expected.rows.size(); ++r) {
            QCOMPARE(shown->rows[r].key, expected.rows[r].key);
            QCOMPARE(shown->rows[r].count, expected.rows[r].count);
        }
        QVERIFY(readAllCells(table->model()) > 0);
    }

    void newTraceWhileARangeIsAggregating()
    {
        MainWindow w;
        w.show();
        QSignalSpy changed(&w, &MainWindow::documentChanged);
        w.openFile(QString::fromStdString(testutil::workloadTrace("train_scheduled")));
        QVERIFY(changed.wait(60000));
        const TraceDocument* doc = w.document();
        emit w.timeline()->rangeSelected(std::make_pair(doc->contentStart, doc->contentEnd));
        w.openFile(QString::fromStdString(testutil::workloadTrace("gemm_compare")));
        QVERIFY(changed.wait(60000));
        QTest::qWait(500); // the first trace's range result arrives now and must be dropped
        readAllCells(w.table()->model());
        QCOMPARE(w.table()->model()->rowCount(), 13); // gemm_compare's whole-trace rows
    }
};

QTEST_MAIN(TestRangeStress)
#include "tst_rangestress.moc"
