// SPDX-License-Identifier: MIT
// The Compare dock (issue #12): the pickers hold the trace's regions and kernels, compare's default pair is
// chosen, the figures and verdict are core's, a clicked call is shown in the timeline.
#include "testutil.h"
#include "uitestutil.h"

#include "comparepanel.h"
#include "mainwindow.h"
#include "report/comparereport.h"
#include "roofline/annotationfile.h"
#include "timelineview.h"
#include "tracedocument.h"

#include <QHeaderView>
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QTreeWidget>
#include <QtTest>

using namespace tilescope;

namespace {

QString gemmCompare() { return QString::fromStdString(testutil::workloadTrace("gemm_compare")); }

// The tree item whose first column starts with `text`, searched depth-first.
QTreeWidgetItem* itemStartingWith(QTreeWidget* tree, const QString& text)
{
    for (QTreeWidgetItemIterator it(tree); *it; ++it)
        if ((*it)->text(0).startsWith(text))
            return *it;
    return nullptr;
}

} // namespace

class TestComparePanel : public QObject
{
    Q_OBJECT
private slots:
    void defaultPairAndFigures()
    {
        ComparePanel panel;
        QVERIFY(!panel.comparison());
        const auto doc = TraceDocument::build(gemmCompare(), {}, {});
        panel.setDocument(doc);
        // Regions first (first-seen order), then every GPU activity name, in both pickers.
        const compare::Candidates candidates = compare::candidates(*doc->trace);
        for (const bool a : {true, false}) {
            QComboBox* combo = panel.picker(a);
            QCOMPARE(combo->count(), int(candidates.regions.size() + candidates.kernels.size()));
            QCOMPARE(combo->itemData(0).toString(), QStringLiteral("torch_ref"));
            QCOMPARE(combo->itemData(2).toString(), QString::fromStdString(candidates.kernels[0]));
        }
        QCOMPARE(panel.picker(true)->currentData().toString(), QStringLiteral("custom_kernel"));
        QCOMPARE(panel.picker(false)->currentData().toString(), QStringLiteral("torch_ref"));
        QVERIFY(panel.comparison());
        // What is shown is core's comparison of the same document, row for row.
        const compare::Comparison expected = compare::compareSides(*doc->trace, doc->classification, "custom_kernel", "torch_ref");
        QCOMPARE(panel.verdict()->text().toStdString(), expected.verdict);
        const auto rows = report::compareRows(expected);
        QCOMPARE(panel.figures()->rowCount(), int(rows.size()) + 1);
        // The sides' names head the columns from the left (cut at the end where the dock is narrow), whole in the tooltip.
        QCOMPARE(panel.figures()->horizontalHeaderItem(0)->toolTip(), QStringLiteral("a: custom_kernel"));
        QCOMPARE(panel.figures()->horizontalHeaderItem(1)->toolTip(), QStringLiteral("b: torch_ref"));
        QVERIFY(panel.figures()->horizontalHeader()->defaultAlignment() & Qt::AlignLeft);
        for (size_t i = 0; i < rows.size(); ++i) {
            QCOMPARE(panel.figures()->verticalHeaderItem(int(i))->text().toStdString(), rows[i].label);
            QCOMPARE(panel.figures()->item(int(i), 0)->text().toStdString(), rows[i].a);
            QCOMPARE(panel.figures()->item(int(i), 1)->text().toStdString(), rows[i].b);
        }
        // torch_ref's kernels (the GEMM and a memset) and its 20 calls are listed.
        QTreeWidget* b = panel.details(false);
        QVERIFY(itemStartingWith(b, QStringLiteral("Kernels inside (2)")));
        QVERIFY(itemStartingWith(b, QStringLiteral("Calls (20)")));
        // The headings take the whole row: in the name column alone they read "Calls (20): c… the timeline".
        QVERIFY(itemStartingWith(b, QStringLiteral("Kernels inside (2)"))->isFirstColumnSpanned());
        QVERIFY(itemStartingWith(b, QStringLiteral("Calls (20)"))->isFirstColumnSpanned());
        QVERIFY(itemStartingWith(b, QStringLiteral("#20 at ")));

        QVERIFY(panel.canCompare(QStringLiteral("torch_ref")) && panel.canCompare(QStringLiteral("matmul_kernel")));
        QVERIFY(!panel.canCompare(QStringLiteral("aten::mm"))); // a CPU op: neither a region nor a GPU activity
        // "Compare with..." from the key-averages table: the name becomes a, b stays.
        panel.compareWith(QStringLiteral("matmul_kernel"));
        QCOMPARE(panel.comparison()->a.name, std::string("matmul_kernel"));
        QCOMPARE(panel.comparison()->b.name, std::string("torch_ref"));
        panel.picker(false)->hidePopup();

        // Another pick: two kernels, compared again.
        panel.setSide(true, QStringLiteral("matmul_kernel"));
        panel.setSide(false, QStringLiteral("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"));
        QCOMPARE(panel.comparison()->a.kind, compare::SideKind::Kernel);
        QCOMPARE(panel.comparison()->b.kind, compare::SideKind::Kernel);
        QVERIFY(panel.verdict()->text().startsWith(QStringLiteral("matmul_kernel is ")));
        QVERIFY(!itemStartingWith(panel.details(true), QStringLiteral("Kernels inside")));
        // A name that is not in the trace changes nothing.
        panel.setSide(true, QStringLiteral("no such kernel"));
        QCOMPARE(panel.comparison()->a.name, std::string("matmul_kernel"));

        // A newer classification (annotations declared in the roofline panel) reaches the figures.
        roofline::Annotation declared;
        declared.kernel = "matmul_kernel";
        declared.flops = 137438953472.0;
        declared.bytes = 100663296.0;
        declared.roof = "bf16";
        roofline::ClassifyOptions options;
        options.annotations = {declared};
        panel.setClassification(roofline::classify(*doc->trace, options));
        QCOMPARE(panel.comparison()->a.cls, roofline::RooflineClass::TensorCoreBound);
        QVERIFY2(panel.verdict()->text().contains(QStringLiteral("both tensor-core bound")), qPrintable(panel.verdict()->text()));

        panel.setDocument(nullptr);
        QVERIFY(!panel.comparison());
        QCOMPARE(panel.picker(true)->count(), 0);
        // The heads go back to "a" and "b", without the names' tooltips.
        QCOMPARE(panel.figures()->horizontalHeaderItem(0)->text(), QStringLiteral("a"));
        QVERIFY(panel.figures()->horizontalHeaderItem(0)->toolTip().isEmpty());
        QVERIFY(panel.figures()->horizontalHeaderItem(1)->toolTip().isEmpty());
    }

