// SPDX-License-Identifier: MIT
#include "comparepanel.h"

#include "tracedocument.h"

#include "report/comparereport.h"
#include "stats/timetext.h"
#include "stats/torchtable.h"

#include <QComboBox>
#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStyle>
#include <QTreeWidgetItemIterator>
#include <QTableWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

using namespace tilescope;

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }
QString duration(int64_t ns) { return qs(stats::formatDuration(ns)); }

constexpr int kCallRole = Qt::UserRole;     // a call item: its index in the side's callList
constexpr int kKindRole = Qt::UserRole + 1; // a picker item: "region" or "kernel"
constexpr size_t kListedCalls = 1000;       // a kernel launched 100k times: the first calls, counted

QComboBox* makePicker(QWidget* parent)
{
    auto* combo = new QComboBox(parent);
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(16);
    combo->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    return combo;
}

QTreeWidget* makeDetails(QWidget* parent)
{
    auto* tree = new QTreeWidget(parent);
    tree->setColumnCount(4);
    tree->setHeaderLabels({QObject::tr("Name"), QObject::tr("Calls / GPU time"), QObject::tr("Total / span"), QObject::tr("Share")});
    tree->setRootIsDecorated(true);
    tree->setUniformRowHeights(true);
    // Narrow, a kernel's name keeps its start and its end (the tile shape and layout of "nvjet_sm90_..._NNT").
    tree->setTextElideMode(Qt::ElideMiddle);
    tree->header()->setStretchLastSection(false);
    tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int column = 1; column < 4; ++column) // sized to their figures by fillDetails: the names get the rest
        tree->header()->setSectionResizeMode(column, QHeaderView::Interactive);
    return tree;
}

} // namespace

ComparePanel::ComparePanel(QWidget* parent)
    : QWidget(parent)
    , m_pickA(makePicker(this))
    , m_pickB(makePicker(this))
    , m_figures(new QTableWidget(this))
    , m_verdict(new QLabel(this))
    , m_detailsA(makeDetails(this))
    , m_detailsB(makeDetails(this))
{
    m_pickA->setObjectName(QStringLiteral("compareA"));
    m_pickB->setObjectName(QStringLiteral("compareB"));
    m_pickA->setToolTip(tr("a: a record_function region or a kernel of the trace"));
    m_pickB->setToolTip(tr("b: the reference (ratio b/a = b's mean GPU time per call / a's)"));
    m_pickA->setPlaceholderText(tr("pick a region or kernel"));
    m_pickB->setPlaceholderText(tr("pick the reference"));
    auto* pickers = new QGridLayout;
    pickers->addWidget(new QLabel(tr("a:"), this), 0, 0);
    pickers->addWidget(m_pickA, 0, 1);
    pickers->addWidget(new QLabel(tr("b:"), this), 0, 2);
    pickers->addWidget(m_pickB, 0, 3);
    pickers->setColumnStretch(1, 1);
    pickers->setColumnStretch(3, 1);

    m_verdict->setWordWrap(true);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_verdict->setObjectName(QStringLiteral("compareVerdict"));
    QFont bold = m_verdict->font();
    bold.setBold(true);
    m_verdict->setFont(bold);

    m_figures->setColumnCount(2);
    m_figures->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_figures->setSelectionMode(QAbstractItemView::NoSelection);
    m_figures->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    // From the left: a name too long for its column keeps its start ("a: custom_ke"), where centred it lost both ends
    // ("custom_kerr"); whole in the tooltip.
    m_figures->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_figures->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);

    auto* sides = new QSplitter(Qt::Horizontal, this);
    sides->addWidget(m_detailsA);
    sides->addWidget(m_detailsB);
    m_split = new QSplitter(Qt::Vertical, this);
    auto* split = m_split;
    split->addWidget(m_figures);
    split->addWidget(sides);
    split->setChildrenCollapsible(false);
    m_figures->setMinimumHeight(40); // small least heights, as the launches' tables (a 768 px screen)
    sides->setMinimumHeight(40);
    split->setStretchFactor(0, 3); // the figures first; the lists scroll
    split->setStretchFactor(1, 2);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(pickers);
    layout->addWidget(m_verdict);
    layout->addWidget(split, 1);

    for (QComboBox* combo : {m_pickA, m_pickB})
        connect(combo, &QComboBox::currentIndexChanged, this, [this] { recompute(); });
    for (QTreeWidget* tree : {m_detailsA, m_detailsB})
        connect(tree, &QTreeWidget::itemClicked, this, [this, tree](QTreeWidgetItem* item) {
            const QVariant call = item->data(0, kCallRole);
            if (!m_comparison || !call.isValid())
                return;
            const compare::Side& side = tree == m_detailsA ? m_comparison->a : m_comparison->b;
            const auto& c = side.callList.at(size_t(call.toULongLong()));
            emit callActivated(c.startNs, c.endNs);
        });
    setDocument(nullptr);
}

