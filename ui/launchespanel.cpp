// SPDX-License-Identifier: MIT
#include "launchespanel.h"

#include "analysis/launchstats.h"
#include "analysis/kernelsequences.h"
#include "launchesmodel.h"
#include "rowfitsplitter.h"
#include "report/sequencereport.h"
#include "sequencesmodel.h"
#include "tracedocument.h"

#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

using namespace tilescope;

namespace {

QTableView* makeTable(QAbstractItemModel* model, QWidget* parent, bool sortable, int sortRole = LaunchesModel::SortRole)
{
    auto* table = new QTableView(parent);
    if (sortable) {
        auto* proxy = new QSortFilterProxyModel(table);
        proxy->setSourceModel(model);
        proxy->setSortRole(sortRole);
        table->setModel(proxy);
        table->setSortingEnabled(true);
        table->sortByColumn(-1, Qt::AscendingOrder); // the model's order (most severe first) until a header is clicked
    } else {
        table->setModel(model);
    }
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->verticalHeader()->hide();
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 4);
    table->horizontalHeader()->setStretchLastSection(true);
    table->setWordWrap(false);
    return table;
}

} // namespace

LaunchesPanel::LaunchesPanel(QWidget* parent)
    : QWidget(parent)
    , m_distributions(new LaunchesModel(LaunchesModel::View::Distributions, this))
    , m_outliers(new LaunchesModel(LaunchesModel::View::Outliers, this))
    , m_header(new QLabel(this))
    , m_sequences(new SequencesModel(this))
    , m_sequenceHeader(new QLabel(this))
    , m_tabs(new QTabWidget(this))
{
    m_header->setWordWrap(true);
    m_header->setText(tr("No trace"));
    m_distributionTable = makeTable(m_distributions, this, false);
    m_distributionTable->horizontalHeader()->setStretchLastSection(false); // the mean beside the other figures
    m_outlierTable = makeTable(m_outliers, this, true);
    // Small least heights: the bottom docks share one tab group, whose least height is its tallest tab's,
    // and a short (768 px) screen must still leave the timeline its room. The figures (three rows a stream)
    // as tall as their rows, the outliers the rest.
    m_distributionTable->setMinimumHeight(40);
    m_outlierTable->setMinimumHeight(40);
    m_split = new RowFitSplitter(m_distributionTable, m_outlierTable, 6, this);
    auto* launchesTab = new QWidget(m_tabs);
    auto* launchesLayout = new QVBoxLayout(launchesTab);
    launchesLayout->setContentsMargins(2, 2, 2, 2);
    launchesLayout->addWidget(m_header);
    launchesLayout->addWidget(m_split, 1);
    m_tabs->addTab(launchesTab, tr("Launch statistics"));

    m_sequenceHeader->setWordWrap(true);
    m_sequenceTable = makeTable(m_sequences, this, true, SequencesModel::SortRole);
    auto* sequencesTab = new QWidget(m_tabs);
    auto* sequencesLayout = new QVBoxLayout(sequencesTab);
    sequencesLayout->setContentsMargins(2, 2, 2, 2);
    sequencesLayout->addWidget(m_sequenceHeader);
    sequencesLayout->addWidget(m_sequenceTable, 1);
    m_tabs->addTab(sequencesTab, tr("Repeated sequences"));

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tabs);
    connect(m_outlierTable, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        const uint32_t event = index.data(LaunchesModel::EventRole).value<uint32_t>();
        if (event != trace::kNoIndex)
            emit eventActivated(event);
    });
    connect(m_sequenceTable, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        const uint32_t event = index.data(SequencesModel::EventRole).value<uint32_t>();
        if (event != trace::kNoIndex)
            emit eventActivated(event);
    });
}

void LaunchesPanel::setDocument(std::shared_ptr<const TraceDocument> document)
{
    // No trace, or its analyses still running (TraceDocument::analyse): the dock fills when they are in.
    const bool noTrace = !document || !document->trace;
    if (noTrace || !document->launchStats || !document->kernelSequences) {
        const QString why = noTrace ? tr("No trace") : tr("Analysing…");
        m_distributions->setStats(nullptr, nullptr);
        m_outliers->setStats(nullptr, nullptr);
        m_header->setText(why);
        m_sequences->setReport(nullptr, nullptr);
        m_sequenceHeader->setText(why);
        return;
    }
    const std::shared_ptr<const trace::Trace> trace(document, document->trace.get());
    const auto sequences = document->kernelSequences;
    m_sequences->setReport(trace, sequences);
    m_sequenceHeader->setText(sequences->sequences.empty() ? tr("No repeated kernel sequence.")
                                                           : QString::fromStdString(report::sequenceRuleText(sequences->options))
                                      + tr(". Double-click one to show its first occurrence; hover for its kernels."));
    m_sequenceTable->resizeColumnsToContents();
    const auto stats = document->launchStats;
    m_distributions->setStats(trace, stats);
    m_outliers->setStats(trace, stats);
    if (stats->launches.empty()) {
        m_header->setText(tr("No launches: no CUDA runtime or driver call is linked to a kernel, memcpy or memset."));
        return;
    }
    QString apis;
    for (const auto& [name, count] : stats->apis)
        apis += (apis.isEmpty() ? QString() : QStringLiteral(", ")) + QString::fromStdString(name) + QStringLiteral(" ")
            + QString::number(count);
    // One line where the dock is wide enough: the definitions are in the tooltip, the room is the tables'.
    // Not "outliers" where every launch is one (a launch-bound run's kernels are all shorter than their calls).
    const size_t shortKernels = stats->shortKernels.size();
    m_header->setText(tr("%1 launches (%2); short kernels: %3, long delays: %4 (double-click a row below to show it)")
                          .arg(stats->launches.size())
                          .arg(apis)
                          .arg(shortKernels == stats->launches.size() ? tr("all %1").arg(shortKernels) : QString::number(shortKernels))
                          .arg(stats->longDelays.size()));
    m_header->setToolTip(tr("Delay = the first activity's start − the call's start. A short kernel runs for less than half "
                            "its launch call; a long delay is above 100 µs and, on a stream of 100 launches or more, above "
                            "its p99."));
    m_distributionTable->resizeColumnsToContents();
    m_outlierTable->resizeColumnsToContents();
    m_split->fitToRows();
}

QString LaunchesPanel::headerText() const { return m_header->text(); }