    // Without the default labels nothing is compared until the user picks both sides (as the CLI asks for
    // --a and --b): the first two candidates were often unrelated kernels.
    void noDefaultPair()
    {
        ComparePanel panel;
        const auto doc = TraceDocument::build(QString::fromStdString(testutil::workloadTrace("launch_bound")), {}, {});
        panel.setDocument(doc);
        QVERIFY(!panel.comparison());
        QCOMPARE(panel.picker(true)->currentIndex(), -1);
        QCOMPARE(panel.picker(false)->currentIndex(), -1);
        QVERIFY(panel.picker(true)->count() >= 2);
        const QLabel* verdict = panel.findChild<QLabel*>(QStringLiteral("compareVerdict"));
        QVERIFY(verdict && verdict->text().contains(QStringLiteral("No default pair")));
        // The empty figures' columns are named for the sides, not numbered.
        const QTableWidget* figures = panel.figures();
        QVERIFY(figures && figures->horizontalHeaderItem(0) && figures->horizontalHeaderItem(1));
        QCOMPARE(figures->horizontalHeaderItem(0)->text(), QStringLiteral("a"));
        QCOMPARE(figures->horizontalHeaderItem(1)->text(), QStringLiteral("b"));
        panel.setSide(true, panel.picker(true)->itemData(0).toString());
        QVERIFY(!panel.comparison()); // one side picked
        panel.setSide(false, panel.picker(true)->itemData(1).toString());
        QVERIFY(panel.comparison());
        // launch_bound's largest kernel, launched 1500 times: the list holds the first 1000 and says so.
        const compare::Side& b = panel.comparison()->b;
        QCOMPARE(b.kind, compare::SideKind::Kernel);
        QCOMPARE(b.calls, uint64_t(testutil::countNamed(*doc->trace, b.name)));
        QCOMPARE(b.calls, uint64_t(1500));
        QVERIFY(itemStartingWith(panel.details(false), QStringLiteral("Calls (1500, the first 1000 listed)")));
        QVERIFY(itemStartingWith(panel.details(false), QStringLiteral("#1000 at ")));
        QVERIFY(!itemStartingWith(panel.details(false), QStringLiteral("#1001 at ")));
    }