void ComparePanel::setDocument(std::shared_ptr<const TraceDocument> document)
{
    m_doc = std::move(document);
    m_report = m_doc ? m_doc->classification : roofline::ClassifyReport{};
    m_comparison.reset();
    const QSignalBlocker blockA(m_pickA), blockB(m_pickB);
    m_pickA->clear();
    m_pickB->clear();
    if (!m_doc) {
        showComparison();
        return;
    }
    const compare::Candidates candidates = compare::candidates(*m_doc->trace);
    for (QComboBox* combo : {m_pickA, m_pickB}) {
        for (const std::string& r : candidates.regions) {
            combo->addItem(tr("%1 (region)").arg(qs(r)), qs(r));
            combo->setItemData(combo->count() - 1, QStringLiteral("region"), kKindRole);
            combo->setItemData(combo->count() - 1, qs(r), Qt::ToolTipRole);
        }
        for (const std::string& k : candidates.kernels) {
            combo->addItem(qs(k), qs(k));
            combo->setItemData(combo->count() - 1, QStringLiteral("kernel"), kKindRole);
            combo->setItemData(combo->count() - 1, qs(k), Qt::ToolTipRole);
        }
    }
    // compare's default pair; else nothing picked, as `tilescope-cli compare` asks for both sides: the first
    // two candidates were often unrelated (an NCCL kernel against a memcpy) and read as a finding.
    QString a, b;
    try {
        const auto pair = compare::defaultPair(*m_doc->trace);
        a = qs(pair.first);
        b = qs(pair.second);
    } catch (const compare::CompareError&) { }
    m_pickA->setCurrentIndex(m_pickA->findData(a));
    m_pickB->setCurrentIndex(m_pickB->findData(b));
    recompute();
}

void ComparePanel::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    // Under ~300 px of height the figures and each side's calls got about one row each, stacked; side by
    // side each has the whole height.
    const Qt::Orientation wanted = height() < 320 && width() > 2 * height() ? Qt::Horizontal : Qt::Vertical;
    if (m_split->orientation() == wanted)
        return;
    m_split->setOrientation(wanted);
    // Stacked, the figures take 3/5 of the height; side by side, a third of the width, so each side's list has
    // room for its kernels' names beside their figures (at 2/5 a name got about 70 px at 1366x768). The sizes
    // the other way round would hold.
    const int length = wanted == Qt::Vertical ? m_split->height() : m_split->width();
    const int figures = wanted == Qt::Vertical ? length * 3 / 5 : length / 3;
    m_split->setSizes({figures, length - figures});
}

void ComparePanel::setClassification(const roofline::ClassifyReport& report)
{
    m_report = report;
    recompute();
}

void ComparePanel::setSide(bool sideA, const QString& name)
{
    QComboBox* combo = picker(sideA);
    const int index = combo->findData(name);
    if (index >= 0)
        combo->setCurrentIndex(index); // recomputes through currentIndexChanged
}

bool ComparePanel::canCompare(const QString& name) const { return m_pickA->findData(name) >= 0; }

void ComparePanel::compareWith(const QString& name)
{
    setSide(true, name);
    m_pickB->setFocus();
    m_pickB->showPopup();
}

void ComparePanel::recompute()
{
    m_comparison.reset();
    const QString a = m_pickA->currentData().toString(), b = m_pickB->currentData().toString();
    if (m_doc && !a.isEmpty() && !b.isEmpty()) {
        try {
            m_comparison = compare::compareSides(*m_doc->trace, m_report, a.toStdString(), b.toStdString());
        } catch (const compare::CompareError& e) {
            m_verdict->setText(qs(e.what()));
        }
    }
    showComparison();
}

