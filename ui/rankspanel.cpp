// SPDX-License-Identifier: MIT
#include "rankspanel.h"

#include "analysis/ranks.h"
#include "ranksmodel.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

RanksPanel::RanksPanel(QWidget* parent)
    : QWidget(parent)
    , m_model(new RanksModel(this))
    , m_verdict(new QLabel(this))
    , m_table(new QTableView(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_verdict->setWordWrap(true);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_verdict->setText(tr("File > Open Folder… opens the per-rank traces of one run."));
    layout->addWidget(m_verdict);
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(m_table, 1);
    connect(m_table, &QTableView::activated, this, [this](const QModelIndex& index) {
        const auto* report = m_model->report();
        if (report && index.isValid())
            emit rankActivated(index.siblingAtColumn(0).data(RanksModel::FileRole).toString(), report->ranks[size_t(index.row())].rank);
    });
}

void RanksPanel::setReport(std::shared_ptr<const tilescope::analysis::RanksReport> report)
{
    m_model->setReport(std::move(report));
    m_verdict->setText(m_model->verdictText());
    m_table->resizeColumnsToContents();
}

qint64 RanksPanel::markShown(const QString& file)
{
    const auto* report = m_model->report();
    for (int row = 0; report && row < m_model->rowCount(); ++row)
        if (m_model->index(row, 0).data(RanksModel::FileRole).toString() == file) {
            m_table->selectRow(row);
            return report->ranks[size_t(row)].rank;
        }
    m_table->clearSelection();
    return -1;
}