    // A short, wide dock (the bottom of a 768 px screen) puts the figures beside the calls: stacked, each had
    // about one row.
    void figuresBesideTheCallsWhenShort()
    {
        ComparePanel panel;
        panel.setDocument(TraceDocument::build(QString::fromStdString(testutil::workloadTrace("gemm_compare")), {}, {}));
        QVERIFY(panel.comparison());
        panel.resize(1000, 200);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QCOMPARE(panel.figuresAndCalls()->orientation(), Qt::Horizontal);
        QVERIFY2(panel.figures()->height() >= 100, qPrintable(QString::number(panel.figures()->height())));
        QVERIFY(panel.figures()->width() >= 300);
        // Each side's list gives its kernels' names the room its figures leave (they had about 70 px).
        for (const bool a : {true, false})
            QVERIFY2(panel.details(a)->header()->sectionSize(0) >= 110,
                     qPrintable(QString::number(panel.details(a)->header()->sectionSize(0))));
        panel.resize(700, 600);
        QTest::qWait(20);
        QCOMPARE(panel.figuresAndCalls()->orientation(), Qt::Vertical);
        QVERIFY(panel.figures()->height() >= 200);
    }

    // In the window: a dock named Kernel vs Reference follows the open trace; a clicked call selects its range in the timeline.
    void dockInMainWindow()
    {
        MainWindow w;
        testutil::showExposed(w);
        testutil::loadAndWait(w, gemmCompare());
        auto* panel = w.findChild<ComparePanel*>();
        QVERIFY(panel);
        auto* dock = qobject_cast<QDockWidget*>(panel->parentWidget());
        QVERIFY(dock && dock->windowTitle() == QStringLiteral("Kernel vs Reference"));
        QVERIFY(panel->comparison());
        QCOMPARE(panel->comparison()->a.name, std::string("custom_kernel"));
        dock->show();
        dock->raise();
        QTreeWidget* tree = panel->details(true);
        QTreeWidgetItem* third = itemStartingWith(tree, QStringLiteral("#3 at "));
        QVERIFY(third);
        const compare::Call call = panel->comparison()->a.callList[2];
        emit tree->itemClicked(third, 0);
        QCOMPARE(w.timeline()->selectedRange(), (std::optional<std::pair<int64_t, int64_t>>{{call.startNs, call.endNs}}));
        QVERIFY(w.timeline()->viewStart() <= call.startNs && w.timeline()->viewEnd() >= call.endNs);
        QVERIFY(w.timeline()->viewEnd() - w.timeline()->viewStart() < 4 * (call.endNs - call.startNs));
        // A click on a kernel row (not a call) moves nothing.
        emit tree->itemClicked(itemStartingWith(tree, QStringLiteral("matmul_kernel")), 0);
        QCOMPARE(w.timeline()->selectedRange()->first, call.startNs);
    }
};

QTEST_MAIN(TestComparePanel)
#include "tst_comparepanel.moc"