void ComparePanel::showComparison()
{
    m_detailsA->clear();
    m_detailsB->clear();
    if (!m_comparison) {
        m_figures->setRowCount(0);
        m_figures->setHorizontalHeaderLabels({tr("a"), tr("b")}); // not the bare section numbers "1" and "2"
        for (int side = 0; side < 2; ++side)                      // the items are kept: not the last names' tooltips
            m_figures->horizontalHeaderItem(side)->setToolTip(QString());
        if (!m_doc)
            m_verdict->setText(tr("Open a trace to compare two regions or kernels."));
        else if (m_pickA->count() < 2)
            m_verdict->setText(tr("This trace has fewer than two regions or kernels to compare."));
        else if (m_pickA->currentIndex() < 0 || m_pickB->currentIndex() < 0)
            m_verdict->setText(tr("No default pair in this trace (a tilelang_kernel or custom_kernel region against torch_ref): "
                                  "pick a and b above, or right-click a row of the key averages and choose Compare with..."));
        return;
    }
    const compare::Comparison& c = *m_comparison;
    const QString ratio = c.ratioBOverA ? qs(stats::formatFixed(*c.ratioBOverA, 3)) : QStringLiteral("-");
    m_verdict->setText(qs(c.verdict));
    m_verdict->setToolTip(tr("ratio b/a (b's mean GPU time per call / a's) = %1").arg(ratio));
    m_figures->setHorizontalHeaderLabels({tr("a: %1").arg(qs(c.a.name)), tr("b: %1").arg(qs(c.b.name))});
    for (int side = 0; side < 2; ++side) // a narrow dock cuts the names: whole in the tooltip
        m_figures->horizontalHeaderItem(side)->setToolTip(m_figures->horizontalHeaderItem(side)->text());
    const std::vector<report::CompareRow> rows = report::compareRows(c);
    m_figures->setRowCount(int(rows.size()) + 1);
    QStringList labels;
    for (size_t i = 0; i < rows.size(); ++i) {
        labels << qs(rows[i].label);
        m_figures->setItem(int(i), 0, new QTableWidgetItem(qs(rows[i].a)));
        m_figures->setItem(int(i), 1, new QTableWidgetItem(qs(rows[i].b)));
    }
    labels << tr("ratio b/a");
    m_figures->setItem(int(rows.size()), 0, new QTableWidgetItem(ratio));
    m_figures->setItem(int(rows.size()), 1, new QTableWidgetItem());
    m_figures->setVerticalHeaderLabels(labels);
    fillDetails(m_detailsA, c.a);
    fillDetails(m_detailsB, c.b);
}

void ComparePanel::fillDetails(QTreeWidget* tree, const compare::Side& side)
{
    tree->setHeaderLabels({tr("%1: kernels and calls").arg(qs(side.name)), tr("Calls / GPU time"), tr("Total / span"), tr("Share")});
    if (!side.kernels.empty()) {
        auto* kernels = new QTreeWidgetItem(tree, {tr("Kernels inside (%1)").arg(side.kernels.size())});
        for (const auto& k : side.kernels) {
            auto* item = new QTreeWidgetItem(kernels,
                                             {qs(k.name), QString::number(k.calls), duration(std::llround(k.totalUs * 1000.0)),
                                              qs(stats::formatFixed(100 * k.share, 1)) + QStringLiteral("%")});
            item->setToolTip(0, qs(k.name));
        }
        kernels->setExpanded(true);
        kernels->setFirstColumnSpanned(true); // a heading over the figures: the whole row, not the name column
    }
    const size_t listed = std::min(side.callList.size(), kListedCalls);
    const QString count = listed < side.callList.size() ? tr("%1, the first %2 listed").arg(side.callList.size()).arg(listed)
                                                        : QString::number(side.callList.size());
    auto* calls = new QTreeWidgetItem(tree, {tr("Calls (%1): click one to show it in the timeline").arg(count)});
    calls->setFirstColumnSpanned(true); // it read "Calls (20): c… the timeline" in the name column
    calls->setToolTip(0, calls->text(0));
    const int64_t origin = m_doc ? m_doc->contentStart : 0;
    for (size_t i = 0; i < listed; ++i) {
        const compare::Call& c = side.callList[i];
        auto* item = new QTreeWidgetItem(
            calls, {tr("#%1 at %2").arg(i + 1).arg(duration(c.startNs - origin)), duration(c.gpuNs), duration(c.endNs - c.startNs)});
        item->setData(0, kCallRole, QVariant::fromValue<qulonglong>(i));
        item->setToolTip(0, tr("GPU time %1 in a span of %2").arg(duration(c.gpuNs), duration(c.endNs - c.startNs)));
    }
    calls->setExpanded(side.kernels.empty());
    // The figures' columns as wide as their figures, not their headings (which say what both kinds of row hold
    // and are cut, with a tooltip): sized to the headings they left a kernel's name about 70 px at 1366x768.
    const QStringList headings{tr("a kernel's calls; a call's GPU time"),
                               tr("a kernel's GPU time in all; a call's span, its first kernel's start to its last one's end"),
                               tr("a kernel's share of the side's GPU time")};
    const QFontMetrics metrics(tree->font());
    for (int column = 1; column < 4; ++column) {
        int width = metrics.horizontalAdvance(QStringLiteral("Share"));
        for (QTreeWidgetItemIterator it(tree); *it; ++it)
            width = std::max(width, metrics.horizontalAdvance((*it)->text(column)));
        tree->header()->resizeSection(column, width + 2 * tree->style()->pixelMetric(QStyle::PM_HeaderMargin) + 8);
        tree->headerItem()->setToolTip(column, headings[column - 1]);
    }
}
