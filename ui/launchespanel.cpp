// SPDX-License-Identifier: MIT
#include "launchespanel.h"

#include "analysis/launchstats.h"
#include "launchesmodel.h"
#include "tracedocument.h"

#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

using namespace tilescope;

namespace {

QTableView* makeTable(QAbstractItemModel* model, QWidget* parent, bool sortable)
{
    auto* table = new QTableView(parent);
    if (sortable) {
        auto* proxy = new QSortFilterProxyModel(table);
        proxy->setSourceModel(model);
        proxy->setSortRole(LaunchesModel::SortRole);
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
{
    m_header->setWordWrap(true);
    m_header->setText(tr("No trace"));
    m_distributionTable = makeTable(m_distributions, this, false);
    m_distributionTable->horizontalHeader()->setStretchLastSection(false); // the mean beside the other figures
    m_outlierTable = makeTable(m_outliers, this, true);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_distributionTable);
    split->addWidget(m_outlierTable);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_header);
    layout->addWidget(split, 1);
    connect(m_outlierTable, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        const uint32_t event = index.data(LaunchesModel::EventRole).value<uint32_t>();
        if (event != trace::kNoIndex)
            emit eventActivated(event);
    });
}

void LaunchesPanel::setDocument(std::shared_ptr<const TraceDocument> document)
{
    if (!document || !document->trace) {
        m_distributions->setStats(nullptr, nullptr);
        m_outliers->setStats(nullptr, nullptr);
        m_header->setText(tr("No trace"));
        return;
    }
    const std::shared_ptr<const trace::Trace> trace(document, document->trace.get());
    auto stats = std::make_shared<const analysis::LaunchStats>(analysis::computeLaunchStats(*trace));
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
    m_header->setText(tr("%1 launches (%2). Delay = first activity start − call start. Outliers: %3 kernels shorter than half their "
                         "launch, %4 long delays (above the stream's p99 and 100 µs); double-click one to show it.")
                          .arg(stats->launches.size())
                          .arg(apis)
                          .arg(stats->shortKernels.size())
                          .arg(stats->longDelays.size()));
    m_distributionTable->resizeColumnsToContents();
    m_outlierTable->resizeColumnsToContents();
}

QString LaunchesPanel::headerText() const { return m_header->text(); }
